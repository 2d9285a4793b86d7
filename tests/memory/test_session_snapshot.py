"""A batch decided on the session a turn loaded: one statement when nobody wrote meanwhile, the locked path when someone did."""

from __future__ import annotations

import pytest

from memory.models import Conversation, ConversationMessage, StateTransition
from memory.session import BotMayNotReply, SessionKeys, SessionStore, StoredMessage, observing_transitions
from memory.session.hot import encode_message
from memory.states import AgentState
from memory.working import Role
from tests.factories import entry

pytestmark = pytest.mark.django_db


def _first_words(sent: list[str]) -> list[str]:
    return [" ".join(statement.split()[:4]) for statement in sent]


def _hot_equals_durable(store: SessionStore, conversation_id) -> None:
    hot = store.load(conversation_id, recent=100)
    durable = store.rebuild(conversation_id)
    assert hot.source == "redis"
    for name in ("messages", "state", "collected_info", "transitions", "last_seq", "version", "loop_flagged"):
        assert getattr(hot, name) == getattr(durable, name), name


def _customer_writes(store: SessionStore, conversation_id, text: str) -> None:
    store.append(conversation_id, entry(Role.USER, text))
    store.update_info(conversation_id, {"order_numbers": ["ORD-2025-0001"]})
    store.transition(
        conversation_id,
        AgentState.COLLECTING_INFO,
        "the customer wrote",
        progress=True,
        only_from={AgentState.GREETING},
    )


def test_a_batch_on_an_unchanged_session_is_one_statement_and_writes_what_the_locked_batch_would(
    store, customer, sent_sql
):
    snapshot, locked = store.start(customer.pk), store.start(customer.pk)
    session = store.load(snapshot.id)
    sent_sql.clear()

    with observing_transitions() as seen, store.batch(snapshot.id, expected=session) as row:
        _customer_writes(store, snapshot.id, "Where is my parcel?")
    statements = _first_words(sent_sql)
    assert [s for s in statements if not s.startswith("SELECT")] == ["WITH saved AS (UPDATE"], statements
    with store.batch(locked.id):
        _customer_writes(store, locked.id, "Where is my parcel?")

    for name in ("state", "collected_info", "last_seq", "version", "loop_flagged", "consolidated_seq"):
        assert getattr(row, name) == getattr(Conversation.objects.get(pk=locked.id), name), name
    assert row.version == session.version + 1 and row.state == AgentState.COLLECTING_INFO
    assert [t.to_state for t in seen] == [AgentState.COLLECTING_INFO]
    for model in (ConversationMessage, StateTransition):
        mine = model.objects.filter(conversation_id=snapshot.id).values_list(*_compared(model))
        theirs = model.objects.filter(conversation_id=locked.id).values_list(*_compared(model))
        assert list(mine) == list(theirs) and mine
    _hot_equals_durable(store, snapshot.id)


def _compared(model) -> tuple[str, ...]:
    if model is ConversationMessage:
        return ("seq", "role", "content", "token_count", "metadata")
    return ("from_state", "to_state", "reason", "progress")


def test_a_batch_that_lost_the_race_is_made_again_under_the_row_lock(store, customer):
    conversation = store.start(customer.pk)
    session = store.load(conversation.id)
    store.append(conversation.id, entry(Role.USER, "written meanwhile, from another tab"), by_staff=False)

    with observing_transitions() as seen, store.batch(conversation.id, expected=session) as row:
        _customer_writes(store, conversation.id, "Where is my parcel?")

    messages = list(ConversationMessage.objects.filter(conversation_id=conversation.id).order_by("seq"))
    assert [(m.seq, m.content) for m in messages] == [
        (1, "written meanwhile, from another tab"),
        (2, "Where is my parcel?"),
    ]
    assert row.last_seq == 2 and row.state == AgentState.COLLECTING_INFO  # the replayed outcome
    assert StateTransition.objects.filter(conversation_id=conversation.id).count() == 1
    assert [t.to_state for t in seen] == [AgentState.COLLECTING_INFO]
    _hot_equals_durable(store, conversation.id)


def test_a_reply_after_a_person_took_over_meanwhile_is_refused_and_stores_nothing(store, customer):
    conversation = store.start(customer.pk)
    store.transition(conversation.id, AgentState.COLLECTING_INFO, "asked")
    session = store.load(conversation.id)
    store.transition(conversation.id, AgentState.ESCALATED, "a person was asked for")

    with pytest.raises(BotMayNotReply), store.batch(conversation.id, expected=session):
        store.append(conversation.id, entry(Role.ASSISTANT, "Here is your answer"))

    assert not ConversationMessage.objects.filter(conversation_id=conversation.id).exists()
    _hot_equals_durable(store, conversation.id)


def test_a_lost_hot_copy_is_rebuilt_after_the_statement(store, customer, redis_conn):
    conversation = store.start(customer.pk)
    session = store.load(conversation.id)
    redis_conn.delete(*SessionKeys.of(conversation.id).all())

    with store.batch(conversation.id, expected=session):
        _customer_writes(store, conversation.id, "Where is my parcel?")

    assert store.load(conversation.id).messages[-1].content == "Where is my parcel?"
    _hot_equals_durable(store, conversation.id)


def test_the_next_batch_can_start_from_the_row_the_last_one_left(store, customer, sent_sql):
    conversation = store.start(customer.pk)
    with store.batch(conversation.id, expected=store.load(conversation.id)) as row:
        _customer_writes(store, conversation.id, "Where is my parcel?")
    sent_sql.clear()

    with store.batch(conversation.id, expected=row) as after:
        store.append(conversation.id, entry(Role.ASSISTANT, "It ships tomorrow."))
        store.transition(conversation.id, AgentState.PROCESSING, "answering", progress=False)

    assert [s for s in _first_words(sent_sql) if s.startswith("WITH")] == ["WITH saved AS (UPDATE"]
    assert after.last_seq == 2 and after.state == AgentState.PROCESSING and after.version == row.version + 1
    _hot_equals_durable(store, conversation.id)


def test_a_hot_copy_that_moved_on_meanwhile_is_rebuilt_not_written_over(store, customer, redis_conn):
    """The statement won, but Redis already holds a later write (another writer's, landed first): start over."""
    conversation = store.start(customer.pk)
    session = store.load(conversation.id)
    keys = SessionKeys.of(conversation.id)
    later = StoredMessage(1, Role.USER, "a message PostgreSQL never had", 5, session.created_at, {})
    redis_conn.rpush(keys.messages, encode_message(later))
    redis_conn.hset(keys.hash, "version", session.version + 1)  # what a later write's MULTI/EXEC left

    with store.batch(conversation.id, expected=session):
        _customer_writes(store, conversation.id, "Where is my parcel?")

    _hot_equals_durable(store, conversation.id)


def _ping_pong_in_batches(store: SessionStore, conversation_id, round_trips: int):
    """Each move its own batch, decided on a snapshot: the session loaded, or the row the last batch left."""
    result = None
    for i in range(round_trips):
        with store.batch(conversation_id, expected=store.load(conversation_id)) as row:
            result = store.transition(conversation_id, AgentState.PROCESSING, f"try {i}", progress=False)
        if result.state == AgentState.ESCALATED:
            return result
        with store.batch(conversation_id, expected=row):
            result = store.transition(conversation_id, AgentState.COLLECTING_INFO, f"missing {i}", progress=False)
        if result.state == AgentState.ESCALATED:
            return result
    return result


def test_loop_detection_on_a_snapshot_reads_the_transitions_it_carries(store, customer, sent_sql):
    conversation = store.start(customer.pk)
    store.transition(conversation.id, AgentState.COLLECTING_INFO, "order question")
    sent_sql.clear()

    result = _ping_pong_in_batches(store, conversation.id, round_trips=10)

    assert not [s for s in sent_sql if s.startswith('SELECT "from_state"')], sent_sql  # loop detection's own read
    # Where the locked path escalates too (tests/memory/test_states.py): the fourth round trip.
    assert result.state == AgentState.ESCALATED and result.loop.cycles == 4
    assert StateTransition.objects.filter(conversation_id=conversation.id).count() == 1 + 8 + 1
    assert Conversation.objects.get(pk=conversation.id).loop_flagged
    _hot_equals_durable(store, conversation.id)


def test_a_batch_that_lost_the_race_detects_a_loop_in_what_was_written_meanwhile(store, customer):
    """The snapshot's transitions show no loop; the ones written meanwhile complete one, and count."""
    conversation = store.start(customer.pk)
    store.transition(conversation.id, AgentState.COLLECTING_INFO, "order question")
    store.transition(conversation.id, AgentState.PROCESSING, "try")
    session = store.load(conversation.id)
    for i in range(3):  # another writer: three more round trips, back in processing
        store.transition(conversation.id, AgentState.COLLECTING_INFO, f"missing {i}")
        store.transition(conversation.id, AgentState.PROCESSING, f"try {i}")

    with store.batch(conversation.id, expected=session) as row:
        store.transition(conversation.id, AgentState.COLLECTING_INFO, "missing again")

    assert row.state == AgentState.ESCALATED and row.loop_flagged
    assert StateTransition.objects.filter(conversation_id=conversation.id, reason__startswith="loop:").count() == 1
    _hot_equals_durable(store, conversation.id)


def test_the_row_a_replayed_batch_left_carries_no_transitions_so_the_next_batch_reads_them(store, customer, sent_sql):
    conversation = store.start(customer.pk)
    with store.batch(conversation.id, expected=store.load(conversation.id)) as first:
        store.transition(conversation.id, AgentState.COLLECTING_INFO, "order question")
    store.transition(conversation.id, AgentState.PROCESSING, "another writer")  # meanwhile, elsewhere
    with store.batch(conversation.id, expected=first) as replayed:  # decided on `first`, then made again
        store.append(conversation.id, entry(Role.USER, "still there?"))
    sent_sql.clear()

    with store.batch(conversation.id, expected=replayed):
        store.transition(conversation.id, AgentState.COLLECTING_INFO, "missing info")

    assert [s for s in sent_sql if s.startswith('SELECT "from_state"')], sent_sql
    steps = [(t.from_state, t.to_state) for t in store.load(conversation.id).transitions]
    assert steps == [
        (AgentState.GREETING, AgentState.COLLECTING_INFO),
        (AgentState.COLLECTING_INFO, AgentState.PROCESSING),
        (AgentState.PROCESSING, AgentState.COLLECTING_INFO),
    ]
    _hot_equals_durable(store, conversation.id)
