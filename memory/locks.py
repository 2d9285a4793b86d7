"""Locks shared by every process that still hold through a connection pool in transaction mode: a
transaction-level advisory lock on a connection of its own, for rare background work, and a lease row in
PostgreSQL for the turn, which lapses after ``LOCK_LEASE_SECONDS`` if its holder dies. They guard the writes
of every memory tier and live only as long as the work they guard. See docs/operations.md ("Connections and
pooling").
"""

from __future__ import annotations

import contextlib
import logging
import os
import threading
import time
import uuid
from collections.abc import Callable, Iterator

from django.conf import settings
from django.db import connection

from memory.models import Lease as LeaseRow

logger = logging.getLogger(__name__)


@contextlib.contextmanager
def try_advisory_lock(namespace: int, key: int) -> Iterator[bool]:
    """Take the lock ``(namespace, key)`` if no other session holds it; yield whether this one does.

    Never waits: a caller that gets ``False`` finds the work being done elsewhere. Both keys are int4.
    """
    own = connection.get_new_connection(connection.get_connection_params())  # not in autocommit
    try:
        with own.cursor() as cursor:  # opens the transaction that holds the lock until ``close``
            cursor.execute("SELECT pg_try_advisory_xact_lock(%s, %s)", [namespace, key])
            held = bool(cursor.fetchone()[0])
        yield held
    finally:
        try:
            own.rollback()  # the server gives the lock back before it answers: the next caller finds it free
        finally:
            own.close()  # closing alone leaves the release to the exiting backend, which may run late


_TABLE = LeaseRow._meta.db_table
# A common table expression taking lease %s for holder %s for %s seconds if it is free or has lapsed;
# it returns a row when taken. Callers may read something else in the same round trip.
TAKE_CTE = (
    f"taken AS (INSERT INTO {_TABLE} (name, holder, expires_at)"
    " VALUES (%s, %s, clock_timestamp() + make_interval(secs => %s))"
    " ON CONFLICT (name) DO UPDATE SET holder = EXCLUDED.holder, expires_at = EXCLUDED.expires_at"
    f" WHERE {_TABLE}.expires_at < clock_timestamp() RETURNING 1)"
)  # noqa: S608 - constant SQL, every value a parameter
GIVE_BACK = f"DELETE FROM {_TABLE} WHERE name = %s AND holder = %s"  # noqa: S608
_RENEW = f"UPDATE {_TABLE} SET expires_at = clock_timestamp() + make_interval(secs => %s) WHERE holder = ANY(%s)"  # noqa: S608


class Lease:
    """A lease on ``name`` for one holder: ``try_take`` (with ``wait_until_taken``) until ``give_back``.

    While taken, the process's renewal thread extends it every third of ``LOCK_LEASE_SECONDS``.
    """

    def __init__(self, name: str) -> None:
        self.name = name
        self.holder = uuid.uuid4()
        self.seconds = float(settings.LOCK_LEASE_SECONDS)

    def take_parameters(self) -> list[str | uuid.UUID | float]:
        """The parameters of ``TAKE_CTE`` for this lease."""
        return [self.name, self.holder, self.seconds]

    def taken(self, was_taken: bool) -> bool:
        """Record the result of a ``TAKE_CTE`` statement; return it."""
        if was_taken:
            _renewer.add(self.holder)
        return was_taken

    def try_take(self) -> bool:
        """Take the lease if it is free or has lapsed; never waits."""
        with connection.cursor() as cursor:
            cursor.execute(f"WITH {TAKE_CTE} SELECT EXISTS (SELECT 1 FROM taken)", self.take_parameters())
            return self.taken(cursor.fetchone()[0])

    def give_back(self) -> None:
        _renewer.discard(self.holder)
        with connection.cursor() as cursor:
            cursor.execute(GIVE_BACK, [self.name, self.holder])
            if cursor.rowcount == 0:
                logger.warning("lease %s lapsed while held: another holder may have run beside this one", self.name)


def wait_until_taken(try_take: Callable[[], bool]) -> None:
    """Call ``try_take`` until it returns true, backing off from 10 ms to 250 ms between tries.

    No deadline: a live holder gives the lease back when its work ends, a dead one's lapses.
    """
    delay = 0.01
    while not try_take():
        time.sleep(delay)
        delay = min(delay * 2, 0.25)


class _Renewer:
    """The thread that extends this process's leases; started with the first lease a process takes."""

    def __init__(self) -> None:
        self._held: set[uuid.UUID] = set()
        self._lock = threading.Lock()
        self._wake = threading.Event()
        self._period = 0.0  # seconds between renewals: a third of LOCK_LEASE_SECONDS when last read
        self._pid = 0  # the process the thread runs in: a forked child starts its own

    def add(self, holder: uuid.UUID) -> None:
        period = float(settings.LOCK_LEASE_SECONDS) / 3
        with self._lock:
            if self._pid != os.getpid():
                self._held = set()  # a forked child holds none of its parent's leases
                self._pid, self._period = os.getpid(), period
                threading.Thread(target=self._run, name="lease-renewer", daemon=True).start()
            elif period < self._period:
                self._period = period
                self._wake.set()  # a shorter lease than the thread is sleeping for
            self._held.add(holder)

    def discard(self, holder: uuid.UUID) -> None:
        with self._lock:
            self._held.discard(holder)

    def _run(self) -> None:
        pid = os.getpid()
        while pid == os.getpid():
            self._wake.wait(self._period)
            self._wake.clear()
            seconds = float(settings.LOCK_LEASE_SECONDS)
            with self._lock:
                holders, self._period = list(self._held), seconds / 3
            if holders:
                self.renew(holders, seconds)

    @staticmethod
    def renew(holders: list[uuid.UUID], seconds: float) -> None:
        try:
            with connection.cursor() as cursor:
                cursor.execute(_RENEW, [seconds, holders])
        except Exception:  # the database may be away: the next round tries again
            logger.warning("could not renew %d leases", len(holders), exc_info=True)
        finally:
            connection.close()  # an idle thread keeps no connection (nor blocks a test database's removal)


_renewer = _Renewer()
