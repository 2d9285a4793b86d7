"""The staff dashboard: what the product records for it, each chart's numbers, the page and who may see it."""

from datetime import UTC, date, datetime, time, timedelta
from decimal import Decimal

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from agentsite import clock, llm
from agentsite.models import ModelCall
from chat import dashboard, records
from chat.agent import NotYourConversation
from chat.consumers import observed_turn
from chat.models import Commitment, CommitmentEvent, ConversationRating, Takeover, TurnStat
from memory import store_days
from memory.consolidation import record_run
from memory.embeddings import get_embedder
from memory.longterm import Candidate, insert
from memory.models import MemoryConflict, MemoryEvent, StoreDay
from memory.session import SessionStore
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db

TODAY = date(2026, 11, 20)


def at(days_ago: int, hour: int = 12) -> datetime:
    return datetime.combine(TODAY - timedelta(days=days_ago), time(hour), tzinfo=UTC)


def chart(board: dashboard.Dashboard, key: str) -> dashboard.Chart:
    return next(c for c in board.charts if c.key == key)


def on(board: dashboard.Dashboard, key: str, series: str, days_ago: int):
    """The value of one series of one chart on one day (or week, for weekly charts)."""
    found = chart(board, key)
    label = (TODAY - timedelta(days=days_ago)).isoformat()
    names = {str(name): values for name, values in found.series.items()}
    return names[series][found.labels.index(label)]


def turn(conversation, days_ago, *, outcome="answered", language="en", ms=1000, queries=1, used=0, mode="active"):
    records.record_turn(
        conversation,
        outcome=outcome,
        language=language,
        recall_mode=mode,
        vector_queries=queries,
        memories_used=used,
        seconds=ms / 1000,
        at=at(days_ago),
    )


def test_conversations_outcomes_latency_and_recall_come_from_the_turns():
    a, b, c = (SessionStore().start(UserFactory().pk).id for _ in range(3))
    turn(a, 2, language="zh", ms=800, used=2)
    turn(a, 2, language="zh", ms=1200, outcome="resolved")
    turn(b, 2, ms=3000, outcome="escalated", queries=2)
    turn(c, 2, ms=500, queries=0, mode="deferred")
    turn(c, 1, ms=700, outcome="failed", language="")
    turn(c, 9, ms=700)  # outside the week

    board = dashboard.build(7, today=TODAY)

    assert on(board, "conversations", "Chinese", 2) == 1 and on(board, "conversations", "English", 2) == 2
    assert on(board, "conversations", "English", 0) == 0
    assert on(board, "outcomes", "Resolved", 2) == pytest.approx(33.33)
    assert on(board, "outcomes", "Handed to staff", 2) == pytest.approx(33.33)
    assert on(board, "latency", "Chinese p50", 2) == 1000  # answered turns only: the escalated 3 s is not a reply
    assert on(board, "latency", "English p50", 2) == 500
    assert on(board, "vector-queries", "Per turn", 2) == 1.0  # (1 + 1 + 2 + 0) / 4
    assert on(board, "memory-used", "Turns that used a memory", 2) == 25.0
    assert on(board, "vector-queries", "Searches deferred recall saved", 2) == 1
    assert on(board, "outcomes", "Resolved", 1) == 0  # the failed turn's conversation resolved nothing
    assert on(board, "outcomes", "Resolved", 0) is None and on(board, "latency", "English p50", 0) is None


def test_takeovers_consolidation_breaker_and_model_calls_per_day():
    records.record_takeover(at(3), at(3) + timedelta(minutes=4))
    records.record_takeover(at(3), at(3) + timedelta(minutes=10))
    record_run({"created": 2, "merged": 1}, 1, at=at(1))
    record_run({"superseded": 1, "conflict": 1, "skipped": 3}, 0, at=at(1))
    record_run({}, 0, at=at(1))  # stored nothing: not a row
    llm.record_opening("offline-main", 5, at=at(4))
    for ok in (True, True, False):
        ModelCall.objects.create(
            created_at=at(4),
            purpose="chat",
            model="offline-main",
            prompt_tokens=1000,
            completion_tokens=500,
            cost_usd=Decimal("0.25"),
            ok=ok,
        )

    board = dashboard.build(7, today=TODAY)

    assert on(board, "takeovers", "Median wait", 3) == 7.0 and on(board, "takeovers", "Longest wait", 3) == 10.0
    assert on(board, "takeovers", "Median wait", 2) is None  # nobody was taken over: no wait, not a wait of 0
    assert on(board, "consolidation", "Created", 1) == 2 and on(board, "consolidation", "Skipped", 1) == 3
    assert on(board, "consolidation", "Conflict opened", 1) == 1 and on(board, "consolidation", "Rejected", 1) == 1
    assert on(board, "model-calls", "offline-main: calls", 4) == 3
    assert on(board, "model-calls", "offline-main: errors", 4) == 1
    assert on(board, "model-calls", "Breaker openings", 4) == 1
    assert on(board, "model-tokens", "offline-main", 4) == 4.5
    assert on(board, "model-cost", "offline-main", 4) == 0.75


def test_the_store_is_counted_per_day_from_the_rows_own_times():
    customer = UserFactory()
    vector = get_embedder().embed_passages(["likes tea"])[0]
    insert(customer.pk, Candidate(type="fact", content="likes tea", confidence=0.9), vector, actor="test", now=at(3))
    archived = insert(
        customer.pk,
        Candidate(type="preference", content="likes green tea", confidence=0.9, source="agent_inferred"),
        vector,
        actor="test",
        now=at(3),
    )
    archived.archived_at = at(1)
    archived.save()

    assert store_days.record(days=4, today=TODAY) == [TODAY - timedelta(days=n) for n in (4, 3, 2, 1)]
    assert store_days.record(days=4, today=TODAY) == []  # every day counted once, the empty one too

    totals = {row.day: (row.valid, row.archived) for row in StoreDay.objects.filter(type="", source="")}
    assert totals == {
        TODAY - timedelta(days=4): (0, 0),
        TODAY - timedelta(days=3): (2, 0),
        TODAY - timedelta(days=2): (2, 0),
        TODAY - timedelta(days=1): (1, 1),
    }
    board = dashboard.build(7, today=TODAY)
    assert on(board, "store", "Valid", 3) == 2 and on(board, "store", "Archived", 1) == 1
    assert on(board, "store", "Preferences", 2) == 1 and on(board, "store", "Inferred by the agent", 2) == 1
    assert on(board, "store", "Facts", 1) == 1 and on(board, "store", "Preferences", 1) == 0
    assert on(board, "store", "Valid", 5) is None  # before the first count
    assert on(board, "store", "Valid", 0) is None  # today is counted tonight


def test_growth_is_the_valid_store_against_thirty_days_before():
    for day, valid in ((TODAY - timedelta(days=31), 100), (TODAY - timedelta(days=1), 130)):
        StoreDay.objects.create(day=day, type="", source="", valid=valid, archived=0)

    board = dashboard.build(7, today=TODAY)

    growth = chart(board, "growth")
    assert on(board, "growth", "Valid memories against 30 days before", 1) == 30.0
    assert growth.reference[1] == dashboard.ARTICLE_MONTHLY_GROWTH


def test_deletions_conflicts_ratings_and_promises():
    customer = UserFactory()
    MemoryEvent.objects.create(customer=customer, memory_id=1, action="deleted", actor="forgetting", created_at=at(2))
    MemoryEvent.objects.create(customer=customer, memory_id=2, action="deleted", actor="customer", created_at=at(2))
    conflict = MemoryConflict.objects.create(customer=customer, incoming_content="x", incoming_source="customer_stated")
    MemoryConflict.objects.filter(pk=conflict.pk).update(created_at=at(3), resolved_at=at(1), status="resolved")
    MemoryConflict.objects.create(customer=customer, incoming_content="y", incoming_source="customer_stated")  # open
    store = SessionStore()
    used, plain = store.start(customer.pk).id, store.start(customer.pk).id
    turn(used, 2, used=1)
    ConversationRating.objects.create(conversation_id=used, score=5, created_at=at(2))
    ConversationRating.objects.create(conversation_id=plain, score=3, created_at=at(2))
    on_time = Commitment.objects.create(customer=customer, kind="callback", due_at=at(1, 18), created_at=at(2))
    Commitment.objects.filter(pk=on_time.pk).update(status="done", closed_at=at(1))
    late = Commitment.objects.create(
        customer=customer, kind="callback", due_at=at(3), created_at=at(3), status="overdue"
    )
    CommitmentEvent.objects.create(commitment=late, kind="overdue", at=at(2))

    board = dashboard.build(7, today=TODAY)

    assert on(board, "deletions", "Forgotten by the policy", 2) == 1
    assert on(board, "deletions", "Deleted by the customer or staff", 2) == 1
    assert on(board, "conflicts", "Opened", 3) == 1 and on(board, "conflicts", "Resolved", 1) == 1
    assert on(board, "conflict-age", "Median age", 1) == 48.0 and on(board, "conflict-age", "Median age", 2) is None
    week = chart(board, "csat")
    monday = at(2).date() - timedelta(days=at(2).weekday())
    column = week.labels.index(monday.isoformat())
    scores = {str(name): values[column] for name, values in week.series.items()}
    assert scores == {"All rated conversations": 4.0, "Memory was used": 5.0, "No memory used": 3.0}
    assert on(board, "promises", "Made", 2) == 1 and on(board, "promises", "Kept on time", 1) == 1
    assert on(board, "promises", "Became overdue", 2) == 1
    assert board.now["open_conflicts"] == 1 and board.now["overdue_promises"] == 1


def test_a_turn_is_recorded_with_its_language_latency_and_searches(offline_model):
    customer = UserFactory()
    conversation = SessionStore().start(customer.pk).id

    observed_turn(customer.pk, conversation, "Hello, where is my order ORD-2025-0001?")
    with pytest.raises(NotYourConversation):
        observed_turn(UserFactory().pk, conversation, "show me their order")  # not a turn of theirs: not counted

    row = TurnStat.objects.get()
    assert (row.conversation_id, row.language, row.outcome) == (conversation, "en", "resolved")  # it looked it up
    assert row.latency_ms > 0 and row.recall_mode == "active"


def test_taking_a_handoff_records_the_wait(django_user_model):
    from chat import handoff

    conversation = SessionStore().start(UserFactory().pk).id
    SessionStore().transition(conversation, "escalated", "test")
    handoff.open_handoff(conversation)
    staff = django_user_model.objects.create_user("lead", is_staff=True)

    handoff.take(conversation, staff)

    assert Takeover.objects.get().waited_seconds >= 0


def page(client, days="30"):
    return client.get(reverse("staff-dashboard"), {"days": days})


def test_staff_see_every_chart_with_its_table_in_their_language(client, django_user_model):
    client.force_login(django_user_model.objects.create_user("lead", is_staff=True))
    turn(SessionStore().start(django_user_model.objects.create_user("c1").pk).id, 0)

    response = page(client, "7")

    body = response.content.decode()
    assert response.status_code == 200
    assert body.count("<svg") == len(dashboard.build(7).charts) and body.count("<table") == body.count("<svg")
    client.post(reverse("set_language"), {"language": "zh-hans"})
    assert "对话" in page(client, "7").content.decode()
    dashboard_link = f'href="{reverse("staff-dashboard")}"'
    assert dashboard_link in client.get(reverse("admin:index")).content.decode()  # linked from the admin
    assert dashboard_link in client.get(reverse("staff-console")).content.decode()  # and the console


def test_customers_and_visitors_are_refused_and_a_bad_period_is_a_clear_error(client, django_user_model):
    assert page(client).status_code == 302  # to the staff login
    client.force_login(django_user_model.objects.create_user("customer"))
    assert page(client).status_code == 302
    client.force_login(django_user_model.objects.create_user("lead", is_staff=True))
    for bad in ("45", "abc", "-7", "", "9" * 40, "²", "３０", "30 "):
        response = page(client, bad)
        assert response.status_code == 400 and b"7, 30 or 90" in response.content


def test_the_page_sends_the_same_statements_however_many_rows_and_days(client, django_user_model):
    client.force_login(django_user_model.objects.create_user("lead", is_staff=True))
    with CaptureQueriesContext(connection) as few:
        page(client, "7")
    conversations = [SessionStore().start(UserFactory().pk).id for _ in range(5)]
    for days_ago in range(0, 90, 3):
        when = clock.now() - timedelta(days=days_ago)
        for conversation in conversations:
            records.record_turn(
                conversation,
                outcome="answered",
                language="zh",
                recall_mode="active",
                vector_queries=1,
                memories_used=1,
                seconds=1.0,
                at=when,
            )
        record_run({"created": 1}, 0, at=when)
        ModelCall.objects.create(created_at=when, purpose="chat", model=f"model-{days_ago % 4}")
    with CaptureQueriesContext(connection) as many:
        page(client, "90")

    assert len(many.captured_queries) == len(few.captured_queries)
