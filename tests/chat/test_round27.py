"""Red team, session 24 (round 27): "wheres my cofee grindr at?? ordered it like 3 days ago" tracked the desk lamps'
order (0880, the one of alice's earlier chat): "3 days ago" was read as "the order from last time" before the thing
named, mistyped, was looked for."""

from __future__ import annotations

import pytest

from chat.agent import run_turn
from tests.chat.demo_chat import demo_customer

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_thing_named_decides_over_a_time_it_was_ordered():
    user, conversation = demo_customer("alice")

    reply = run_turn(user.pk, conversation, "wheres my cofee grindr at?? ordered it like 3 days ago").reply

    assert "ORD-2025-0924" in reply and "ORD-2025-0880" not in reply, reply


def test_an_ok_asking_for_another_change_replaces_the_waiting_one():
    """Round 27: "ok and switch my contact channel to sms too" while a refund waited got only the reminder of the
    refund; the SMS request was lost. A loose "ok" confirms nothing, and the change it asks for is proposed in the
    waiting one's place (as "好的，另外联系方式改成短信" already was)."""
    from chat.models import PendingAction, Refund

    user, conversation = demo_customer("alice")
    run_turn(user.pk, conversation, "refund my headphones order")

    reply = run_turn(user.pk, conversation, "ok and switch my contact channel to sms too").reply

    waiting = PendingAction.objects.get(conversation_id=conversation, status=PendingAction.Status.PENDING)
    assert waiting.tool == "update_contact_channel", reply
    assert not Refund.objects.filter(order__number="ORD-2025-0923").exists()
