"""The long-term store's size per day, by type and source (``StoreDay`` rows in PostgreSQL), for the staff
dashboard's charts. Counted from the memories' own timestamps, so a missed day can be counted later, and kept
as history. See docs/dashboard.md.
"""

from __future__ import annotations

from datetime import UTC, date, datetime, time, timedelta

from django.db import connection

from agentsite import clock
from memory.models import LongTermMemory, StoreDay

_COUNT_SQL = f"""
    INSERT INTO {StoreDay._meta.db_table} (day, type, source, valid, archived)
    SELECT %(day)s, coalesce(type, ''), coalesce(source, ''),
           count(*) FILTER (WHERE (archived_at IS NULL OR archived_at >= %(end)s)
                            AND (expires_at IS NULL OR expires_at >= %(end)s)),
           count(*) FILTER (WHERE archived_at < %(end)s)
    FROM {LongTermMemory._meta.db_table}
    WHERE created_at < %(end)s AND (invalidated_at IS NULL OR invalidated_at >= %(end)s)
    GROUP BY GROUPING SETS ((type, source), ())
    ON CONFLICT (day, type, source) DO NOTHING
"""  # noqa: S608 - constant SQL, every value a parameter


def record(*, days: int = 90, today: date | None = None) -> list[date]:
    """Count every day of the last ``days`` before ``today`` that has no rows yet; return the days counted."""
    today = today or clock.now().date()
    written = set(StoreDay.objects.filter(day__gte=today - timedelta(days=days)).values_list("day", flat=True))
    counted = []
    with connection.cursor() as cursor:
        for offset in range(days, 0, -1):
            day = today - timedelta(days=offset)
            if day in written:
                continue
            end = datetime.combine(day + timedelta(days=1), time.min, tzinfo=UTC)
            cursor.execute(_COUNT_SQL, {"day": day, "end": end})
            counted.append(day)
    return counted
