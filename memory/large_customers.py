"""Large customers: a vector index of their own, and the counts of the words most of their memories share.

Recall searches one customer's rows exactly, which takes a millisecond or two for the typical
customer and over a hundred for one with 100,000 memories; its keyword half then reads every row
holding a common word such as "order" (docs/recall.md, "Big customers"). When a customer's valid
memories reach ``MEMORY_LARGE_CUSTOMER_MEMORIES``, the beat task ``memory.index_large_customers``
builds a partial HNSW index over exactly that customer's valid rows and counts the lexemes more than
``MEMORY_RECALL_COMMON_TERM_DOCUMENTS`` of them hold (``CommonTerm``). Recall then searches through
the index and matches keywords on the rarer lexemes only, weighing the common ones by their counts.
Below half the threshold the index is dropped again (the half keeps a customer near the line from
building and dropping at every run). Counts are as of the last run: between runs a word that became
common is still matched (slower, not wrong) and the total is a little behind.
"""

from __future__ import annotations

import logging
import threading
import time
from dataclasses import dataclass, field

from django.conf import settings
from django.db import connection, transaction

from agentsite import clock
from memory.locks import Lease
from memory.models import CommonTerm, LargeCustomer, LongTermMemory

logger = logging.getLogger(__name__)

_TABLE = LongTermMemory._meta.db_table
# What the partial index covers: the customer's rows that are not invalidated or archived. Recall's
# condition (``memory.models.VALID_SQL``) implies it, so the planner can use the index for it.
_COVERED = "invalidated_at IS NULL AND archived_at IS NULL"
# The graph's links per node and candidates while building: a customer's memories crowd together (their
# orders read alike), where pgvector's defaults (16, 64) found 0.74–0.93 of the exact top five and these
# 0.967–0.983 at ef_search 400, built in 100 s for 100,000 rows (docs/recall.md, "Big customers").
_LINKS, _BUILD_CANDIDATES = 48, 400
_PREFIX = "ltm_vectors_customer_"


def index_name(customer_id: int) -> str:
    return f"{_PREFIX}{int(customer_id)}"


@dataclass
class Refreshed:
    """What one run of ``refresh`` did."""

    built: list[int] = field(default_factory=list)
    dropped: list[int] = field(default_factory=list)
    counted: list[int] = field(default_factory=list)
    skipped: bool = False


def refresh(*, rebuild: bool = False) -> Refreshed:
    """Build, recount and drop the large customers' indexes; skipped while another process runs it.

    ``rebuild`` drops every large customer's index first, so that all are built as this code builds
    them (after a change of the index's parameters).

    Runs in autocommit (``CREATE INDEX CONCURRENTLY`` cannot run in a transaction) and holds no
    transaction open while an index builds: the customer keeps writing memories meanwhile.
    """
    lease = Lease("memory.large_customers")
    if not lease.try_take():
        return Refreshed(skipped=True)
    try:
        if rebuild:
            for customer_id in LargeCustomer.objects.values_list("customer_id", flat=True):
                _drop(customer_id)
        return _refresh()
    finally:
        lease.give_back()


def _refresh() -> Refreshed:
    threshold = settings.MEMORY_LARGE_CUSTOMER_MEMORIES
    done = Refreshed()
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT customer_id, count(*) FROM {_TABLE} WHERE {_COVERED}"  # noqa: S608 - constant SQL
            " GROUP BY customer_id HAVING count(*) >= %s",
            [max(threshold // 2, 1)],
        )
        counts = dict(cursor.fetchall())
    registered = set(LargeCustomer.objects.values_list("customer_id", flat=True))
    with connection.cursor() as cursor:  # an erased customer's row went with them; their index did not
        cursor.execute(
            "SELECT indexrelid::regclass::text FROM pg_index WHERE indrelid = %s::regclass",
            [_TABLE],
        )
        indexed = {int(name.removeprefix(_PREFIX)) for (name,) in cursor.fetchall() if name.startswith(_PREFIX)}
    keep = {
        customer_id for customer_id, memories in counts.items() if customer_id in registered or memories >= threshold
    }
    for customer_id in sorted((registered | indexed) - keep):
        _drop(customer_id)
        done.dropped.append(customer_id)
    for customer_id in sorted(keep):
        memories = counts[customer_id]
        if customer_id not in registered:
            _build(customer_id)
            done.built.append(customer_id)
        _count_terms(customer_id, memories)
        done.counted.append(customer_id)
    forget()
    return done


def _build(customer_id: int) -> None:
    name = index_name(customer_id)
    started = time.perf_counter()
    with connection.cursor() as cursor:
        cursor.execute("SELECT indisvalid FROM pg_index WHERE indexrelid = to_regclass(%s)", [name])
        row = cursor.fetchone()
        if row is not None and not row[0]:  # a build that died half way leaves an invalid index
            cursor.execute(f"DROP INDEX CONCURRENTLY IF EXISTS {name}")
        # The graph is built in memory while it fits (at PostgreSQL's default 64 MB a 100,000-memory build was
        # still loading rows after five minutes; docs/recall.md); a session setting, so through a pool in
        # transaction mode it may not reach the build's server connection: give the worker a direct one.
        cursor.execute(
            "SELECT set_config('maintenance_work_mem', %s, false)", [settings.MEMORY_LARGE_CUSTOMER_BUILD_MEMORY]
        )
        try:
            cursor.execute(
                f"CREATE INDEX CONCURRENTLY IF NOT EXISTS {name} ON {_TABLE} USING hnsw (embedding vector_cosine_ops)"
                f" WITH (m = {_LINKS}, ef_construction = {_BUILD_CANDIDATES})"
                f" WHERE customer_id = {int(customer_id)} AND {_COVERED}"
            )
        finally:
            cursor.execute("RESET maintenance_work_mem")
    logger.info("built %s in %.1f s", name, time.perf_counter() - started)


def _drop(customer_id: int) -> None:
    LargeCustomer.objects.filter(customer_id=customer_id).delete()  # recall stops using it first
    CommonTerm.objects.filter(customer_id=customer_id).delete()
    with connection.cursor() as cursor:
        cursor.execute(f"DROP INDEX CONCURRENTLY IF EXISTS {index_name(customer_id)}")


def _count_terms(customer_id: int, memories: int) -> None:
    now = clock.now()
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(f"DELETE FROM {CommonTerm._meta.db_table} WHERE customer_id = %s", [customer_id])  # noqa: S608
        cursor.execute(
            f"INSERT INTO {CommonTerm._meta.db_table} (customer_id, term, documents)"  # noqa: S608 - constant SQL
            f" SELECT %(customer)s, term, count(*) FROM {_TABLE}, unnest(search_terms) AS term"
            f" WHERE customer_id = %(customer)s AND {_COVERED} GROUP BY term HAVING count(*) > %(common)s",
            {"customer": customer_id, "common": settings.MEMORY_RECALL_COMMON_TERM_DOCUMENTS},
        )
        LargeCustomer.objects.update_or_create(
            customer_id=customer_id,
            defaults={"memories": memories, "index_name": index_name(customer_id), "counted_at": now},
            create_defaults={
                "memories": memories,
                "index_name": index_name(customer_id),
                "counted_at": now,
                "indexed_at": now,
            },
        )


# Which customers are large, as this process last read it: recall asks on every search, and the table
# changes at most once a run of the beat task.
_known: dict[int, int] = {}
_known_at = float("-inf")
_known_lock = threading.Lock()


def memories_of(customer_id: int) -> int | None:
    """The valid memories counted for a large customer, or ``None`` if the customer is not large."""
    global _known, _known_at
    if time.monotonic() - _known_at > settings.MEMORY_LARGE_CUSTOMER_CACHE_SECONDS:
        with _known_lock:
            if time.monotonic() - _known_at > settings.MEMORY_LARGE_CUSTOMER_CACHE_SECONDS:
                _known = dict(LargeCustomer.objects.values_list("customer_id", "memories"))
                _known_at = time.monotonic()
    return _known.get(customer_id)


def forget() -> None:
    """Read the large customers again at the next search (after a refresh, and in tests)."""
    global _known_at
    with _known_lock:
        _known_at = float("-inf")
