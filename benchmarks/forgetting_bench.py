"""Benchmark the forgetting policy over a million memories, and recall's access bookkeeping.
Also times recall's access bookkeeping with and without an HNSW index, at two fillfactors. How to run it and
what it measures: docs/bench.md ("The scripts").
"""

from __future__ import annotations

import argparse
import contextlib
import io
import random
import sys
import time
from collections import defaultdict
from datetime import UTC, datetime, timedelta
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks import services  # noqa: E402 - needs the path above

DATABASE = "forgetting_bench"
NOW = datetime(2026, 6, 1, 3, 0, tzinfo=UTC)
SPAN_SECONDS = 400 * 86400
# Deterministic per-row "random" numbers from the row number, so each column of a row agrees.
AGE = f"make_interval(secs => (s.n * 7919) % {SPAN_SECONDS})"
ACCESSED = "(s.n % 10) < 6"
ACCESS_SHARE = "(((s.n * 104729) % 1000) / 1000.0)"


def phase_of(sql: str) -> str:
    """Which phase of ``forgetting.run`` a statement belongs to."""
    text = " ".join(sql.split()).lower()
    if "memory_conversation" in text or "memory_conversationmessage" in text or "memory_compression" in text:
        return "transcripts"
    if "min(id), max(id)" in text:
        return "id ranges"
    if text.startswith("select") and "> decay_steps" in text:
        return "scan"  # one pass per id range: what decays, is archived, is deleted
    if "set confidence" in text:
        return "decay and archive"  # the rows the scan found, by id
    return "delete"


class PhaseTimer:
    """An ``execute_wrapper`` adding each statement's time to its phase."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = defaultdict(float)
        self.statements: dict[str, int] = defaultdict(int)

    def __call__(self, execute, sql, params, many, context):
        started = time.perf_counter()
        try:
            return execute(sql, params, many, context)
        finally:
            phase = phase_of(sql)
            self.seconds[phase] += time.perf_counter() - started
            self.statements[phase] += 1

    def line(self) -> str:
        return ", ".join(
            f"{phase} {self.seconds[phase]:.2f} s ({self.statements[phase]} statements)"
            for phase in ("id ranges", "scan", "decay and archive", "delete", "transcripts")
            if phase in self.seconds
        )


def timed_run(label: str, now: datetime, *, dry_run: bool = False) -> None:
    from django.db import connection

    from memory import forgetting

    timer = PhaseTimer()
    started = time.perf_counter()
    with connection.execute_wrapper(timer):
        counts = forgetting.run(now, dry_run=dry_run)
    total = time.perf_counter() - started
    print(f"\n{label}: now = {now:%Y-%m-%d %H:%M}, {total:.2f} s in all")
    print(
        f"  counts: decayed {counts.decayed:,}, archived {counts.archived:,}, deleted {counts.deleted:,}, "
        f"transcripts deleted {counts.transcripts_deleted:,}"
    )
    print(f"  phases: {timer.line()}")


def schedule(base: np.ndarray, start: datetime) -> None:
    """Store one memory per confidence, never access it, and run the real policy once a day for 400 days."""
    from django.contrib.auth import get_user_model
    from django.db import transaction

    from memory import forgetting
    from memory.longterm import Candidate, insert
    from memory.models import LongTermMemory, MemoryEvent

    customer = get_user_model().objects.create_user(username="schedule")
    levels = [0.5, 0.6, 0.7, 0.8, 0.9, 1.0]
    ids = {}
    with transaction.atomic():
        for number, level in enumerate(levels):
            candidate = Candidate(type="fact", content=f"stored at {level}", confidence=level)
            ids[insert(customer.pk, candidate, base[number], actor="bench", now=start).pk] = level
    archived: dict[float, int] = {}
    deleted: dict[float, int] = {}
    for day in range(1, 401):
        forgetting.run(start + timedelta(days=day))
        present = dict(LongTermMemory.objects.filter(pk__in=ids).values_list("pk", "archived_at"))
        for pk, level in ids.items():
            if pk not in present:
                deleted.setdefault(level, day)
            elif present[pk] is not None:
                archived.setdefault(level, day)
    MemoryEvent.objects.filter(customer=customer).delete()
    customer.delete()
    print("\nschedule of a memory never accessed, by stored confidence (the real policy run daily for 400 days):")
    print("  confidence  " + "  ".join(f"{level:>5}" for level in levels))
    print("  archived on " + "  ".join(f"{archived.get(level, '-'):>5}" for level in levels))
    print("  deleted on  " + "  ".join(f"{deleted.get(level, '-'):>5}" for level in levels))


def table_state() -> str:
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*), count(*) FILTER (WHERE archived_at IS NOT NULL),"
            " count(*) FILTER (WHERE decay_steps > 0), count(DISTINCT customer_id),"
            " pg_size_pretty(pg_total_relation_size('memory_longtermmemory')) FROM memory_longtermmemory"
        )
        rows, archived, decayed, customers, size = cursor.fetchone()
        cursor.execute("SELECT count(*), count(*) FILTER (WHERE action = 'deleted') FROM memory_memoryevent")
        events, deleted = cursor.fetchone()
    return (
        f"table: {rows:,} memories of {customers:,} customers ({size}), {archived:,} archived, {decayed:,} with"
        f" decay steps; {events:,} events ({deleted:,} 'deleted')"
    )


def hot_stats(table: str) -> tuple[int, int]:
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_stat_force_next_flush()")
        cursor.execute("SELECT n_tup_upd, n_tup_hot_upd FROM pg_stat_user_tables WHERE relname = %s", [table])
        return cursor.fetchone()


def per_recall_updates(table: str, owners: dict[int, list[int]], repeat: int, *, as_recall: bool = False) -> str:
    """Time the UPDATE recall makes for its k = 5 returned rows, ``repeat`` times over random customers."""
    from django.db import connection

    from memory.recall import _TOUCH_CHOSEN as recall_sql

    rng = random.Random(5)
    customers = list(owners)
    before = hot_stats(table)
    samples = []
    for _ in range(repeat):
        customer = rng.choice(customers)
        ids = rng.sample(owners[customer], 5)
        started = time.perf_counter()
        if as_recall:  # exactly recall's statement: the rows, their dispute flags and the access update
            with connection.cursor() as cursor:
                cursor.execute(recall_sql, {"customer": customer, "ids": ids, "now": NOW, "open": "open"})
        else:
            with connection.cursor() as cursor:
                cursor.execute(
                    f"UPDATE {table} SET access_count = access_count + 1, last_accessed_at = %s, decay_steps = 0"  # noqa: S608
                    " WHERE customer_id = %s AND id = ANY(%s)",
                    [NOW, customer, ids],
                )
        samples.append((time.perf_counter() - started) * 1000)
    after = hot_stats(table)
    updated, hot = after[0] - before[0], after[1] - before[1]
    return f"{services.summary(samples)}  rows updated {updated:,}, HOT {hot / max(updated, 1):.0%}"


def owners_of(table: str) -> dict[int, list[int]]:
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute(f"SELECT customer_id, array_agg(id) FROM {table} GROUP BY customer_id HAVING count(*) >= 5")  # noqa: S608
        return dict(cursor.fetchall())


class Tee(io.TextIOBase):
    """Print as usual and keep a copy (the figures are lines of text; --json keeps them)."""

    def __init__(self, stream) -> None:
        self.stream = stream
        self.parts: list[str] = []

    def write(self, text: str) -> int:
        self.parts.append(text)
        return self.stream.write(text)

    def flush(self) -> None:
        self.stream.flush()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datadir", type=Path, default=services.DEFAULT_DATADIR)
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--customers", type=int, default=10_000)
    parser.add_argument("--copy-rows", type=int, default=100_000, help="rows of the two HNSW copies")
    parser.add_argument("--repeat", type=int, default=2000, help="per-recall updates timed on each table")
    parser.add_argument("--maintenance-work-mem", default="2GB")
    parser.add_argument("--keep", action="store_true", help="keep the database (the servers stop anyway)")
    parser.add_argument("--json", type=Path, help="also write the printed figures here (reports/forgetting-bench.json)")
    args = parser.parse_args()

    def measured() -> dict:  # the figures are the printed lines
        with contextlib.redirect_stdout(Tee(sys.stdout)) as tee:
            run(args)
        return {"output": [line for line in "".join(tee.parts).splitlines() if line.strip()]}

    services.run_benchmark(args, DATABASE, measured)


def run(args: argparse.Namespace) -> None:
    from django.conf import settings
    from django.db import connection

    from benchmarks import synthetic

    print(services.machine())
    print(services.load_average(), "at the start")
    print(
        f"policy: x{settings.MEMORY_DECAY_FACTOR} per {settings.MEMORY_DECAY_PERIOD_DAYS} idle days; archive after "
        f"{settings.MEMORY_ARCHIVE_AFTER_DAYS} days below {settings.MEMORY_ARCHIVE_BELOW}; delete after "
        f"{settings.MEMORY_DELETE_AFTER_DAYS} days below {settings.MEMORY_DELETE_BELOW}; batches of "
        f"{settings.MEMORY_FORGETTING_BATCH:,} ids"
    )
    texts = synthetic.memory_texts(3000)
    base = synthetic.embedded(texts, args.datadir, kind="passage")
    started = time.perf_counter()
    schedule(base, NOW - timedelta(days=500))
    print(f"  ({time.perf_counter() - started:.1f} s)")
    with connection.cursor() as cursor:
        customers = synthetic.create_customers(cursor, args.customers, "forget")
    owners = np.resize(np.array(customers, dtype=np.int64), args.rows)
    day0 = NOW - timedelta(days=1)
    created = f"(TIMESTAMPTZ '{day0.isoformat()}' - {AGE})"
    started = time.perf_counter()
    synthetic.load_memories(
        connection,
        texts,
        base,
        owners,
        sigma=0.01,
        columns={
            "created_at": created,
            "updated_at": created,
            "valid_from": created,
            "last_accessed_at": f"CASE WHEN {ACCESSED} THEN {created} + (TIMESTAMPTZ '{day0.isoformat()}' - {created})"
            f" * {ACCESS_SHARE} END",
            "access_count": f"CASE WHEN {ACCESSED} THEN 1 + s.n % 7 ELSE 0 END",
            "confidence": "0.7 + ((s.n * 31) % 301) / 1000.0",
        },
    )
    with connection.cursor() as cursor:
        cursor.execute(
            "INSERT INTO memory_memoryevent (memory_id, customer_id, action, actor, old, new, version, created_at)"
            " SELECT id, customer_id, 'created', 'consolidation', '{}'::jsonb,"
            " jsonb_build_object('content', content, 'confidence', confidence), 1, created_at"
            " FROM memory_longtermmemory"
        )
        cursor.execute("VACUUM (ANALYZE) memory_longtermmemory")
        cursor.execute("VACUUM (ANALYZE) memory_memoryevent")
    print(f"loaded in {time.perf_counter() - started:.1f} s")
    print(table_state())

    timed_run("dry run (manage.py forget --dry-run)", day0, dry_run=True)
    timed_run("first run (catch-up: no step applied yet)", day0)
    print(table_state())
    timed_run("next day's run (steady state)", NOW)
    print(table_state())
    timed_run("rerun of the same day", NOW)

    print(f"\naccess bookkeeping per recall (UPDATE of 5 returned rows of one customer), {args.repeat} recalls:")
    owners_main = owners_of("memory_longtermmemory")
    figures = per_recall_updates("memory_longtermmemory", owners_main, args.repeat, as_recall=True)
    print(
        f"  app table, fillfactor 70, no vector index, {sum(map(len, owners_main.values())):,} rows (recall's "
        f"statement, with the rows and their dispute flags): {figures}"
    )

    with connection.cursor() as cursor:
        cursor.execute(f"SET maintenance_work_mem = '{args.maintenance_work_mem}'")
        for fillfactor in (70, 100):
            table = f"bench_ff{fillfactor}"
            cursor.execute(f"DROP TABLE IF EXISTS {table}")
            cursor.execute(
                f"CREATE TABLE {table} (LIKE memory_longtermmemory INCLUDING DEFAULTS INCLUDING INDEXES)"
                f" WITH (fillfactor = {fillfactor}, autovacuum_enabled = false)"
            )
            cursor.execute(
                f"INSERT INTO {table} SELECT * FROM memory_longtermmemory ORDER BY id LIMIT %s",  # noqa: S608
                [args.copy_rows],
            )
            started = time.perf_counter()
            cursor.execute(f"CREATE INDEX {table}_hnsw ON {table} USING hnsw (embedding vector_cosine_ops)")
            built = time.perf_counter() - started
            cursor.execute(f"VACUUM (ANALYZE) {table}")
            cursor.execute(f"SELECT count(*), pg_size_pretty(pg_relation_size('{table}')) FROM {table}")  # noqa: S608
            rows, size = cursor.fetchone()
            print(f"  copy at fillfactor {fillfactor}: {rows:,} rows, heap {size}, HNSW built in {built:.1f} s")
        cursor.execute("RESET maintenance_work_mem")
    for fillfactor in (70, 100):
        table = f"bench_ff{fillfactor}"
        figures = per_recall_updates(table, owners_of(table), args.repeat)
        print(f"  copy, fillfactor {fillfactor:>3}, HNSW index: {figures}")
    for fillfactor in (70, 100):
        table = f"bench_ff{fillfactor}"
        with connection.cursor() as cursor:
            cursor.execute(f"VACUUM {table}")
            before = hot_stats(table)
            started = time.perf_counter()
            cursor.execute(
                f"UPDATE {table} SET access_count = access_count + 1, last_accessed_at = %s"  # noqa: S608
                " WHERE id %% 4 = 0",
                [NOW],
            )
            elapsed, updated = time.perf_counter() - started, cursor.rowcount
            after = hot_stats(table)
            hot = (after[1] - before[1]) / max(after[0] - before[0], 1)
            print(
                f"  bulk, fillfactor {fillfactor:>3}, HNSW index: {updated:,} of {args.copy_rows:,} rows in one"
                f" UPDATE {elapsed:.2f} s, HOT {hot:.0%}"
            )
    with connection.cursor() as cursor:
        cursor.execute("DROP TABLE bench_ff70, bench_ff100")
    print(services.load_average(), "at the end")


if __name__ == "__main__":
    main()
