"""The evaluation's simulations on small parameters: sane figures, real code paths, nothing left behind."""

from __future__ import annotations

import json
from datetime import timedelta

import numpy as np
import pytest
from django.contrib.auth import get_user_model
from django.db import connection
from django_redis import get_redis_connection

from agentsite import clock
from chat.evaluation import harness, simulations
from chat.evaluation.session_compression import CompressionParams, session_compression
from chat.evaluation.simulations import Params
from chat.evaluation.store_size import StoreSizeParams, store_size
from chat.evaluation.tool_results import ToolResultParams, tool_results
from chat.models import Order
from memory import longterm
from memory.models import CompressionSummary, Conversation, LongTermMemory
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db

# A quarter of a year on a fast policy (7-day decay periods) does what the real one does in a year.
QUARTER = StoreSizeParams(days=91, customers=6, visits_per_day=1.5, memories_per_visit=1.5, pool_size=30)


@pytest.fixture
def fast_policy(settings):
    settings.MEMORY_DECAY_PERIOD_DAYS = 7
    settings.MEMORY_ARCHIVE_AFTER_DAYS = 21
    settings.MEMORY_DELETE_AFTER_DAYS = 42
    return settings


def _scratch_rows() -> int:
    return get_user_model().objects.filter(username__startswith="hsim-").count()


@pytest.fixture
def bystander():
    """Someone else's old, weak memory: the policy would delete it at once, were it allowed to see it."""
    user = UserFactory(username="bystander")
    vector = np.random.default_rng(1).normal(size=384).astype(np.float32)
    candidate = longterm.Candidate(type="fact", content="The bystander's old fact", confidence=0.25)
    memory = longterm.insert(user.pk, candidate, vector / np.linalg.norm(vector), actor="test", now=clock.now())
    LongTermMemory.objects.filter(pk=memory.pk).update(created_at=clock.now() - timedelta(days=400))
    return memory.pk


def test_forgetting_keeps_the_store_smaller_than_without_it(bystander, fast_policy):
    offset_before = clock.offset()
    calls = []

    figures = store_size(QUARTER, lambda stage, done, total: calls.append((stage, done, total)))

    on, off = figures["on"], figures["off"]
    assert [m["day"] for m in on["months"]] == [m["day"] for m in off["months"]] == [30, 61, 91]
    # Both policies saw the same arrivals: only forgetting differs (recall matters only to the policy).
    assert sum(on["outcomes"].values()) == sum(off["outcomes"].values()) > 100
    assert on["recalls"] > 80 and off["recalls"] == 0 and figures["vector_queries"] == on["recalls"]
    assert on["outcomes"]["created"] > 0 and off["outcomes"].get("merged", 0) + off["outcomes"]["created"] > 0
    # Without forgetting nothing is archived or deleted and the table only grows.
    assert all(m["archived"] == 0 and m["deleted"] == 0 for m in off["months"])
    totals_off = [m["total"] for m in off["months"]]
    assert totals_off == sorted(totals_off)
    # With it, idle memories are archived, then deleted, and the store ends smaller.
    assert on["forgetting"]["decayed"] > 0 and on["forgetting"]["archived"] > 0 and on["forgetting"]["deleted"] > 0
    assert on["months"][-1]["deleted"] == on["forgetting"]["deleted"]
    assert figures["final_total"]["on"] < figures["final_total"]["off"]
    assert figures["final_valid"]["on"] < figures["final_valid"]["off"]
    assert figures["final_growth_total"]["on"] < figures["final_growth_total"]["off"]
    # Deletion needs twice the idleness of archiving: the first deletions come no earlier than the first archives.
    first = {k: next(m["day"] for m in on["months"] if m[k]) for k in ("archived", "deleted")}
    assert first["archived"] <= first["deleted"]
    for month in on["months"]:
        assert month["valid"] + month["archived"] + month["superseded"] == month["total"]
    assert calls[-1] == ("store size, forgetting off", 91, 91)
    assert ("store size, forgetting on", 91, 91) in calls
    # Left behind: nothing, and someone else's memory untouched by the policy.
    assert clock.offset() == offset_before
    assert _scratch_rows() == 0
    survivor = LongTermMemory.objects.get(pk=bystander)
    assert survivor.confidence == pytest.approx(0.25) and survivor.archived_at is None
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT relnamespace::regnamespace::text FROM pg_class WHERE oid = 'memory_longtermmemory'::regclass"
        )
        assert cursor.fetchone()[0] == "public"
        cursor.execute("SELECT count(*) FROM pg_namespace WHERE nspname LIKE 'hsim%%'")
        assert cursor.fetchone()[0] == 0


def test_long_tool_results_shrink_in_working_memory():
    orders_before = Order.objects.count()

    figures = tool_results(ToolResultParams(per_kind=2))

    rows = figures["results"]
    assert len(rows) == 8
    assert {r["kind"] for r in rows} == {"order list", "tracking history", "order details", "policy text"}
    assert {r["source"] for r in rows if r["kind"] != "policy text"} == {"tool"}
    long = [r for r in rows if r["raw_tokens"] > figures["threshold_tokens"]]
    # Compacted first (chat.tool_results.compact), summarised only when still over the threshold.
    assert figures["long_results"] == len(long) >= 6 and 0 < figures["summarised"] <= len(long)
    for row in rows:
        assert row["reduction"] == pytest.approx(row["tokens"] / row["raw_tokens"] - 1, abs=1e-4)
        assert 0 < row["tokens"] <= row["raw_tokens"]
        if row in long:
            assert row["tokens"] < row["raw_tokens"]
        else:
            assert not row["summarised"]
    assert figures["values_kept"] == figures["values_needed"] > 0  # every value a later step needs
    assert -1 < figures["median_reduction"] < -0.1
    assert set(figures["by_kind"]) == {r["kind"] for r in rows}
    assert Order.objects.count() == orders_before and _scratch_rows() == 0


def test_the_report_says_when_the_floor_itself_misses_the_article_s_figure():
    by_kind = {"order list": {"median_floor_reduction": -0.48}, "order details": {"median_floor_reduction": -0.87}}

    missed = simulations._out_of_reach({"floor_total_reduction": -0.802, "by_kind": by_kind})
    within = simulations._out_of_reach({"floor_total_reduction": -0.88, "by_kind": by_kind})

    assert "the article's -85.0% is out of reach" in missed and "floor is -80.2%" in missed
    assert "held back by the order lists (their values alone: -48.0%" in missed
    assert within == ""


def test_a_long_session_is_compressed_to_a_fraction():
    redis = get_redis_connection("default")
    conversations_before = Conversation.objects.count()

    figures = session_compression(CompressionParams(messages=120))

    assert figures["messages"] == 120
    assert figures["summaries"] == 9 and figures["summarised_messages"] == 90  # past 50: all but the last 30
    assert figures["verbatim_messages"] == 30
    assert figures["summaries_tokens_after"] < figures["summaries_tokens_before"]
    assert figures["tokens_after"] < figures["tokens_before"]
    assert figures["reduction"] == pytest.approx(figures["tokens_after"] / figures["tokens_before"] - 1, abs=1e-4)
    assert figures["working_memory_after"] < figures["working_memory_before"]
    assert figures["working_memory_before"] > figures["tokens_before"]  # the system prompt comes on top
    assert Conversation.objects.count() == conversations_before and not CompressionSummary.objects.exists()
    assert not list(redis.scan_iter(match="stm:*"))


def test_the_simulations_return_json_a_markdown_section_and_charts(tmp_path):
    params = Params(
        store_size=StoreSizeParams(days=31, customers=4, visits_per_day=2, pool_size=12),
        tool_results=ToolResultParams(per_kind=1),
        compression=CompressionParams(messages=60),
    )
    stages = set()

    results = harness.run_simulations(lambda stage, done, total: stages.add(stage), params=params)

    assert json.loads(json.dumps(results)) == results
    assert stages == {
        "store size, forgetting on",
        "store size, forgetting off",
        "tool results",
        "session compression",
    }
    assert results["params"]["store_size"]["days"] == 31
    text = simulations.markdown(results)
    assert text.startswith("## ")
    for article_figure in ("< 20%", "-85.0%", "4,000 → ~1,200"):
        assert article_figure in text
    assert (
        f"{results['session_compression']['tokens_before']:,} → {results['session_compression']['tokens_after']:,}"
        in text
    )
    paths = simulations.charts(results, tmp_path / "charts")
    assert [p.name for p in paths] == ["eval-store-size.png", "eval-tool-results.png", "eval-session-compression.png"]
    for path in paths:
        assert path.read_bytes().startswith(b"\x89PNG") and path.stat().st_size > 10_000
