"""Red team, session 26 (round 32, on 81ec7f1): several requests in one message. "两件事：耳机0816申请退款，另外把通知打开"
and "我想把键盘那单ORD-2025-0790退款，另外把保温杯0817也退了" lost a request; "Which is my most expensive order, and
when did my cheapest one ship?" tracked neither order."""

from __future__ import annotations

import pytest

from chat.agent import run_turn
from chat.models import PendingAction
from tests.chat.demo_chat import demo_customer

pytestmark = pytest.mark.django_db(transaction=True)


def test_two_refunds_each_by_its_number_are_both_asked():
    user, conversation = demo_customer("wang")

    run_turn(user.pk, conversation, "我想把键盘那单ORD-2025-0790退款，另外把保温杯0817也退了")

    waiting = PendingAction.objects.filter(customer=user, status__in=["pending", "queued"])
    assert {a.arguments["order_number"] for a in waiting} == {"ORD-2025-0790", "ORD-2025-0817"}


def test_two_orders_by_rank_in_one_question_are_each_answered():
    user, conversation = demo_customer("bob")

    reply = run_turn(
        user.pk, conversation, "Which is my most expensive order, and when did my cheapest one ship?"
    ).reply

    assert "ORD-2025-0870" in reply and "ORD-2025-0932" in reply and "ORD-2025-0931" not in reply, reply
