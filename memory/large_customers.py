"""Large customers: partial indexes of their own and counts of the words most of their memories share
(``CommonTerm``), so recall over one customer with very many long-term memories stays fast. Both live in
PostgreSQL beside the long-term store, built and dropped by a beat task as a customer crosses the size
threshold, and counted as of its last run. See docs/recall.md ("Big customers").
"""

from __future__ import annotations

import logging
import math
import re
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
# What the partial indexes cover: the customer's rows that are not invalidated or archived. Recall's
# condition (``memory.models.VALID_SQL``) implies it, so the planner can use them for it.
_COVERED = "invalidated_at IS NULL AND archived_at IS NULL"
# Each large customer's indexes by kind: the vectors (IVFFlat), and the keyword search's lexemes and
# trigrams, whose table-wide GIN indexes hold a lexeme rare for this customer in thousands of others' rows.
# Lists: the square root of the memories when the index is built (a 100,000-memory customer gets 316 lists
# of ~316). Recall probes a fixed number of them (``MEMORY_RECALL_IVFFLAT_PROBES``), so the rows a search
# reads grow with the root of the customer's size (docs/recall.md, "Big customers").
_METHODS = {
    "vectors": "ivfflat (embedding vector_cosine_ops) WITH (lists = {lists:d})",
    "terms": "gin (search_terms)",
    "trigrams": "gin (content gin_trgm_ops)",
}
# The vector index is built again when the lists it has and the lists the customer's size calls for differ
# by this factor (GIN indexes grow with their rows).
_REBUILD_FACTOR = 1.5
_NEXT = "_next"  # the name a replacement is built under, before the swap
_NAME = re.compile(rf"ltm_({'|'.join(_METHODS)})_customer_(\d+)({_NEXT})?")


def index_name(customer_id: int, kind: str = "vectors") -> str:
    return f"ltm_{kind}_customer_{int(customer_id)}"


def lists_for(memories: int) -> int:
    """The IVFFlat lists a vector index over ``memories`` rows is built with."""
    return max(1, round(math.sqrt(memories)))


@dataclass(frozen=True)
class _Index:
    """One of a large customer's indexes as the catalogue has it."""

    method: str
    lists: int
    valid: bool

    def fits(self, kind: str, memories: int) -> bool:
        if kind != "vectors":
            return self.valid
        wanted = lists_for(memories)
        return (
            self.valid
            and self.method == "ivfflat"
            and max(wanted, self.lists) < _REBUILD_FACTOR * min(wanted, self.lists)
        )


@dataclass
class Refreshed:
    """What one run of ``refresh`` did."""

    built: list[int] = field(default_factory=list)
    dropped: list[int] = field(default_factory=list)
    counted: list[int] = field(default_factory=list)
    skipped: bool = False


def refresh(*, rebuild: bool = False) -> Refreshed:
    """Build, recount and drop the large customers' indexes; skipped while another process runs it.

    ``rebuild`` drops every large customer's indexes first, so that all are built again from scratch.

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
    indexed = _indexes()  # an erased customer's registration went with them; their index did not
    keep = {
        customer_id for customer_id, memories in counts.items() if customer_id in registered or memories >= threshold
    }
    for customer_id in sorted((registered | set(indexed)) - keep):
        _drop(customer_id)
        done.dropped.append(customer_id)
    for customer_id in sorted(keep):
        memories = counts[customer_id]
        built = False
        for kind in _METHODS:
            index = indexed.get(customer_id, {}).get(kind)
            if index is None or not index.fits(kind, memories):
                _build(customer_id, kind, lists_for(memories), replacing=index is not None and index.valid)
                built = True
        if built:
            done.built.append(customer_id)
        _count_terms(customer_id, memories, built=built)
        done.counted.append(customer_id)
    forget()
    return done


def _indexes() -> dict[int, dict[str, _Index]]:
    """The customers' indexes by customer and kind; a replacement left by a run that died is dropped."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT c.relname, am.amname, c.reloptions, i.indisvalid FROM pg_index i"
            " JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_am am ON am.oid = c.relam"
            " WHERE i.indrelid = %s::regclass",
            [_TABLE],
        )
        rows = cursor.fetchall()
        found: dict[int, dict[str, _Index]] = {}
        for name, method, options, valid in rows:
            match = _NAME.fullmatch(name)
            if match is None:
                continue
            if match[3]:
                cursor.execute(f"DROP INDEX CONCURRENTLY IF EXISTS {name}")
                continue
            lists = next((int(o.removeprefix("lists=")) for o in options or [] if o.startswith("lists=")), 0)
            found.setdefault(int(match[2]), {})[match[1]] = _Index(method, lists, valid)
    return found


def _build(customer_id: int, kind: str, lists: int, *, replacing: bool) -> None:
    """Build one of the customer's indexes; a valid one it is ``replacing`` keeps serving until the swap."""
    name = index_name(customer_id, kind)
    target = name + _NEXT if replacing else name
    started = time.perf_counter()
    with connection.cursor() as cursor:
        if not replacing:  # a build that died half way leaves an invalid index under the name
            cursor.execute(f"DROP INDEX CONCURRENTLY IF EXISTS {name}")
        # Rows are sorted into lists and posting trees in memory while they fit; a session setting, so through a
        # pool in transaction mode it may not reach the build's server connection: give the worker a direct one.
        cursor.execute(
            "SELECT set_config('maintenance_work_mem', %s, false)", [settings.MEMORY_LARGE_CUSTOMER_BUILD_MEMORY]
        )
        try:
            cursor.execute(
                f"CREATE INDEX CONCURRENTLY {target} ON {_TABLE} USING {_METHODS[kind].format(lists=lists)}"
                f" WHERE customer_id = {int(customer_id)} AND {_COVERED}"
            )
        finally:
            cursor.execute("RESET maintenance_work_mem")
        if replacing:
            cursor.execute(f"DROP INDEX CONCURRENTLY {name}")
            cursor.execute(f"ALTER INDEX {target} RENAME TO {name}")
    logger.info("built %s in %.1f s", name, time.perf_counter() - started)


def _drop(customer_id: int) -> None:
    LargeCustomer.objects.filter(customer_id=customer_id).delete()  # recall stops using them first
    CommonTerm.objects.filter(customer_id=customer_id).delete()
    with connection.cursor() as cursor:
        for kind in _METHODS:
            cursor.execute(f"DROP INDEX CONCURRENTLY IF EXISTS {index_name(customer_id, kind)}")


def _count_terms(customer_id: int, memories: int, *, built: bool) -> None:
    now = clock.now()
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(f"DELETE FROM {CommonTerm._meta.db_table} WHERE customer_id = %s", [customer_id])  # noqa: S608
        cursor.execute(
            f"INSERT INTO {CommonTerm._meta.db_table} (customer_id, term, documents)"  # noqa: S608 - constant SQL
            f" SELECT %(customer)s, term, count(*) FROM {_TABLE}, unnest(search_terms) AS term"
            f" WHERE customer_id = %(customer)s AND {_COVERED} GROUP BY term HAVING count(*) > %(common)s",
            {"customer": customer_id, "common": settings.MEMORY_RECALL_COMMON_TERM_DOCUMENTS},
        )
        counted = {"memories": memories, "index_name": index_name(customer_id), "counted_at": now}
        LargeCustomer.objects.update_or_create(
            customer_id=customer_id,
            defaults={**counted, "indexed_at": now} if built else counted,
            create_defaults={**counted, "indexed_at": now},
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
