"""Benchmark hybrid recall's keyword side as one customer's memory grows: before and after indexing.
The keyword statement must read only matching rows and rank exactly as the plain one did. How to run it and
what it measures: docs/bench.md ("The scripts").
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks import services  # noqa: E402 - needs the path above

DATABASE = "keyword_bench"
VALID = (
    "customer_id = %(customer)s AND invalidated_at IS NULL AND archived_at IS NULL"
    " AND (expires_at IS NULL OR expires_at > %(now)s)"
)
# The statement memory.recall used before the lexemes were stored and indexed (commit 951fd34).
BEFORE_SQL = f"""
    WITH docs AS (
        SELECT id, content, tsvector_to_array(to_tsvector('english', content)) AS terms,
               embedding <=> %(vector)s::vector AS distance
        FROM memory_longtermmemory WHERE {VALID}
    ),
    query_terms AS (SELECT DISTINCT unnest(tsvector_to_array(to_tsvector('english', %(query)s))) AS term),
    hits AS (
        SELECT d.id, t.term FROM docs d CROSS JOIN LATERAL unnest(d.terms) AS t(term)
        JOIN query_terms q ON q.term = t.term
    ),
    weights AS (
        SELECT term, ln(1 + ((SELECT count(*) FROM docs) - count(*) + 0.5) / (count(*) + 0.5)) AS weight
        FROM hits GROUP BY term
    ),
    lexical AS (SELECT h.id, sum(w.weight) AS score FROM hits h JOIN weights w USING (term) GROUP BY h.id),
    scored AS (
        SELECT d.id, d.distance,
               (SELECT count(*) FROM unnest(%(tokens)s::text[]) AS t WHERE d.content ILIKE '%%' || t || '%%') AS exact,
               coalesce(l.score, 0) AS lexical,
               CASE WHEN %(trigrams)s THEN word_similarity(%(query)s, d.content) ELSE 0 END AS trigram
        FROM docs d LEFT JOIN lexical l USING (id)
    )
    SELECT id, exact FROM scored
    WHERE exact > 0 OR lexical > 0 OR trigram >= %(min_trigram)s
    ORDER BY exact DESC, lexical + CASE WHEN trigram >= %(min_trigram)s THEN trigram ELSE 0 END DESC, distance
    LIMIT %(keyword_limit)s
"""  # noqa: S608 - constant SQL


def timed(sql: str, params: dict) -> tuple[list[int], float]:
    """The ids ``sql`` returns in order (the old statement ranked in SQL) and the milliseconds it took."""
    from django.db import connection

    with connection.cursor() as cursor:
        started = time.perf_counter()
        cursor.execute(sql, params)
        ids = [row[0] for row in cursor.fetchall()]
    return ids, (time.perf_counter() - started) * 1000


def timed_recall_keywords(params: dict) -> tuple[list[int], float]:
    """Recall's keyword candidates (its statement, ranked in Python) and the milliseconds they took."""
    from django.db import connection

    from memory.recall import _KEYWORD_SQL, keyword_ranking

    with connection.cursor() as cursor:
        started = time.perf_counter()
        cursor.execute(_KEYWORD_SQL, params)
        ranked = keyword_ranking(cursor.fetchall(), min_trigram=params["min_trigram"], limit=params["keyword_limit"])
    return [memory_id for memory_id, _ in ranked], (time.perf_counter() - started) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datadir", type=Path, default=Path("/tmp/bench-kw"))
    parser.add_argument("--cache-dir", type=Path, default=services.DEFAULT_DATADIR, help="embedding cache")
    parser.add_argument("--sizes", default="100,1000,10000,100000")
    parser.add_argument("--queries", type=int, default=50)
    parser.add_argument("--keep", action="store_true")
    args = parser.parse_args()
    services.run_benchmark(args, DATABASE, lambda: run(args))


def run(args: argparse.Namespace) -> None:
    from django.conf import settings
    from django.db import connection
    from django.utils import timezone

    from benchmarks import synthetic
    from memory.embeddings import get_embedder
    from memory.recall import exact_tokens, query_params, recall

    print(services.machine())
    print(services.load_average(), "at the start")
    texts = synthetic.memory_texts(3000)
    base = synthetic.embedded(texts, args.cache_dir, kind="passage")
    questions = synthetic.query_texts(args.queries)
    # Half the questions name an order number some memories hold exactly.
    questions = [q if i % 2 else f"{q} ORD-2025-{800 + i:04d}" for i, q in enumerate(questions)]
    embedder = get_embedder()
    vectors = embedder.embed_queries(questions)  # also fills the query cache recall() uses
    sizes = [int(size) for size in args.sizes.split(",") if size]
    with connection.cursor() as cursor:
        owners = synthetic.create_customers(cursor, len(sizes), "kw")
        # recall() sets the threshold of ``<%`` on its connection; this script calls the SQL itself
        cursor.execute(
            "SELECT set_config('pg_trgm.word_similarity_threshold', %s, false)",
            [str(settings.MEMORY_RECALL_MIN_TRIGRAM)],
        )
    started = time.perf_counter()
    rows = np.concatenate([np.full(size, owner, dtype=np.int64) for owner, size in zip(owners, sizes, strict=True)])
    synthetic.load_memories(connection, texts, base, rows, sigma=0.01)
    with connection.cursor() as cursor:
        cursor.execute(
            "UPDATE memory_longtermmemory SET content = content || ' (ORD-2025-'"
            " || lpad((800 + id % 50)::text, 4, '0') || ')' WHERE id % 10 = 0"
        )
        cursor.execute("VACUUM (ANALYZE) memory_longtermmemory")
    print(f"loaded {len(rows):,} rows in {time.perf_counter() - started:.1f} s; one customer per size")
    now = timezone.now()
    print("\nkeyword SQL alone (query embedding cached), before vs after; same ranking?")
    for owner, size in zip(owners, sizes, strict=True):
        before, after, same, matched = [], [], 0, []
        for question, vector in zip(questions, vectors, strict=True):
            params = query_params(owner, question, vector, k=5, now=now)
            params["tokens"] = exact_tokens(question)
            timed(BEFORE_SQL, params)  # warm
            old_ids, old_ms = timed(BEFORE_SQL, params)
            new_ids, new_ms = timed_recall_keywords(params)
            before.append(old_ms)
            after.append(new_ms)
            same += old_ids == new_ids
            matched.append(len(new_ids))
        ratio = statistics.median(before) / statistics.median(after)
        print(f"  {size:>7,} memories  before {services.summary(before)}")
        print(f"  {size:>7,} memories  after  {services.summary(after)}  ({ratio:.1f}x)", end="")
        print(f"  same ranking {same}/{len(questions)}, keyword hits mean {statistics.mean(matched):.1f}")
    print("\nrecall() end to end, k=5, query embedding cached, touch=True:")
    for owner, size in zip(owners, sizes, strict=True):
        for ranking in ("dense", "hybrid"):
            samples = []
            for question in questions:
                started = time.perf_counter()
                recall(owner, question, ranking=ranking)
                samples.append((time.perf_counter() - started) * 1000)
            print(f"  {size:>7,} memories  {ranking:<6} {services.summary(samples)}")
    print(services.load_average(), "at the end")


if __name__ == "__main__":
    main()
