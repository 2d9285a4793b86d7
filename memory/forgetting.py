"""The forgetting policy: decay, archive and delete long-term memories (PostgreSQL) and expire old transcripts of
short-term memory's durable copy, so that nothing is kept longer than its use. It runs daily from Celery beat
or ``manage.py forget``, in bounded batches, idempotent and resumable, with a dry run that changes nothing.
See docs/recall.md ("Forgetting").
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from django.conf import settings
from django.db import connection, transaction

from agentsite import clock
from memory.locks import try_advisory_lock
from memory.longterm import REDACTED
from memory.models import Conversation, ForgettingRun, LongTermMemory

if TYPE_CHECKING:
    from django.db.backends.utils import CursorWrapper

TABLE = LongTermMemory._meta.db_table
IDLE = "(%(now)s - COALESCE(last_accessed_at, created_at))"
PERIODS = f"floor(extract(epoch FROM {IDLE}) / (%(period_days)s * 86400.0))::int"

DECAYED = f"confidence * power(%(factor)s, greatest({PERIODS} - decay_steps, 0))"
DECAYS = f"({PERIODS} > decay_steps)"
ARCHIVES = (
    f"(archived_at IS NULL AND {IDLE} >= make_interval(days => %(archive_days)s) AND {DECAYED} < %(archive_below)s)"
)
DELETES = f"({IDLE} >= make_interval(days => %(delete_days)s) AND {DECAYED} < %(delete_below)s)"
# One pass over an id range finds every row the policy changes and what happens to it: decay first,
# then archive or delete judged on the decayed confidence. Rows it leaves alone are read, not written.
SCAN_SQL = f"""
    SELECT id, customer_id, version, greatest({PERIODS}, decay_steps), {DECAYED}, {DECAYS}, {ARCHIVES}, {DELETES}
    FROM {TABLE}
    WHERE id >= %(lo)s AND id < %(hi)s AND ({DECAYS} OR {ARCHIVES} OR {DELETES})
"""  # noqa: S608 - constant SQL, values are parameters
APPLY_SQL = f"""
    UPDATE {TABLE} AS m
    SET confidence = d.confidence, decay_steps = d.steps,
        archived_at = CASE WHEN d.archive THEN %(now)s ELSE m.archived_at END
    FROM unnest(%(ids)s::bigint[], %(confidences)s::float8[], %(steps)s::int[], %(archive)s::bool[])
         AS d(id, confidence, steps, archive)
    WHERE m.id = d.id
"""  # noqa: S608


@dataclass
class Counts:
    """What one forgetting run did (or, dry, would do)."""

    decayed: int = 0
    archived: int = 0
    deleted: int = 0
    transcripts_deleted: int = 0


def _params(now: datetime) -> dict[str, datetime | float]:
    return {
        "now": now,
        "factor": settings.MEMORY_DECAY_FACTOR,
        "period_days": settings.MEMORY_DECAY_PERIOD_DAYS,
        "archive_days": settings.MEMORY_ARCHIVE_AFTER_DAYS,
        "archive_below": settings.MEMORY_ARCHIVE_BELOW,
        "delete_days": settings.MEMORY_DELETE_AFTER_DAYS,
        "delete_below": settings.MEMORY_DELETE_BELOW,
    }


def _id_ranges(batch: int) -> Iterator[tuple[int, int]]:
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT min(id), max(id) FROM {TABLE}")  # noqa: S608
        low, high = cursor.fetchone()
    if low is None:
        return
    for start in range(low, high + 1, batch):
        yield start, start + batch


def run(now: datetime | None = None, *, dry_run: bool = False, batch: int | None = None) -> Counts:
    """Apply the policy as of ``now``; with ``dry_run`` only count what would change."""
    now = now or clock.now()
    batch = batch or settings.MEMORY_FORGETTING_BATCH
    counts = Counts()
    base = _params(now)
    for lo, hi in _id_ranges(batch):
        with transaction.atomic(), connection.cursor() as cursor:
            cursor.execute(SCAN_SQL + ("" if dry_run else " FOR UPDATE"), {**base, "lo": lo, "hi": hi})
            rows = cursor.fetchall()
            counts.decayed += sum(1 for row in rows if row[5])
            counts.archived += sum(1 for row in rows if row[6])
            doomed = [row for row in rows if row[7]]
            if dry_run or not rows:
                counts.deleted += len(doomed)
                continue
            kept = [row for row in rows if not row[7]]
            cursor.execute(
                APPLY_SQL,
                {
                    "now": now,
                    "ids": [row[0] for row in kept],
                    "confidences": [row[4] for row in kept],
                    "steps": [row[3] for row in kept],
                    "archive": [row[6] for row in kept],
                },
            )
            counts.deleted += _delete(cursor, [(row[0], row[1], row[2]) for row in doomed], now)
    counts.transcripts_deleted = _expire_transcripts(now, dry_run=dry_run)
    return counts


def _delete(cursor: CursorWrapper, doomed: list[tuple[int, int, int]], now: datetime) -> int:
    """Delete the memories ``doomed`` (id, customer, version; locked), leaving only content-free traces."""
    if not doomed:
        return 0
    ids = [row[0] for row in doomed]
    redacted = json.dumps(REDACTED)
    cursor.execute(
        "UPDATE memory_memoryevent SET old = %s, new = %s WHERE memory_id = ANY(%s)", [redacted, redacted, ids]
    )
    cursor.execute(
        "UPDATE memory_memoryconflict SET incoming_value = '', incoming_content = '[redacted]'"
        " WHERE existing_id = ANY(%s) OR incoming_id = ANY(%s)",
        [ids, ids],
    )
    cursor.execute(
        "INSERT INTO memory_memoryevent (memory_id, customer_id, action, actor, old, new, version, created_at)"
        " SELECT d.id, d.customer_id, 'deleted', 'forgetting', '{}'::jsonb, %s::jsonb, d.version, %s"
        " FROM unnest(%s::bigint[], %s::bigint[], %s::int[]) AS d(id, customer_id, version)",
        [
            json.dumps({"reason": "forgetting policy"}),
            now,
            ids,
            [r[1] for r in doomed],
            [r[2] for r in doomed],
        ],
    )
    cursor.execute(f"UPDATE {TABLE} SET superseded_by_id = NULL WHERE superseded_by_id = ANY(%s)", [ids])  # noqa: S608
    cursor.execute("UPDATE memory_memoryconflict SET incoming_id = NULL WHERE incoming_id = ANY(%s)", [ids])
    cursor.execute("UPDATE memory_memoryconflict SET existing_id = NULL WHERE existing_id = ANY(%s)", [ids])
    cursor.execute(f"DELETE FROM {TABLE} WHERE id = ANY(%s)", [ids])  # noqa: S608
    deleted: int = cursor.rowcount
    return deleted


def _expire_transcripts(now: datetime, *, dry_run: bool) -> int:
    cutoff = now - timedelta(days=settings.MEMORY_TRANSCRIPT_RETENTION_DAYS)
    old = Conversation.objects.filter(updated_at__lt=cutoff)
    if dry_run:
        return old.count()
    total = 0
    while ids := list(old.values_list("pk", flat=True)[:1000]):
        Conversation.objects.filter(pk__in=ids).delete()
        total += len(ids)
    return total


_DAY_LOCK_NAMESPACE = 0x464F52  # "FOR": pg_try_advisory_lock(namespace, day number)


def run_daily(now: datetime | None = None) -> Counts | None:
    """Run once for the day of ``now``; ``None`` if the day's run is done or running in another process.

    The process running the day holds its advisory lock, and ``ForgettingRun`` records the day once it
    is finished. A run killed half-way (a worker's child SIGKILLed, a server restarted) leaves the day
    unfinished and its lock released with the dead connection, so the next attempt that day —
    Celery's redelivery of the task, another beat — runs it again; the policy is idempotent, so the
    resumed run ends where an uninterrupted one would have.
    """
    now = now or clock.now()
    with try_advisory_lock(_DAY_LOCK_NAMESPACE, now.date().toordinal()) as held:
        if not held:
            return None
        claim, _ = ForgettingRun.objects.get_or_create(day=now.date(), defaults={"started_at": now})
        if claim.finished_at is not None:
            return None
        counts = run(now)
        claim.finished_at = clock.now()
        claim.counts = asdict(counts)
        claim.save(update_fields=["finished_at", "counts"])
    return counts
