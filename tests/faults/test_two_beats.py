"""Two beat processes at once: exactly one effective forgetting run per day; a killed run is resumed.

Two real processes run the beat-scheduled task (``memory.run_forgetting``) at the same moment — they
meet at a Redis counter before calling it — on two days of the shared, moved clock. A process that
dies while it runs the day is replaced by the next attempt the same day.
"""

import json
import subprocess
import sys
import uuid
from datetime import timedelta

import pytest

from agentsite import clock
from memory.models import ForgettingRun, LongTermMemory
from tests.factories import remember
from tests.procs import ROOT
from tests.waiting import wait_until

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]

BEAT = """
import json, sys, time
import django
django.setup()
from django_redis import get_redis_connection
from memory.tasks import run_forgetting
redis = get_redis_connection("default")
for day in range(int(sys.argv[2])):
    deadline = time.monotonic() + 120
    while not redis.exists(f"{sys.argv[1]}:go{day}") and time.monotonic() < deadline:
        time.sleep(0.002)  # both processes are released by one key: they call the task at the same moment
    print("RESULT " + json.dumps(run_forgetting()), flush=True)
"""


class TwoBeats:
    """Two processes that each run the forgetting task once per day they are released for."""

    def __init__(self, process_env, days: int) -> None:
        self.name = f"beats:{uuid.uuid4().hex}"
        self.day = 0
        self.procs = [
            subprocess.Popen(
                [sys.executable, "-c", BEAT, self.name, str(days)],
                cwd=ROOT,
                env=process_env.as_environ(),
                stdout=subprocess.PIPE,
                text=True,
            )
            for _ in range(2)
        ]

    def run_day(self) -> list[dict | None]:
        from django_redis import get_redis_connection

        get_redis_connection("default").set(f"{self.name}:go{self.day}", 1)
        self.day += 1
        results = []
        for proc in self.procs:
            line = proc.stdout.readline()
            assert line.startswith("RESULT "), (line, proc.poll())
            results.append(json.loads(line.removeprefix("RESULT ")))
        return results

    def close(self) -> None:
        for proc in self.procs:
            proc.kill()
            proc.wait(10)


def test_two_beats_at_once_make_one_effective_run_per_day(process_env, make_customer):
    customer = make_customer()
    memory = remember(customer, "The customer likes green tea", confidence=0.9)
    LongTermMemory.objects.filter(pk=memory.pk).update(created_at=clock.now() - timedelta(days=31))

    beats = TwoBeats(process_env, days=2)
    try:
        day_one = beats.run_day()
        after_day_one = LongTermMemory.objects.get(pk=memory.pk).confidence
        clock.advance(timedelta(days=30))  # the next day that has something to do
        day_two = beats.run_day()
    finally:
        beats.close()
    assert sorted(day_one, key=lambda r: r is None) == [
        {"decayed": 1, "archived": 0, "deleted": 0, "transcripts_deleted": 0},
        None,  # the other beat found the day claimed
    ]
    assert after_day_one == pytest.approx(0.81)  # decayed once, not twice
    assert sum(r is not None for r in day_two) == 1
    assert [r for r in day_two if r] == [{"decayed": 1, "archived": 0, "deleted": 0, "transcripts_deleted": 0}]
    assert LongTermMemory.objects.get(pk=memory.pk).confidence == pytest.approx(0.729)

    runs = list(ForgettingRun.objects.order_by("day").values_list("day", "counts"))
    assert [day for day, _ in runs] == [(clock.now() - timedelta(days=30)).date(), clock.now().date()]
    assert all(counts["decayed"] == 1 for _, counts in runs)


HOLDER = """
import sys, time
import django
django.setup()
from agentsite import clock
from memory.forgetting import _DAY_LOCK_NAMESPACE
from memory.locks import try_advisory_lock
from memory.models import ForgettingRun
with try_advisory_lock(_DAY_LOCK_NAMESPACE, clock.now().date().toordinal()) as held:
    assert held
    ForgettingRun.objects.get_or_create(day=clock.now().date(), defaults={"started_at": clock.now()})
    print("HOLDING", flush=True)
    time.sleep(600)  # a run that never finishes: killed below
"""


def test_a_run_killed_half_way_is_resumed_the_same_day(process_env, make_customer):
    from memory.forgetting import run_daily

    customer = make_customer()
    memory = remember(customer, "The customer likes green tea", confidence=0.9)
    LongTermMemory.objects.filter(pk=memory.pk).update(created_at=clock.now() - timedelta(days=31))
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER], cwd=ROOT, env=process_env.as_environ(), stdout=subprocess.PIPE, text=True
    )
    try:
        assert holder.stdout.readline().strip() == "HOLDING"
        assert run_daily() is None  # the day is being run by the other process
        holder.kill()  # SIGKILL: no cleanup, its connection (and the day's lock) just dies
        holder.wait(10)
        # PostgreSQL notices the closed socket and ends the dead backend, releasing the day's lock
        resumed = wait_until(run_daily, "the day runs once its holder is dead", timeout=20)
    finally:
        holder.kill()
        holder.wait(10)

    assert resumed is not None and resumed.decayed == 1
    assert LongTermMemory.objects.get(pk=memory.pk).confidence == pytest.approx(0.81)
    run = ForgettingRun.objects.get()
    assert run.finished_at is not None and run.counts["decayed"] == 1
    assert run_daily() is None  # finished: the next attempt that day does nothing
