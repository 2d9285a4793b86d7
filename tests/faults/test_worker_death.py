"""A Celery worker SIGKILLed mid-consolidation: the whole worker, and separately only its pool child.

The run is held by ``MEMORY_TEST_BARRIER`` after it has written everything and before it commits,
then killed. Afterwards the real beat sweep task (``memory.sweep_consolidation``), run by a real
worker, must end with exactly the memories an uninterrupted run stores. No test waits for broker
redelivery of a whole worker's task (50-100 s here: it waits for a worker restart); a killed pool child's task is
rejected and requeued at once (``task_reject_on_worker_lost``) and runs again beside the sweep's.
"""

import uuid
from datetime import timedelta

import pytest
import redis
from django.conf import settings

from agentsite import clock
from agentsite.celery import app
from agentsite.settings import redis_db_url
from memory.consolidation import consolidate
from memory.models import Conversation, LongTermMemory
from memory.tasks import consolidate_conversation, sweep_consolidation
from tests.memory.test_consolidation import converse
from tests.procs import start_worker
from tests.waiting import wait_until

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]

LINES = ("我的生日是3月15日", "我对花生过敏", "I have two cats at home", "请把通知静音")


@pytest.fixture
def barrier():
    name = f"fault-barrier:{uuid.uuid4().hex}"
    yield name
    broker = redis.Redis.from_url(redis_db_url(settings.REDIS_URL, settings.REDIS_DB_BROKER))
    broker.flushdb()  # the killed worker's unacknowledged task must not reach a later test
    broker.close()


def _arrived(name: str) -> int:
    from django_redis import get_redis_connection

    return int(get_redis_connection("default").get(name) or 0)


def _memories(customer) -> list[tuple[str, str, str, str, float]]:
    rows = LongTermMemory.objects.filter(customer=customer, invalidated_at__isnull=True)
    return sorted(rows.values_list("type", "key", "value", "content", "confidence"))


def test_the_worker_settings_are_the_safe_ones():
    assert app.conf.task_acks_late is True
    assert app.conf.task_reject_on_worker_lost is True
    assert app.conf.worker_prefetch_multiplier == 1


@pytest.mark.parametrize("kill", ["whole_worker", "pool_child"])
def test_a_killed_worker_then_the_sweep_ends_with_the_memories_of_an_uninterrupted_run(
    process_env, make_customer, store, barrier, kill
):
    reference, victim = make_customer(), make_customer()
    consolidate(converse(store, reference, *LINES))  # the uninterrupted run
    conversation = converse(store, victim, *LINES)

    worker = start_worker(process_env, name="victim", extra_env={"MEMORY_TEST_BARRIER": f"{barrier}:2:120"})
    try:
        consolidate_conversation.delay(str(conversation))
        wait_until(lambda: _arrived(barrier) >= 1, "the run reaches the barrier (written, not committed)")
        if kill == "whole_worker":
            worker.kill()
            worker = start_worker(process_env, name="after")  # what a supervisor does
        else:
            killed = worker.kill_pool_child()
            assert worker.alive()
            wait_until(lambda: worker.pool_children() and killed not in worker.pool_children(), "a new pool child")
        assert not LongTermMemory.objects.filter(customer=victim).exists()  # the killed run committed nothing

        clock.advance(timedelta(minutes=settings.MEMORY_SWEEP_IDLE_MINUTES + 1))
        swept = sweep_consolidation.delay().get(timeout=60)  # the beat's sweep, through the worker
        # After a whole worker died its task waits for redelivery: only the sweep finds the conversation.
        # A pool child's task was requeued at once and may have finished before the sweep looked.
        assert swept == 1 if kill == "whole_worker" else swept in (0, 1)
        wait_until(
            lambda: Conversation.objects.filter(pk=conversation, consolidated_seq__gte=2 * len(LINES)).exists(),
            "the swept consolidation committed",
            timeout=90,
        )
        if kill == "pool_child":
            # Runs that reached the barrier: the killed one, the requeued one (task_reject_on_worker_lost; without
            # it the task is acknowledged and lost) and the sweep's if it found work. The later changed nothing.
            wait_until(lambda: _arrived(barrier) >= 2 + swept, "the requeued run ran again", timeout=90)
    finally:
        worker.kill()
    assert _arrived(barrier) == (1 if kill == "whole_worker" else 2 + swept)

    assert _memories(victim) == _memories(reference)
    assert consolidate(conversation).messages == 0
