"""Celery on a real prefork worker process over the Redis broker."""

from datetime import datetime, timedelta

import pytest

from agentsite import clock
from agentsite.tasks import clock_now, echo
from tests.procs import start_worker

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def worker(process_env):
    worker = start_worker(process_env, concurrency=1)
    yield worker
    worker.stop()


def test_task_runs_in_a_pool_child_and_its_result_comes_back(worker):
    result = echo.delay({"hello": "世界"})

    payload = result.get(timeout=30)

    assert payload["value"] == {"hello": "世界"}
    assert payload["pid"] in worker.pool_children()  # ran in the forked child, not in this process


def test_worker_sees_the_clock_the_test_moved(worker):
    before = datetime.fromisoformat(clock_now.delay().get(timeout=30))

    clock.advance(timedelta(days=3))
    after = datetime.fromisoformat(clock_now.delay().get(timeout=30))

    assert after - before >= timedelta(days=3)
    assert after - before < timedelta(days=3, minutes=5)


def test_killed_pool_child_is_replaced_and_the_worker_keeps_working(worker):
    killed = worker.kill_pool_child()

    payload = echo.delay("after").get(timeout=60)

    assert payload["value"] == "after"
    assert payload["pid"] != killed
