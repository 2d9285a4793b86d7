"""The forgetting policy: decay, archive and delete long-term memories; expire old transcripts.

Applies to long-term memory (PostgreSQL) and to short-term memory's durable copy. Runs daily from
Celery beat (``memory.run_forgetting``) or ``manage.py forget``. All of it is set-based SQL in
bounded id ranges — no per-row Python — and idempotent:

- decay: confidence x ``MEMORY_DECAY_FACTOR`` once for every full ``MEMORY_DECAY_PERIOD_DAYS``
  without access, counted from the last access or, if never accessed, from creation (REVIEW
  item 13). ``decay_steps`` records the periods already applied, so a rerun the same day, or a
  second beat, changes nothing more; recall resets it, so idleness restarts at each access;
- archive: idle for ``MEMORY_ARCHIVE_AFTER_DAYS`` and confidence below ``MEMORY_ARCHIVE_BELOW``;
- delete: idle for ``MEMORY_DELETE_AFTER_DAYS`` and confidence below ``MEMORY_DELETE_BELOW``, with
  the content redacted from the memory's events and conflicts and a content-free ``deleted`` event;
- transcripts: conversations untouched for ``MEMORY_TRANSCRIPT_RETENTION_DAYS`` are deleted with
  their messages, so the durable copy does not defeat forgetting.

``run_daily`` claims the day in ``ForgettingRun`` first: two beat processes make one effective run.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from datetime import datetime, timedelta

from django.conf import settings
from django.db import IntegrityError, connection, transaction

from agentsite import clock
from memory.longterm import REDACTED
from memory.models import Conversation, ForgettingRun, LongTermMemory

TABLE = LongTermMemory._meta.db_table
IDLE = "(%(now)s - COALESCE(last_accessed_at, created_at))"
PERIODS = f"floor(extract(epoch FROM {IDLE}) / (%(period_days)s * 86400.0))::int"

DECAY_SQL = f"""
    UPDATE {TABLE}
    SET confidence = confidence * power(%(factor)s, {PERIODS} - decay_steps), decay_steps = {PERIODS}
    WHERE id >= %(lo)s AND id < %(hi)s AND {PERIODS} > decay_steps
"""  # noqa: S608 - constant SQL, values are parameters
ARCHIVE_WHERE = f"""
    id >= %(lo)s AND id < %(hi)s AND archived_at IS NULL
    AND {IDLE} >= make_interval(days => %(archive_days)s) AND confidence < %(archive_below)s
"""
DELETE_WHERE = f"""
    id >= %(lo)s AND id < %(hi)s
    AND {IDLE} >= make_interval(days => %(delete_days)s) AND confidence < %(delete_below)s
"""
DECAY_COUNT_SQL = f"SELECT count(*) FROM {TABLE} WHERE id >= %(lo)s AND id < %(hi)s AND {PERIODS} > decay_steps"  # noqa: S608


@dataclass
class Counts:
    """What one forgetting run did (or, dry, would do)."""

    decayed: int = 0
    archived: int = 0
    deleted: int = 0
    transcripts_deleted: int = 0


def _params(now: datetime) -> dict:
    return {
        "now": now,
        "factor": settings.MEMORY_DECAY_FACTOR,
        "period_days": settings.MEMORY_DECAY_PERIOD_DAYS,
        "archive_days": settings.MEMORY_ARCHIVE_AFTER_DAYS,
        "archive_below": settings.MEMORY_ARCHIVE_BELOW,
        "delete_days": settings.MEMORY_DELETE_AFTER_DAYS,
        "delete_below": settings.MEMORY_DELETE_BELOW,
    }


def _id_ranges(batch: int):
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
        params = {**base, "lo": lo, "hi": hi}
        with transaction.atomic(), connection.cursor() as cursor:
            if dry_run:
                # Counted as if applied in order: decay first, then archive/delete on decayed values.
                cursor.execute(DECAY_COUNT_SQL, params)
                counts.decayed += cursor.fetchone()[0]
                decayed = f"confidence * power(%(factor)s, greatest({PERIODS} - decay_steps, 0))"
                for field, where in (("archived", ARCHIVE_WHERE), ("deleted", DELETE_WHERE)):
                    cursor.execute(
                        f"SELECT count(*) FROM {TABLE} WHERE " + where.replace("confidence <", f"{decayed} <"), params
                    )  # noqa: S608
                    setattr(counts, field, getattr(counts, field) + cursor.fetchone()[0])
                continue
            cursor.execute(DECAY_SQL, params)
            counts.decayed += cursor.rowcount
            cursor.execute(f"UPDATE {TABLE} SET archived_at = %(now)s WHERE {ARCHIVE_WHERE}", params)  # noqa: S608
            counts.archived += cursor.rowcount
            counts.deleted += _delete(cursor, params)
    counts.transcripts_deleted = _expire_transcripts(now, dry_run=dry_run)
    return counts


def _delete(cursor, params: dict) -> int:
    """Delete the batch's forgettable memories, leaving only content-free traces."""
    cursor.execute(f"SELECT id, customer_id, version FROM {TABLE} WHERE {DELETE_WHERE} FOR UPDATE", params)  # noqa: S608
    doomed = cursor.fetchall()
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
            params["now"],
            ids,
            [r[1] for r in doomed],
            [r[2] for r in doomed],
        ],
    )
    cursor.execute(f"UPDATE {TABLE} SET superseded_by_id = NULL WHERE superseded_by_id = ANY(%s)", [ids])  # noqa: S608
    cursor.execute("UPDATE memory_memoryconflict SET incoming_id = NULL WHERE incoming_id = ANY(%s)", [ids])
    cursor.execute("UPDATE memory_memoryconflict SET existing_id = NULL WHERE existing_id = ANY(%s)", [ids])
    cursor.execute(f"DELETE FROM {TABLE} WHERE id = ANY(%s)", [ids])  # noqa: S608
    return cursor.rowcount


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


def run_daily(now: datetime | None = None) -> Counts | None:
    """Run once for the day of ``now``; return ``None`` if another process already claimed the day."""
    now = now or clock.now()
    try:
        with transaction.atomic():
            claim = ForgettingRun.objects.create(day=now.date(), started_at=now)
    except IntegrityError:
        return None
    counts = run(now)
    claim.finished_at = clock.now()
    claim.counts = asdict(counts)
    claim.save(update_fields=["finished_at", "counts"])
    return counts
