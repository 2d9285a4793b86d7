"""Red team round 48 (session 31): part of an order asked without a number ("退坏的那个" of two cups, "退嗰盒" of
three boxes, "refund just the lid" of a grinder, one shoe of a pair) was read as the whole order, and "确认"/"yes"
made the whole refund."""

from __future__ import annotations

import pytest

from chat.agent import run_turn
from chat.answers import asks_for_some_items, in_simplified, opens_with_a_no
from chat.models import Refund
from tests.chat.demo_chat import demo_customer

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.mark.parametrize(
    ("who", "ask", "yes", "order"),
    [
        ("wang", "0817保温杯有一个坏了，退坏的那个", "确认", "ORD-2025-0817"),
        ("chen", "0942三盒绿茶入面有一盒烂咗，退嗰盒", "係", "ORD-2025-0942"),
        (
            "alice",
            "The grinder in 0924 arrived with a cracked lid. Refund just the lid please.",
            "yes",
            "ORD-2025-0924",
        ),
        (
            "alice",
            "My headphones order 0923 is missing the carrying case. Refund just the case.",
            "yes",
            "ORD-2025-0923",
        ),
        ("li", "0901跑步鞋有一只开胶了，就退那一只的钱", "确认", "ORD-2025-0901"),
    ],
)
def test_part_of_an_order_without_a_number_is_never_refunded_whole(who, ask, yes, order):
    user, conversation = demo_customer(who)

    reply = run_turn(user.pk, conversation, ask).reply
    run_turn(user.pk, conversation, yes)

    assert "部分退款" in reply or "partial refund" in reply, reply
    assert not Refund.objects.filter(order__number=order).exists(), reply


@pytest.mark.parametrize(
    ("text", "items", "part"),
    [
        ("保温杯有一个坏了，退坏的那个", [("保温杯", 2)], True),
        ("三盒绿茶入面有一盒烂咗，退嗰盒", [("绿茶", 3)], True),
        ("refund it, one of them is broken", [("Desk lamp", 2)], True),
        ("One of the water bottles leaks, refund the leaky one", [("Water bottle", 3)], True),
        ("Refund just the lid please.", [("Coffee grinder", 1)], True),
        ("只退充电盒", [("无线蓝牙耳机", 1)], True),
        ("the left earbud died, refund it", [("Noise-cancelling headphones", 1)], True),
        ("盖子裂了，退盖子的钱", [("Coffee grinder", 1)], True),
        ("refund the cost of the lid", [("Coffee grinder", 1)], True),
        # the whole: every unit, the item itself, or the order
        ("保温杯两个都坏了，退掉", [("保温杯", 2)], False),
        ("refund the order, both are broken", [("Desk lamp", 2)], False),
        ("refund just the grinder", [("Coffee grinder", 1)], False),
        ("只退耳机", [("无线蓝牙耳机", 1)], False),
        ("just refund it please", [("Tent", 1)], False),
        ("退保温杯的钱", [("保温杯", 2)], False),
        ("refund the cost of the grinder", [("Coffee grinder", 1)], False),
        ("我有一个问题，退0817", [("保温杯", 2)], False),
        ("退那个订单", [("保温杯", 2)], False),
        ("就退款吧", [("保温杯", 2)], False),
    ],
)
def test_some_of_the_items_said_without_a_number(text, items, part):
    assert asks_for_some_items(in_simplified(text), items) is part


@pytest.mark.parametrize(
    ("text", "no"),
    [
        ("no, use carrier pigeon instead", True),
        ("唔係，改成QQ啦", True),
        ("nah, what's the delivery date?", True),
        ("don't call me, email me", False),  # a request of its own
        ("no problem, go ahead", False),
        ("yes please", False),
    ],
)
def test_a_no_opening_whatever_follows(text, no):
    """SMS proposed, "no, use carrier pigeon instead" kept SMS waiting (the words after the no made it no
    cancellation), and the reminder asked for a "yes" that would have set SMS."""
    assert opens_with_a_no(in_simplified(text)) is no
