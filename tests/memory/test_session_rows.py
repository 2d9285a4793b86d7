"""The session store's plain-SQL statements read and write exactly what the ORM would."""

from __future__ import annotations

import uuid
from datetime import timedelta

import pytest
from django.db import transaction

from agentsite import clock
from memory.models import CompressionSummary, Conversation, ConversationMessage, StateTransition
from memory.session import rows
from memory.states import AgentState, Step

pytestmark = pytest.mark.django_db


@pytest.fixture
def conversation(customer) -> Conversation:
    now = clock.now()
    return Conversation.objects.create(
        customer=customer,
        state=AgentState.PROCESSING,
        collected_info={"order_numbers": ["ORD-2025-0816"], "城市": "上海"},
        created_at=now,
        updated_at=now,
        ended_at=now + timedelta(hours=1),
        last_seq=7,
        version=3,
        consolidated_seq=4,
        loop_flagged=True,
    )


def field_values(instance: Conversation) -> dict:
    return {f.attname: getattr(instance, f.attname) for f in Conversation._meta.concrete_fields}


def test_a_locked_conversation_is_the_row_the_orm_reads(conversation):
    with transaction.atomic():
        locked = rows.lock_conversation(conversation.pk)

    assert field_values(locked) == field_values(Conversation.objects.get(pk=conversation.pk))
    assert locked.collected_info["城市"] == "上海" and not locked._state.adding


def test_locking_a_conversation_that_does_not_exist_says_so():
    with transaction.atomic(), pytest.raises(Conversation.DoesNotExist):
        rows.lock_conversation(uuid.uuid4())


def test_saving_writes_the_named_fields_and_only_them(conversation):
    with transaction.atomic():
        locked = rows.lock_conversation(conversation.pk)
        locked.collected_info = {"order_numbers": ["ORD-2025-0001"], "note": "带 'quotes' and \"doubles\""}
        locked.state = AgentState.RESOLVED
        locked.version = 4
        locked.last_seq = 99  # changed but not named: must stay as it was
        rows.save_conversation(locked, {"collected_info", "state", "version"})

    saved = Conversation.objects.get(pk=conversation.pk)
    assert saved.collected_info == {"order_numbers": ["ORD-2025-0001"], "note": "带 'quotes' and \"doubles\""}
    assert (saved.state, saved.version, saved.last_seq) == (AgentState.RESOLVED, 4, 7)


def test_an_inserted_message_reads_back_through_the_orm(conversation):
    at = clock.now()
    metadata = {"tool_calls": [{"id": "c1", "name": "lookup_order", "arguments": "{}"}], "raw": "原文"}

    rows.insert_message(rows.MessageRow(conversation.pk, 8, "tool_call", "查一下订单", 5, at, metadata))

    message = ConversationMessage.objects.get(conversation=conversation, seq=8)
    assert (message.role, message.content, message.token_count, message.created_at) == (
        "tool_call",
        "查一下订单",
        5,
        at,
    )
    assert message.metadata == metadata


def test_transitions_are_inserted_and_read_back_oldest_first_as_loop_detection_wants(conversation):
    at = clock.now()
    moves = [
        (AgentState.GREETING, AgentState.COLLECTING_INFO, True),
        (AgentState.COLLECTING_INFO, AgentState.PROCESSING, False),
        (AgentState.PROCESSING, AgentState.COLLECTING_INFO, False),
    ]
    for from_state, to_state, progress in moves:
        rows.insert_transition(
            rows.TransitionRow(
                conversation.pk, conversation.customer_id, from_state.value, to_state.value, "why", progress, at
            )
        )

    assert rows.recent_steps(conversation.pk, 2) == [Step(*move) for move in moves[1:]]
    stored = StateTransition.objects.filter(conversation=conversation).order_by("id")
    assert [(t.customer_id, t.from_state, t.to_state) for t in stored] == [
        (conversation.customer_id, a.value, b.value) for a, b, _ in moves
    ]


def test_the_covered_sequence_is_the_last_summarised_message(conversation):
    assert rows.covered_seq(conversation.pk) == 0
    for first in (1, 11):
        CompressionSummary.objects.create(
            conversation=conversation,
            first_seq=first,
            last_seq=first + 9,
            content="…",
            tokens_before=100,
            tokens_after=10,
            created_at=clock.now(),
        )

    assert rows.covered_seq(conversation.pk) == 20


def test_batches_of_every_shape_write_what_they_carry_and_nothing_on_a_stale_version(conversation):
    """``commit_batch`` builds its statement once per shape: each shape below must still write its own rows."""
    at = clock.now()
    shapes = [  # (fields saved, messages, transitions), one after another on the same row
        ({"last_seq"}, 1, 0),
        ({"last_seq"}, 2, 1),
        ({"last_seq", "state"}, 1, 2),
        ({"last_seq"}, 1, 0),  # the first shape again, after others
        ({"collected_info", "last_seq", "state"}, 0, 1),
    ]
    version, seq, transitions = conversation.version, conversation.last_seq, 0
    for n, (names, messages, moves) in enumerate(shapes):
        row = Conversation.objects.get(pk=conversation.pk)
        row.state = [AgentState.PROCESSING, AgentState.RESOLVED][n % 2]
        row.collected_info = {"shape": n}
        row.last_seq, row.version = seq + messages, version + 1
        new_messages = [
            [row.pk, seq + i + 1, "user", f"shape {n} message {i}", 2, at, {"n": n}] for i in range(messages)
        ]
        new_moves = [[row.pk, row.customer_id, "processing", "resolved", f"shape {n}", False, at]] * moves

        saved = rows.commit_batch(row, version, {*names, "version"}, new_messages, new_moves)

        assert saved is not None and saved.version == version + 1 and saved.last_seq == seq + messages
        assert saved.state == (row.state if "state" in names else Conversation.objects.get(pk=row.pk).state)
        assert saved.collected_info == ({"shape": n} if "collected_info" in names else conversation.collected_info)
        version, seq, transitions = version + 1, seq + messages, transitions + moves
        written = ConversationMessage.objects.filter(conversation=row, content__startswith=f"shape {n} ")
        assert list(written.order_by("seq").values_list("seq", "content", "metadata")) == [
            (seq - messages + i + 1, f"shape {n} message {i}", {"n": n}) for i in range(messages)
        ]
        assert StateTransition.objects.filter(conversation=row).count() == transitions

    stale = Conversation.objects.get(pk=conversation.pk)
    stale.last_seq += 1
    message = [[stale.pk, stale.last_seq, "user", "too late", 2, at, {}]]
    assert rows.commit_batch(stale, version - 1, {"last_seq", "version"}, message, []) is None
    assert Conversation.objects.get(pk=conversation.pk).last_seq == seq
    assert not ConversationMessage.objects.filter(content="too late").exists()
