"""Locks across processes that hold through a pool in transaction mode (``memory.locks``)."""

import logging
import os
import signal
import threading
import time
import uuid

import pytest
from django.db import connection

from memory import locks
from memory.models import Lease as LeaseRow

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_lease_has_one_holder_until_it_is_given_back():
    name = f"test:{uuid.uuid4()}"
    first, second = locks.Lease(name), locks.Lease(name)
    assert first.try_take()
    assert not second.try_take()
    first.give_back()
    assert second.try_take()
    second.give_back()
    assert not LeaseRow.objects.filter(name=name).exists()


def test_the_holding_process_renews_a_lease_past_its_seconds_and_a_dead_holders_lapses(settings):
    settings.LOCK_LEASE_SECONDS = 0.6
    kept, orphan = locks.Lease(f"test:{uuid.uuid4()}"), locks.Lease(f"test:{uuid.uuid4()}")
    assert kept.try_take() and orphan.try_take()
    locks._renewer.discard(orphan.holder)  # as if its process had died: nobody renews it
    time.sleep(1.5)  # two and a half lease lengths

    assert not locks.Lease(kept.name).try_take()
    successor = locks.Lease(orphan.name)
    assert successor.try_take()
    kept.give_back()
    successor.give_back()


def test_giving_back_a_lapsed_lease_says_so(settings, caplog):
    settings.LOCK_LEASE_SECONDS = 0.3
    lease = locks.Lease(f"test:{uuid.uuid4()}")
    assert lease.try_take()
    locks._renewer.discard(lease.holder)
    time.sleep(0.5)
    assert locks.Lease(lease.name).try_take()  # another holder takes the lapsed lease
    with caplog.at_level(logging.WARNING, logger="memory.locks"):
        lease.give_back()
    assert "lapsed while held" in caplog.text
    assert LeaseRow.objects.filter(name=lease.name).exists()  # the new holder's lease is untouched


def test_waiting_for_a_lease_ends_when_the_holder_gives_it_back():
    import threading

    name = f"test:{uuid.uuid4()}"
    holder = locks.Lease(name)
    assert holder.try_take()
    taken = threading.Event()

    def wait() -> None:
        from django.db import connection

        waiter = locks.Lease(name)
        locks.wait_until_taken(waiter.try_take)
        taken.set()
        waiter.give_back()
        connection.close()

    thread = threading.Thread(target=wait)
    thread.start()
    assert not taken.wait(0.3)
    holder.give_back()
    assert taken.wait(10)
    thread.join(10)


def test_an_advisory_lock_is_held_on_a_connection_of_its_own_until_the_block_ends():
    key = uuid.uuid4().int % 2**31
    with locks.try_advisory_lock(1, key) as held:
        assert held
        with locks.try_advisory_lock(1, key) as again:
            assert not again  # another connection: the lock is not reentrant for this thread's work
    with locks.try_advisory_lock(1, key) as held:
        assert held


def test_an_advisory_lock_is_given_back_before_its_block_returns():
    # Closing the connection alone leaves the release to the server's exiting backend, which a busy machine may
    # not run before the next caller asks: that caller (the next turn's compression) then found its conversation
    # "busy" and skipped a chunk. Here the holding backend is paused while the block ends and resumed a moment
    # later, so the next caller finds the lock free only if the block gave it back before returning.
    key = uuid.uuid4().int % 2**31
    with locks.try_advisory_lock(1, key) as held:
        assert held
        with connection.cursor() as cursor:
            cursor.execute("SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND objid = %s AND granted", [key])
            (backend,) = cursor.fetchone()
        try:
            os.kill(backend, signal.SIGSTOP)
        except (PermissionError, ProcessLookupError):
            pytest.skip("the database server is not this machine's embedded one: its backends cannot be paused")
        resume = threading.Timer(0.5, os.kill, (backend, signal.SIGCONT))
        resume.start()
    try:
        with locks.try_advisory_lock(1, key) as again:
            assert again
    finally:
        resume.join()
