"""The one source of "now" for every policy that depends on time: policy code calls ``clock.now()`` (never
``timezone.now()``) and takes ``now=`` where it decides something, so that tests (with ``CLOCK_ALLOW_OFFSET``)
move the clock of every process sharing their Redis by days instead of sleeping. See docs/operations.md.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from django.conf import settings
from django.utils import timezone

if TYPE_CHECKING:
    from redis import Redis

OFFSET_KEY = "clock:offset_seconds"


def _offset_store() -> Redis:
    from django_redis import get_redis_connection

    connection: Redis = get_redis_connection("default")
    return connection


def offset() -> timedelta:
    """Return the current test offset (zero unless offsets are allowed and one is set)."""
    if not settings.CLOCK_ALLOW_OFFSET:
        return timedelta(0)
    raw = _offset_store().get(OFFSET_KEY)
    return timedelta(seconds=float(raw)) if raw else timedelta(0)


def now() -> datetime:
    """Return the current time (aware, UTC), shifted by the test offset where allowed."""
    return timezone.now() + offset()


def advance(delta: timedelta) -> datetime:
    """Move the shared clock forward by ``delta`` (tests only) and return the new now."""
    _require_offsets()
    _offset_store().incrbyfloat(OFFSET_KEY, delta.total_seconds())
    return now()


def reset() -> None:
    """Put the shared clock back to real time (tests only)."""
    _require_offsets()
    _offset_store().delete(OFFSET_KEY)


def _require_offsets() -> None:
    if not settings.CLOCK_ALLOW_OFFSET:
        raise RuntimeError("moving the clock needs CLOCK_ALLOW_OFFSET (tests only)")
