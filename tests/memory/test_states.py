"""The agent's state machine: the one transition table, silence while a person is involved, loops."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from memory.models import Conversation, StateTransition
from memory.session import BotMayNotReply, SessionKeys
from memory.states import TRANSITIONS, AgentState, IllegalTransition, Step, bot_may_reply, detect_loop
from memory.working import Role
from tests.factories import entry

S = AgentState
DOCS = Path(__file__).resolve().parents[2] / "docs" / "session.md"


@pytest.mark.parametrize(
    ("from_state", "to_state"),
    [
        (S.RESOLVED, S.COLLECTING_INFO),  # a new request in the same session
        (S.ESCALATED, S.HUMAN),
        (S.HUMAN, S.RESOLVED),
        (S.HUMAN, S.COLLECTING_INFO),  # staff hand the conversation back
        (S.PROCESSING, S.ESCALATED),
    ],
)
def test_the_table_allows(from_state, to_state):
    assert to_state in TRANSITIONS[from_state]


@pytest.mark.parametrize(
    ("from_state", "to_state"),
    [
        (S.ESCALATED, S.RESOLVED),
        (S.ESCALATED, S.COLLECTING_INFO),
        (S.HUMAN, S.PROCESSING),
        (S.GREETING, S.HUMAN),
        (S.RESOLVED, S.PROCESSING),
    ],
)
def test_the_table_refuses(from_state, to_state):
    assert to_state not in TRANSITIONS[from_state]


def test_every_bot_state_can_escalate():
    assert all(S.ESCALATED in TRANSITIONS[s] for s in S if bot_may_reply(s))


def test_the_bot_never_replies_while_a_person_is_awaited_or_in_charge():
    assert [s for s in S if not bot_may_reply(s)] == [S.ESCALATED, S.HUMAN]


def test_the_docs_show_the_same_table():
    rows = re.findall(r"^\| `(\w+)` \| (.+?) \|$", DOCS.read_text(), re.M)
    documented = {S(state): frozenset(S(t) for t in re.findall(r"`(\w+)`", targets)) for state, targets in rows}
    assert documented == dict(TRANSITIONS)


def steps(*pairs, progress=()):
    return [Step(S(a), S(b), i in progress) for i, (a, b) in enumerate(pairs)]


PING = (S.PROCESSING, S.COLLECTING_INFO)
PONG = (S.COLLECTING_INFO, S.PROCESSING)


def test_three_round_trips_without_progress_are_tolerated():
    assert detect_loop(steps(PONG, *[PING, PONG] * 3), threshold=3) is None


def test_the_fourth_round_trip_without_progress_is_a_loop():
    loop = detect_loop(steps(PONG, *[PING, PONG] * 4), threshold=3)
    assert loop is not None and loop.cycles == 4
    assert set(loop.states) == {S.PROCESSING, S.COLLECTING_INFO}


def test_progress_in_the_middle_restarts_the_count():
    history = steps(PONG, *[PING, PONG] * 4, progress={4})
    assert detect_loop(history, threshold=3) is None


# -- through the session store -----------------------------------------------------------------


@pytest.mark.django_db
def test_a_transition_is_recorded_in_redis_and_postgresql(store, customer, redis_conn):
    session = store.start(customer.pk)

    result = store.transition(session.id, S.COLLECTING_INFO, "customer asked where an order is")

    assert result.state == S.COLLECTING_INFO and result.loop is None
    row = StateTransition.objects.get()
    assert (row.conversation_id, row.customer_id, row.from_state, row.to_state) == (
        session.id,
        customer.pk,
        "greeting",
        "collecting_info",
    )
    assert row.reason == "customer asked where an order is"
    loaded = store.load(session.id)
    assert loaded.state == S.COLLECTING_INFO
    assert [(t.from_state, t.to_state) for t in loaded.transitions] == [(S.GREETING, S.COLLECTING_INFO)]


@pytest.mark.django_db
def test_an_illegal_transition_raises_and_records_nothing(store, customer):
    session = store.start(customer.pk)
    store.transition(session.id, S.ESCALATED, "customer asked for a person")

    with pytest.raises(IllegalTransition):
        store.transition(session.id, S.RESOLVED, "bot tries to close it")

    assert store.load(session.id).state == S.ESCALATED
    assert StateTransition.objects.count() == 1


@pytest.mark.django_db
def test_asking_for_the_current_state_records_nothing(store, customer):
    session = store.start(customer.pk)
    result = store.transition(session.id, S.GREETING, "still greeting")
    assert result.recorded == () and StateTransition.objects.count() == 0


@pytest.mark.django_db
def test_redis_keeps_the_latest_fifty_transitions(store, customer, redis_conn):
    session = store.start(customer.pk)
    store.transition(session.id, S.COLLECTING_INFO, "start")
    for i in range(30):
        store.transition(session.id, S.PROCESSING, f"order {i}", progress=True)
        store.transition(session.id, S.COLLECTING_INFO, f"next {i}", progress=True)

    assert StateTransition.objects.count() == 61
    assert redis_conn.llen(SessionKeys.of(session.id).transitions) == 50
    assert store.load(session.id).transitions[-1].reason == "next 29"


@pytest.mark.django_db
def test_the_bot_may_not_reply_once_escalated_but_staff_may(store, customer):
    session = store.start(customer.pk)
    store.transition(session.id, S.ESCALATED, "customer asked for a person")

    with pytest.raises(BotMayNotReply):
        store.append(session.id, entry(Role.ASSISTANT, "I can help!"))
    store.append(session.id, entry(Role.USER, "hello?"))
    store.transition(session.id, S.HUMAN, "staff took over")
    staff = store.append(session.id, entry(Role.ASSISTANT, "This is Li from support."), by_staff=True)

    assert staff.metadata["by_staff"] is True
    assert [m.content for m in store.load(session.id).messages] == ["hello?", "This is Li from support."]
    assert not store.load(session.id).bot_may_reply


def ping_pong(store, conversation_id, round_trips: int, progress: bool = False):
    result = None
    for i in range(round_trips):
        result = store.transition(conversation_id, S.PROCESSING, f"try {i}", progress=progress)
        if result.state == S.ESCALATED:
            return result
        result = store.transition(conversation_id, S.COLLECTING_INFO, f"missing info {i}", progress=progress)
        if result.state == S.ESCALATED:
            return result
    return result


@pytest.mark.django_db
def test_a_ping_pong_within_the_threshold_is_not_escalated(store, customer):
    session = store.start(customer.pk)
    store.transition(session.id, S.COLLECTING_INFO, "order question")

    result = ping_pong(store, session.id, round_trips=3)

    assert result.state == S.COLLECTING_INFO and result.loop is None
    assert not Conversation.objects.get(pk=session.id).loop_flagged


@pytest.mark.django_db
def test_a_ping_pong_past_the_threshold_escalates_and_flags(store, customer):
    session = store.start(customer.pk)
    store.transition(session.id, S.COLLECTING_INFO, "order question")

    result = ping_pong(store, session.id, round_trips=10)

    assert result.state == S.ESCALATED and result.loop.cycles == 4
    assert [(r.from_state, r.to_state) for r in result.recorded] == [
        (S.PROCESSING, S.COLLECTING_INFO),
        (S.COLLECTING_INFO, S.ESCALATED),
    ]
    conversation = Conversation.objects.get(pk=session.id)
    assert conversation.loop_flagged and conversation.state == S.ESCALATED
    assert StateTransition.objects.filter(to_state=S.ESCALATED, reason__startswith="loop:").count() == 1
    loaded = store.load(session.id)
    assert loaded.loop_flagged and loaded.state == S.ESCALATED and not loaded.bot_may_reply
    assert StateTransition.objects.count() == 1 + 8 + 1


@pytest.mark.django_db
def test_a_ping_pong_that_makes_progress_is_not_a_loop(store, customer):
    session = store.start(customer.pk)
    store.transition(session.id, S.COLLECTING_INFO, "order question")

    result = ping_pong(store, session.id, round_trips=10, progress=True)

    assert result.state == S.COLLECTING_INFO


@pytest.mark.django_db
def test_three_orders_one_after_another_are_not_a_loop(store, customer):
    session = store.start(customer.pk)
    store.transition(session.id, S.COLLECTING_INFO, "first order")
    for n in range(3):
        order = f"ORD-2025-08{n:02d}"
        new_slot = store.update_info(session.id, {"order_id": order})
        store.transition(session.id, S.PROCESSING, f"look up {order}", progress=bool(new_slot))
        store.transition(session.id, S.CONFIRMING, "refund needs the customer's yes")
        store.transition(session.id, S.PROCESSING, "customer confirmed")  # the normal confirm step
        store.transition(session.id, S.RESOLVED, f"{order} refunded", progress=True)
        store.transition(session.id, S.COLLECTING_INFO, "customer has another order")

    assert store.load(session.id).state == S.COLLECTING_INFO
    assert not Conversation.objects.get(pk=session.id).loop_flagged


@pytest.mark.django_db
def test_a_confirm_step_repeated_without_progress_is_a_loop(store, customer):
    session = store.start(customer.pk)
    store.transition(session.id, S.PROCESSING, "refund request")
    result = None
    for _ in range(4):
        store.transition(session.id, S.CONFIRMING, "please confirm")
        result = store.transition(session.id, S.PROCESSING, "customer did not answer the question")

    assert result.state == S.ESCALATED
