"""The session store's plain-SQL statements read and write exactly what the ORM would."""

from __future__ import annotations

import uuid
from datetime import timedelta

import pytest
from django.db import transaction

from agentsite import clock
from memory import session_rows as rows
from memory.models import CompressionSummary, Conversation, ConversationMessage, StateTransition
from memory.states import AgentState, Step

pytestmark = pytest.mark.django_db


@pytest.fixture
def conversation(customer) -> Conversation:
    now = clock.now()
    return Conversation.objects.create(
        customer=customer, state=AgentState.PROCESSING, collected_info={"order_numbers": ["ORD-2025-0816"], "城市": "上海"},
        created_at=now, updated_at=now, ended_at=now + timedelta(hours=1), last_seq=7, version=3, consolidated_seq=4,
        loop_flagged=True,
    )  # fmt: skip


def field_values(instance: Conversation) -> dict:
    return {f.attname: getattr(instance, f.attname) for f in Conversation._meta.concrete_fields}


def test_a_locked_conversation_is_the_row_the_orm_reads(conversation):
    with transaction.atomic():
        locked, steps = rows.lock_conversation(conversation.pk, steps=5)

    assert field_values(locked) == field_values(Conversation.objects.get(pk=conversation.pk))
    assert locked.collected_info["城市"] == "上海" and not locked._state.adding
    assert steps == []


def test_locking_a_conversation_that_does_not_exist_says_so():
    with transaction.atomic(), pytest.raises(Conversation.DoesNotExist):
        rows.lock_conversation(uuid.uuid4(), steps=5)


def test_the_lock_returns_the_latest_transitions_oldest_first(conversation, customer):
    moves = [
        (AgentState.GREETING, AgentState.COLLECTING_INFO, True),
        (AgentState.COLLECTING_INFO, AgentState.PROCESSING, False),
        (AgentState.PROCESSING, AgentState.COLLECTING_INFO, False),
    ]
    for from_state, to_state, progress in moves:
        StateTransition.objects.create(conversation=conversation, customer=customer, from_state=from_state,
                                       to_state=to_state, progress=progress, created_at=clock.now())  # fmt: skip
    other = Conversation.objects.create(customer=customer)
    StateTransition.objects.create(conversation=other, customer=customer, from_state=AgentState.GREETING,
                                   to_state=AgentState.ESCALATED, created_at=clock.now())  # fmt: skip

    with transaction.atomic():
        _, steps = rows.lock_conversation(conversation.pk, steps=2)

    assert steps == [Step(*move) for move in moves[1:]]


def test_a_batch_writes_its_messages_transitions_and_the_named_fields_in_one_statement(
    conversation, django_assert_num_queries
):
    at = clock.now()
    metadata = {"tool_calls": [{"id": "c1", "name": "lookup_order", "arguments": "{}"}], "raw": "带 'quotes'"}
    messages = [
        (conversation.pk, 8, "user", "我的订单 ORD-2025-0001", 9, at, {}),
        (conversation.pk, 9, "tool_call", "查一下订单", 5, at, metadata),
    ]
    transitions = [
        (conversation.pk, conversation.customer_id, "processing", "resolved", "answered", False, at),
        (conversation.pk, conversation.customer_id, "resolved", "collecting_info", "the customer wrote", True, at),
    ]
    with transaction.atomic():
        locked, _ = rows.lock_conversation(conversation.pk, steps=5)
        locked.collected_info = {"order_numbers": ["ORD-2025-0001"], "note": 'a "double" quote'}
        locked.state, locked.version, locked.last_seq = AgentState.COLLECTING_INFO, 4, 9
        locked.loop_flagged = False  # changed but not named: must stay as it was
        with django_assert_num_queries(1):
            rows.write_batch(locked, {"collected_info", "state", "version", "last_seq"}, messages, transitions)

    saved = Conversation.objects.get(pk=conversation.pk)
    assert saved.collected_info == {"order_numbers": ["ORD-2025-0001"], "note": 'a "double" quote'}
    assert (saved.state, saved.version, saved.last_seq, saved.loop_flagged) == ("collecting_info", 4, 9, True)
    stored = ConversationMessage.objects.filter(conversation=conversation).order_by("seq")
    assert [(m.seq, m.role, m.content, m.token_count, m.created_at, m.metadata) for m in stored] == [
        (seq, role, content, tokens, created, meta) for _, seq, role, content, tokens, created, meta in messages
    ]
    recorded = StateTransition.objects.filter(conversation=conversation).order_by("id")
    assert [(t.customer_id, t.from_state, t.to_state, t.reason, t.progress) for t in recorded] == [
        row[1:6] for row in transitions
    ]


def test_a_batch_without_rows_only_updates_the_conversation(conversation):
    with transaction.atomic():
        locked, _ = rows.lock_conversation(conversation.pk, steps=5)
        locked.ended_at = None
        rows.write_batch(locked, {"ended_at"})

    assert Conversation.objects.get(pk=conversation.pk).ended_at is None
    assert not ConversationMessage.objects.filter(conversation=conversation).exists()


def test_the_covered_sequence_is_the_last_summarised_message(conversation):
    assert rows.covered_seq(conversation.pk) == 0
    for first in (1, 11):
        CompressionSummary.objects.create(
            conversation=conversation, first_seq=first, last_seq=first + 9, content="…", tokens_before=100,
            tokens_after=10, created_at=clock.now(),
        )  # fmt: skip

    assert rows.covered_seq(conversation.pk) == 20
