"""Red team, session 28 (round 39, on 6c2f590).

- bob "Hi, on order 0932 I only want a refund for two of the water bottles, not the whole thing." got the full $45
  proposed, and "yes" requested it: "not the whole thing" was read as asking for the whole.
- chen "0942的绿茶只要退一盒" got the reply for a condition (只要 read as "as long as"); "0942那三盒绿茶，退其中两
  盒", "0942退三分之一" were not understood.
- li "0902退款，前提是还没发货" got 0902's status: the condition was not read.
- Several-part questions answered in part: "我的默认地址、通知方式是什么？…" (the address), "…0901和0850分别怎么样了？"
  (0850), "My notification setting and contact channel please, and where are 0923 and 0924?" (the channel).
- bob "and 0870?" after a question about 0931 was not understood."""

from __future__ import annotations

import pytest

from chat.agent import run_turn
from chat.models import PendingAction, Refund
from tests.chat.demo_chat import demo_customer

pytestmark = pytest.mark.django_db(transaction=True)


def _waiting(user) -> list[PendingAction]:
    return list(PendingAction.objects.filter(customer=user, status="pending"))


def test_a_part_said_not_to_be_the_whole_is_never_the_whole():
    user, conversation = demo_customer("bob")

    reply = run_turn(
        user.pk,
        conversation,
        "Hi, on order 0932 I only want a refund for two of the water bottles, not the whole thing.",
    ).reply
    run_turn(user.pk, conversation, "yes")

    assert not Refund.objects.filter(order__number="ORD-2025-0932").exists(), reply
    assert "partial refund" in reply, reply


@pytest.mark.parametrize("text", ["0942的绿茶只要退一盒", "0942那三盒绿茶，退其中两盒", "0942退三分之一"])
def test_part_of_an_orders_items_or_money_in_chinese_offers_a_colleague(text):
    user, conversation = demo_customer("chen")

    reply = run_turn(user.pk, conversation, text).reply

    assert "部分退款" in reply and "条件" not in reply and _waiting(user) == [], reply


def test_a_condition_after_the_request_is_read():
    user, conversation = demo_customer("li")

    reply = run_turn(user.pk, conversation, "0902退款，前提是还没发货").reply
    run_turn(user.pk, conversation, "确认")

    assert "条件" in reply and not Refund.objects.filter(order__number="ORD-2025-0902").exists(), reply


@pytest.mark.parametrize(
    ("who", "text", "said"),
    [
        (
            "chen",
            "我的默认地址、通知方式是什么？0941到哪了，0943什么状态？",
            ["人民南路", "邮件", "JD1122334455", "待付款"],
        ),
        (
            "li",
            "我的通知设置和联系方式是什么？0901和0850分别怎么样了？",
            ["开启", "邮件", "ORD-2025-0901", "ORD-2025-0850"],
        ),
        (
            "alice",
            "My notification setting and contact channel please, and where are 0923 and 0924?",
            ["turned on", "email", "ORD-2025-0923", "1Z999AA10123456784"],
        ),
    ],
)
def test_several_part_questions_are_answered_in_full(who, text, said):
    user, conversation = demo_customer(who)

    reply = run_turn(user.pk, conversation, text).reply

    assert all(words in reply for words in said), reply


def test_and_another_order_asks_after_it():
    user, conversation = demo_customer("bob")
    run_turn(user.pk, conversation, "What's my default address and notification setting? And what about 0931?")

    reply = run_turn(user.pk, conversation, "and 0870?").reply

    assert "ORD-2025-0870" in reply and "delivered" in reply, reply


@pytest.mark.parametrize(
    ("text", "whole"),
    [
        ("refund the whole thing", True),
        ("I want the full amount, not half", True),
        ("two of the bottles, not the whole thing", False),
        ("I don't want everything refunded", False),
        ("不要全额退款", False),
    ],
)
def test_the_whole_said_not_to_be_asked_is_not_asked(text, whole):
    from chat.answers import asks_for_the_whole

    assert asks_for_the_whole(text) is whole
