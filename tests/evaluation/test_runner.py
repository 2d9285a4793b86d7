"""A tiny scenario file end to end through the real runner: memory off and on, a real Celery worker."""

from pathlib import Path

import pytest
from django.core.management import call_command

from chat.evaluation import report, runner, scenarios
from memory.models import LongTermMemory
from tests.procs import start_worker

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]
TINY = Path(__file__).parent / "data" / "tiny.json"


@pytest.fixture
def worker(process_env):
    call_command("seed_demo", stdout=open("/dev/null", "w"))  # noqa: SIM115 - the policy articles
    worker = start_worker(process_env, name="eval-consolidation")
    yield worker
    worker.stop()


def test_memory_off_and_on_through_the_real_runner(worker):
    files = scenarios.load(TINY)
    assert len(runner.cohorts(files[0].customers)) == 1  # both customers' sessions are 3 days apart: lockstep
    off = runner.run_mode(files, "off")
    on = runner.run_mode(files, "active", threads=2)  # the two customers' sessions play side by side

    def later(run, question):
        return next(t for t in run.turns if t.session == 1 and t.question == question and t.customer == "t-zh")

    # Memory off: nothing crosses sessions, so the planted birthday and order are asked for again ...
    assert later(off, "birthday").passed is False and later(off, "birthday").repeated == ["birthday"]
    assert later(off, "order_number").repeated == ["order_number"]
    # (policy search counts on the same vector-query counter, so only turns without tools are zero)
    assert all(t.vector_queries == 0 for t in off.turns if t.tool_results == 0)
    assert off.customers[0].valid_memories == 0  # the worker consolidated nothing
    # ... while a question that needs no memory is answered either way (the baseline is not zero).
    assert later(off, "policy").passed and later(on, "policy").passed

    # Memory on: the worker consolidated session 1, the clock moved 3 days, recall answered.
    assert later(on, "birthday").passed and later(on, "order_number").passed
    assert not later(on, "birthday").repeated
    assert all(c.passed for s in on.sessions for c in s.after), [c for s in on.sessions for c in s.after]
    assert on.customers[0].facts == 2 and on.customers[0].stored == 2
    # Per-turn figures are the turn's own although two customers played at once: active recall makes
    # exactly one vector query per turn once the customer has a memory, plus one per policy search; in the
    # first session, before the worker consolidated anything, it searches nothing.
    later_turns = [t for t in on.turns if t.session > 0]
    assert all(t.vector_queries == 1 for t in later_turns if t.tool_results == 0), [t.vector_queries for t in on.turns]
    assert all(t.vector_queries >= 1 for t in later_turns)
    assert all(t.vector_queries == 0 for t in on.turns if t.session == 0 and t.tool_results == 0)
    # Memory-layer time comes from the turn's phase timings: recall and its embedding in active, not in off.
    assert all({"short_term", "working_memory", "recall"} <= set(t.phases) for t in on.turns)
    assert not any("recall" in t.phases or "embedding" in t.phases for t in off.turns)
    assert all(0 < t.memory_ms < t.wall_ms and t.model_ms > 0 for t in on.turns)
    assert all(s.consolidation_ms for s in on.sessions)  # the worker's own timings of each final consolidation
    assert not LongTermMemory.objects.filter(customer__username__startswith=runner.USERNAME_PREFIX).exists()

    # Deferred: recall only when the first answer says it lacks something. "我的快递到哪了" has no number in
    # sight, the offline model says 我不确定 (as a hosted model would), recall finds the order.
    deferred = runner.run_mode(files, "deferred", threads=2)
    assert later(deferred, "order_number").passed and later(deferred, "birthday").passed
    assert later(deferred, "order_number").vector_queries >= 1
    assert all(t.vector_queries == 0 for t in deferred.turns if t.session == 0 and t.tool_results == 0)
    assert sum(t.vector_queries for t in deferred.turns) < sum(t.vector_queries for t in on.turns)

    figures_off, figures_on = report.figures(off), report.figures(on)
    assert figures_on["question_accuracy"] > figures_off["question_accuracy"]
    assert figures_on["vector_queries_per_turn"] > figures_off["vector_queries_per_turn"]
    assert figures_on["memories_per_planted_fact"] == 1.0
    assert {"short_term", "working_memory", "recall", "embedding"} <= set(figures_on["phases"])
    assert figures_on["memory_ms_p50_no_embedding"] <= figures_on["memory_ms_p50"]
    results = {
        "meta": {
            "machine": "m",
            "started": "s",
            "seconds": 1,
            "files": ["tiny.json"],
            "customers": 2,
            "scenario_turns": 9,
            "model": "offline",
        },
        "modes": [figures_off, figures_on],
    }
    text = report.markdown(results)
    assert "| planted-fact question, first turn of a later session | 67% → 89% |" in text
    assert "## Summary" in text
