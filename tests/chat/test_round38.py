"""Red team, session 28 (round 38, on 24d7d02).

- wang "只要0816还没发货，就帮我把通知关掉" and li "唔該幫我將通知設定改做關閉，如果0901仲未送到嘅話。" were proposed
  without their conditions; "确认" muted both (the application read 如果 only with 就/才/再 after it, and 嘅話 only
  in traditional characters, while it reads answers in simplified ones).
- bob "I only want my money back for one of the three water bottles on 0932, one leaks." got the full $45 refund
  proposed; "yes" requested it. Part of an order's items is part of its money.
- "Yes, please — but only once my backpack arrives." got "I didn't quite understand": a yes with a condition is
  no yes, and the reply says why while the change waits.
- li "係" (yes) to a mute proposed was asked for a yes again.
- chen "0943可以退款吗？0942呢？" answered 0942's status, not what was asked of 0943."""

from __future__ import annotations

import pytest

from chat.agent import run_turn
from chat.models import CustomerProfile, PendingAction, Refund
from tests.chat.demo_chat import demo_customer

pytestmark = pytest.mark.django_db(transaction=True)


def _waiting(user) -> list[PendingAction]:
    return list(PendingAction.objects.filter(customer=user, status="pending"))


@pytest.mark.parametrize(
    ("who", "text", "yes"),
    [
        ("wang", "只要0816还没发货，就帮我把通知关掉", "确认"),
        ("wang", "帮我把通知关掉，只要0816还没发货就行", "确认"),
        ("li", "唔該幫我將通知設定改做關閉，如果0901仲未送到嘅話。", "確認"),
        ("li", "一旦0901到了就帮我把通知关了", "确认"),
    ],
)
def test_a_change_asked_on_a_chinese_condition_is_not_made(who, text, yes):
    user, conversation = demo_customer(who)

    reply = run_turn(user.pk, conversation, text).reply
    run_turn(user.pk, conversation, yes)

    assert CustomerProfile.objects.get(user=user).notification_preference == "on", reply
    assert "条件" in reply and _waiting(user) == [], reply


@pytest.mark.parametrize(
    ("who", "text", "order"),
    [
        ("bob", "I only want my money back for one of the three water bottles on 0932, one leaks.", "ORD-2025-0932"),
        ("bob", "refund one water bottle from 0932", "ORD-2025-0932"),
        ("wang", "0817只退一个保温杯", "ORD-2025-0817"),
    ],
)
def test_a_refund_of_some_of_an_orders_items_is_never_the_whole(who, text, order):
    user, conversation = demo_customer(who)

    reply = run_turn(user.pk, conversation, text).reply
    run_turn(user.pk, conversation, "yes" if who == "bob" else "确认")

    assert not Refund.objects.filter(order__number=order).exists(), reply
    assert "partial refund" in reply or "部分退款" in reply, reply


def test_some_of_the_items_asked_while_the_full_refund_waits_drops_it():
    user, conversation = demo_customer("bob")
    run_turn(user.pk, conversation, "refund 0932 please")

    reply = run_turn(user.pk, conversation, "just one of the three bottles").reply
    run_turn(user.pk, conversation, "yes")

    assert not Refund.objects.filter(order__number="ORD-2025-0932").exists(), reply
    assert "partial refund" in reply, reply


def test_the_whole_order_with_all_its_items_is_still_proposed():
    user, conversation = demo_customer("bob")

    reply = run_turn(user.pk, conversation, "please refund all three water bottles on 0932").reply

    assert [a.tool for a in _waiting(user)] == ["request_refund"] and "$45.00" in reply, reply


@pytest.mark.parametrize(
    ("who", "ask", "yes"),
    [
        ("bob", "refund the backpack 0931", "Yes, please — but only once my backpack arrives."),
        ("li", "帮我把通知关掉", "好，但係等0901到咗先"),
    ],
)
def test_a_yes_with_a_condition_is_no_yes_and_the_reply_says_why(who, ask, yes):
    user, conversation = demo_customer(who)
    run_turn(user.pk, conversation, ask)

    reply = run_turn(user.pk, conversation, yes).reply

    assert ("condition" in reply or "条件" in reply) and len(_waiting(user)) == 1, reply
    assert not Refund.objects.filter(order__number="ORD-2025-0931").exists(), reply
    assert CustomerProfile.objects.get(user=user).notification_preference == "on", reply


@pytest.mark.parametrize("yes", ["係", "系", "是"])
def test_a_one_word_chinese_yes_confirms_a_setting(yes):
    user, conversation = demo_customer("li")
    run_turn(user.pk, conversation, "帮我把通知关掉")

    reply = run_turn(user.pk, conversation, yes).reply

    assert CustomerProfile.objects.get(user=user).notification_preference == "mute", reply


def test_another_order_asked_the_same_is_asked_the_same():
    user, conversation = demo_customer("chen")

    reply = run_turn(user.pk, conversation, "0943可以退款吗？0942呢？").reply

    assert "ORD-2025-0943" in reply and "无法退款" in reply, reply
    assert "ORD-2025-0942" in reply and "申请退款" in reply, reply


@pytest.mark.parametrize(
    ("text", "items", "some"),
    [
        ("two of the bottles", [("Water bottle", 3)], True),
        ("refund one water bottle", [("Water bottle", 3)], True),
        ("退其中两瓶", [("绿茶", 3)], True),
        ("只要退一盒", [("绿茶", 3)], True),
        ("退返兩樽", [("绿茶", 3)], True),
        ("保温杯退一个", [("保温杯", 2)], True),
        ("refund all three bottles", [("Water bottle", 3)], False),
        ("绿茶退三盒", [("绿茶", 3)], False),
        ("refund one of the orders", [("Water bottle", 3)], False),
        ("退一个订单", [("保温杯", 2)], False),
        ("refund the tent, just one", [("Tent", 1)], False),
    ],
)
def test_some_of_an_orders_items_are_read(text, items, some):
    from chat.answers import asks_for_some_items, in_simplified

    assert asks_for_some_items(in_simplified(text), items) is some
