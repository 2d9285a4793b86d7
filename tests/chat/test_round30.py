"""Red team, session 25 (round 30, on a3703ce): a correction of the order to refund, in words the model did not
read, kept the order set aside waiting, and the next "确认"/"confirm" refunded it (6 of 10 tries, 4 customers).
The model now reads these corrections; and whatever it reads, an order set aside that still waits after the reply
(held, or proposed again) is dropped with a notice, so no yes meant for another order confirms it."""

from __future__ import annotations

import pytest

from chat.agent import run_turn
from chat.models import PendingAction, Refund
from tests.chat.demo_chat import demo_customer

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.mark.parametrize(
    ("who", "first", "correction", "meant", "set_aside"),
    [
        ("chen", "空气净化器那单我想退款", "我说错了，是绿茶那一单", "ORD-2025-0942", "ORD-2025-0941"),
        ("wang", "耳机那单我要退款", "我说错了，是键盘那一单", "ORD-2025-0790", "ORD-2025-0816"),
        (
            "wang",
            "我想把机械键盘那单退款",
            "啊不对我说错了，不是键盘，是保温杯那一单",
            "ORD-2025-0817",
            "ORD-2025-0790",
        ),
        (
            "bob",
            "Refund the backpack please",
            "sorry, I said the wrong one — it's the water bottles",
            "ORD-2025-0932",
            "ORD-2025-0931",
        ),
        (
            "bob",
            "I want my money back for the tent",
            "hold on, I mixed them up - the backpack is the one I want refunded",
            "ORD-2025-0931",
            "ORD-2025-0870",
        ),
        (
            "wang",
            "保温杯那单能退钱吗？我要退",
            "sorry not this one, 是那个已经签收的键盘",
            "ORD-2025-0790",
            "ORD-2025-0817",
        ),
    ],
)
def test_a_correction_of_the_order_proposes_the_one_meant_and_a_yes_refunds_only_it(
    who, first, correction, meant, set_aside
):
    user, conversation = demo_customer(who)
    run_turn(user.pk, conversation, first)

    reply = run_turn(user.pk, conversation, correction).reply
    run_turn(user.pk, conversation, "确认" if who in ("chen", "wang") else "yes")

    assert Refund.objects.filter(order__number=meant).exists(), reply
    assert not Refund.objects.filter(order__number=set_aside).exists(), reply


def test_an_order_set_aside_that_the_reply_did_not_replace_waits_no_longer():
    """The model finds no order of "紫色那个"; the air purifier's refund, set aside, is dropped and said so."""
    user, conversation = demo_customer("chen")
    run_turn(user.pk, conversation, "空气净化器那单我想退款")

    reply = run_turn(user.pk, conversation, "我说错了，是紫色那个").reply
    run_turn(user.pk, conversation, "确认")

    assert "您说的是另一个订单" in reply, reply
    assert not PendingAction.objects.filter(customer=user, status=PendingAction.Status.PENDING).exists()
    assert not Refund.objects.filter(order__number="ORD-2025-0941").exists()


def test_a_no_then_another_kind_of_change_after_a_dash_asks_that_change():
    """bob: "Please turn off my notifications" → "Actually no, keep them on — just send them by SMS instead of
    email" dropped the mute and the SMS request with it."""
    user, conversation = demo_customer("bob")
    run_turn(user.pk, conversation, "Please turn off my notifications")

    reply = run_turn(user.pk, conversation, "Actually no, keep them on — just send them by SMS instead of email").reply

    waiting = PendingAction.objects.get(customer=user, status=PendingAction.Status.PENDING)
    assert waiting.tool == "update_contact_channel" and waiting.arguments["channel"] == "sms", reply
    assert "cancelled" in reply
