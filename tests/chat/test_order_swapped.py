"""A no that picks another order for the change proposed asks that change of that order.

Red team, session 23: after "refund the tent", "yes — wait no, the water bottles one, not the tent" dropped the
tent's refund and never proposed the bottles'; "no, the water bottles one" and "不对，是耳机那单" did the same,
"wrong order, i meant the backpack" got "No problem at all! What can I help you with?", and "不是瑜伽垫，是跑步鞋"
proposed the yoga mat again. The customer named the order they meant: its refund is proposed in the place of the
one set aside, and nothing moves before their yes.
"""

from __future__ import annotations

import pytest

from chat.agent import run_turn
from chat.answers import picks_another
from chat.models import PendingAction, Refund
from tests.chat.demo_chat import demo_customer

TENT = {"order_number": "ORD-2025-0870", "summary": "request a refund of $320.00 for order ORD-2025-0870 (Tent)"}


@pytest.mark.parametrize(
    ("text", "picks"),
    [
        ("no, the water bottles one, not the tent", True),
        ("no, the backpack", True),
        ("nope, the first one", True),
        ("no I meant the backpack", True),
        ("不对，是耳机那单", True),
        ("不是这个，我要退的是耳机", True),
        ("no, the tent one", False),  # the one proposed: a no
        ("no, not that one", False),
        ("no, cancel my whole order", False),
        ("no, leave the order as is", False),
        ("no, the price is too high", False),
        ("不对，是我搞错了，不用退了", False),
        ("no I mean it", False),
    ],
)
def test_a_no_picks_another_order_only_by_naming_one(text, picks):
    assert picks_another(text, TENT) is picks


def test_a_setting_has_no_other_order_to_pick():
    assert not picks_another("no, the water bottles one", {"channel": "sms", "summary": "contact you by SMS"})


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize(
    ("username", "ask", "swap", "meant", "set_aside"),
    [
        ("bob", "refund the tent", "yes — wait no, the water bottles one, not the tent", "0932", "0870"),
        ("bob", "refund the tent", "no, the backpack", "0931", "0870"),
        ("bob", "refund the tent", "wrong order, i meant the backpack", "0931", "0870"),
        ("bob", "refund the tent", "no i meant the $45 one", "0932", "0870"),
        ("wang", "保温杯那单退款", "不对，是耳机那单", "0816", "0817"),
        ("wang", "保温杯那单退款", "不是这个，我要退的是耳机", "0816", "0817"),
        ("wang", "保温杯那单退款", "搞错了，是耳机", "0816", "0817"),
        ("li", "瑜伽垫退款", "不是瑜伽垫，是跑步鞋", "0901", "0902"),
        ("chen", "绿茶那单退款", "不是绿茶，是净化器那个", "0941", "0942"),  # round 25: looked up, tea left waiting
        # red team, round 24: "Sorry, I didn't quite understand."
        (
            "alice",
            "hi i want my money back for the coffee grinder",
            "actually no, do the headphones instead",
            "0923",
            "0924",
        ),
    ],
)
def test_the_order_picked_instead_has_the_change_proposed(username, ask, swap, meant, set_aside):
    user, conversation = demo_customer(username)
    refunds = Refund.objects.filter(order__customer=user).count()
    run_turn(user.pk, conversation, ask)

    reply = run_turn(user.pk, conversation, swap).reply

    waiting = PendingAction.objects.get(conversation_id=conversation, status=PendingAction.Status.PENDING)
    assert (waiting.tool, waiting.arguments["order_number"]) == ("request_refund", f"ORD-2025-{meant}"), reply
    assert f"ORD-2025-{meant}" in reply
    dropped = PendingAction.objects.get(conversation_id=conversation, arguments__order_number=f"ORD-2025-{set_aside}")
    assert dropped.status == PendingAction.Status.CANCELLED
    assert Refund.objects.filter(order__customer=user).count() == refunds  # nothing moves before a yes


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize(
    ("username", "ask", "no"),
    [
        ("bob", "refund the tent", "no, the tent one"),
        ("bob", "refund the tent", "no, leave the order as is"),
        ("wang", "保温杯那单退款", "不对，是我搞错了，不用退了"),
    ],
)
def test_a_no_naming_no_other_order_drops_the_change(username, ask, no):
    user, conversation = demo_customer(username)
    run_turn(user.pk, conversation, ask)

    run_turn(user.pk, conversation, no)

    assert not PendingAction.objects.filter(conversation_id=conversation, status=PendingAction.Status.PENDING)
