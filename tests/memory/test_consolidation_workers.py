"""Consolidation on real prefork workers: two workers on one customer, and workers killed mid-task."""

import uuid
from datetime import timedelta

import pytest
import redis
from django.conf import settings

from agentsite import clock
from agentsite.settings import redis_db_url
from memory.consolidation import consolidate, due_for_consolidation
from memory.models import LongTermMemory
from memory.tasks import consolidate_conversation
from tests.memory.test_consolidation import converse
from tests.procs import start_worker
from tests.waiting import wait_until

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]

FACTS = ("我对花生过敏", "I have two cats at home")


@pytest.fixture
def barrier():
    """A Redis key the workers' consolidation runs meet at (MEMORY_TEST_BARRIER)."""
    name = f"test-barrier:{uuid.uuid4().hex}"
    yield name
    broker = redis.Redis.from_url(redis_db_url(settings.REDIS_URL, settings.REDIS_DB_BROKER))
    broker.flushdb()  # nothing a killed worker left unacknowledged may reach a later test
    broker.close()


def _barrier_count(name: str) -> int:
    from django_redis import get_redis_connection

    return int(get_redis_connection("default").get(name) or 0)


def _consolidate_in_two_workers(process_env, store, customer, barrier, *, lock: bool) -> int:
    conversations = [converse(store, customer, *FACTS), converse(store, customer, *FACTS)]
    # With the lock the second run cannot reach the barrier while the first holds it: the first waits
    # out the 3 s timeout, commits, and the second then sees its rows.
    extra = {"MEMORY_TEST_BARRIER": f"{barrier}:2:3", "MEMORY_CUSTOMER_LOCK": "1" if lock else "0"}
    workers = [start_worker(process_env, name=f"consolidator{i}", extra_env=extra) for i in range(2)]
    try:
        results = [consolidate_conversation.delay(str(c)) for c in conversations]
        for result in results:
            result.get(timeout=90)
    finally:
        for worker in workers:
            worker.stop()
    return LongTermMemory.objects.filter(customer=customer).count()


def test_two_workers_on_one_customer_store_each_fact_once(process_env, store, customer, barrier):
    assert _consolidate_in_two_workers(process_env, store, customer, barrier, lock=True) == len(FACTS)


def test_without_the_customer_lock_the_same_race_duplicates(process_env, store, customer, barrier):
    """The control: proves the test above can fail, and that the lock is what prevents it."""
    assert _consolidate_in_two_workers(process_env, store, customer, barrier, lock=False) == 2 * len(FACTS)


def _memories(customer) -> list[tuple[str, str, str]]:
    rows = LongTermMemory.objects.filter(customer=customer, invalidated_at__isnull=True)
    return sorted(rows.values_list("type", "key", "content"))


@pytest.mark.parametrize("kill", ["whole_worker", "pool_child"])
def test_a_worker_killed_mid_consolidation_leaves_nothing_the_sweep_does_not_finish(
    process_env, store, make_customer, barrier, kill
):
    reference, victim = make_customer(), make_customer()
    lines = ("我的生日是3月15日", *FACTS, "请把通知静音")
    consolidate(converse(store, reference, *lines))  # the uninterrupted run
    conversation = converse(store, victim, *lines)
    worker = start_worker(process_env, name="victim", extra_env={"MEMORY_TEST_BARRIER": f"{barrier}:2:120"})
    try:
        consolidate_conversation.delay(str(conversation))
        # everything written, not yet committed
        wait_until(lambda: _barrier_count(barrier) >= 1, worker.log.read_text, timeout=60)
        if kill == "whole_worker":
            worker.kill()
        else:
            worker.kill_pool_child()
    finally:
        worker.kill()
    assert not LongTermMemory.objects.filter(customer=victim).exists()

    clock.advance(timedelta(minutes=settings.MEMORY_SWEEP_IDLE_MINUTES + 1))
    for due in due_for_consolidation():  # what the beat sweep queues
        consolidate(due)

    assert _memories(victim) == _memories(reference)
    assert consolidate(conversation).messages == 0
