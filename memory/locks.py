"""PostgreSQL advisory locks held by one process at a time, for work that must not run twice at once.

A session-level advisory lock belongs to the database connection: it is released when the holder
unlocks it or when its connection dies with the process, so a killed worker never leaves it taken.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

from django.db import connection


@contextlib.contextmanager
def try_advisory_lock(namespace: int, key: int) -> Iterator[bool]:
    """Take the lock ``(namespace, key)`` if no other session holds it; yield whether this one does.

    Never waits: a caller that gets ``False`` finds the work being done elsewhere. Both keys are int4.
    """
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_try_advisory_lock(%s, %s)", [namespace, key])
        held = cursor.fetchone()[0]
    try:
        yield held
    finally:
        if held:
            with connection.cursor() as cursor:
                cursor.execute("SELECT pg_advisory_unlock(%s, %s)", [namespace, key])
