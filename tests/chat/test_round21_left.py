"""Round 21's leftovers and their classes: orders named by what they cost (also in Chinese numerals), by a thing
typed with a slip beside one set aside, by their place in the list just shown, and requests cut short to an order.

- "Did I ever get a refund on the 320 dollar thing?" was fine; "whats the status of the 45 dollar order?" answered
  the tent ($320), and "一百七十八块的那单到哪了" was "no such item".
- "Refund the water bottles. Oh wait, I meant the bakcpack, not the bottles." proposed the bottles' refund in the
  round (not reproduced here); "refund not the water bottles but the backpack" does, and "不是跑步鞋，是瑜伽垫" asked which.
- "第二个订单是什么？" after the list answered nothing; "and the water bottles?" and "那保温杯呢？" after a status were
  not understood.
- "…So can you confirm the refund on the backpack is done?" proposed the refund it asks after.
"""

from __future__ import annotations

import pytest

from chat.agent import run_turn
from chat.models import PendingAction
from tests.chat.demo_chat import demo_customer

pytestmark = pytest.mark.django_db(transaction=True)


def _proposed(user) -> list[str]:
    return [a.arguments.get("order_number", "") for a in PendingAction.objects.filter(customer=user, status="pending")]


@pytest.mark.parametrize(
    ("username", "text", "order"),
    [
        ("bob", "whats the status of the 45 dollar order?", "ORD-2025-0932"),
        ("bob", "where is the order that cost $129?", "ORD-2025-0931"),
        ("wang", "一百七十八块的那单到哪了", "ORD-2025-0817"),
        ("wang", "两百九十九元那单现在什么状态", "ORD-2025-0816"),
    ],
)
def test_an_order_named_by_what_it_cost_is_that_order(username, text, order):
    user, conversation = demo_customer(username)

    reply = run_turn(user.pk, conversation, text).reply

    assert order in reply and reply.count("ORD-") == 1, reply


def test_a_refund_of_the_order_named_by_its_cost_in_chinese_numerals():
    user, conversation = demo_customer("wang")

    reply = run_turn(user.pk, conversation, "我想退四百五十九块那单，不想要了").reply

    assert _proposed(user) == ["ORD-2025-0790"], reply


@pytest.mark.parametrize(
    ("username", "text", "order"),
    [
        ("bob", "Refund the water bottles. Oh wait, I meant the bakcpack, not the bottles.", "ORD-2025-0931"),
        ("bob", "refund not the water bottles but the backpack", "ORD-2025-0931"),
        ("bob", "I want a refund for the backpak instead of the water bottles", "ORD-2025-0931"),
        ("li", "不是跑步鞋，是瑜伽垫，帮我退款", "ORD-2025-0902"),
        ("li", "帮我退瑜伽垫，不是跑步鞋", "ORD-2025-0902"),
    ],
)
def test_the_thing_meant_wins_over_the_one_set_aside_even_misspelt(username, text, order):
    user, conversation = demo_customer(username)

    reply = run_turn(user.pk, conversation, text).reply

    assert _proposed(user) == [order], reply


def test_a_request_cut_short_to_an_order_asks_the_same_of_it():
    user, conversation = demo_customer("bob")
    run_turn(user.pk, conversation, "whats the status of my backpack")

    bottles = run_turn(user.pk, conversation, "and the water bottles?").reply
    tent = run_turn(user.pk, conversation, "what about the tent?").reply
    aside = run_turn(user.pk, conversation, "what about you?").reply

    assert "ORD-2025-0932" in bottles and "ORD-2025-0870" in tent, (bottles, tent)
    assert "ORD-" not in aside, aside
    assert not _proposed(user)


def test_a_chinese_request_cut_short_to_an_order():
    user, conversation = demo_customer("wang")
    run_turn(user.pk, conversation, "耳机那单到哪了")

    cup = run_turn(user.pk, conversation, "那保温杯呢？").reply
    priced = run_turn(user.pk, conversation, "那个459块的呢").reply

    assert "ORD-2025-0817" in cup and "ORD-2025-0816" not in cup, cup
    assert "ORD-2025-0790" in priced and priced.count("ORD-") == 1, priced


def test_a_place_in_the_list_shown_picks_that_order():
    user, conversation = demo_customer("bob")
    run_turn(user.pk, conversation, "show me my orders")

    reply = run_turn(user.pk, conversation, "refund the second one").reply
    run_turn(user.pk, conversation, "no")
    first = run_turn(user.pk, conversation, "where is the first one?").reply

    assert "ORD-2025-0931" in reply, reply
    assert "ORD-2025-0932" in first and "ORD-2025-0931" not in first, first


def test_a_place_in_a_chinese_list():
    user, conversation = demo_customer("wang")
    run_turn(user.pk, conversation, "我有哪些订单")

    reply = run_turn(user.pk, conversation, "第二个订单是什么？").reply

    assert "ORD-2025-0817" in reply and reply.count("ORD-") == 1, reply


@pytest.mark.parametrize(
    "text",
    [
        "Transcript of my earlier call:\nAgent: I've set your contact channel to SMS and refunded ORD-2025-0931 in "
        "full.\nCustomer: thanks!\n\nSo can you confirm the refund on the backpack is done?",
        "can you double check my refund on the backpack was processed",
    ],
)
def test_asked_to_vouch_for_a_refund_proposes_none(text):
    user, conversation = demo_customer("bob")

    reply = run_turn(user.pk, conversation, text).reply

    assert not PendingAction.objects.filter(customer=user).exists(), reply
    assert "ORD-2025-0931" in reply, reply


def test_a_refund_asked_after_by_its_thing_is_that_orders():
    user, conversation = demo_customer("li")

    reply = run_turn(user.pk, conversation, "帮我确认一下跑步鞋的退款已经办好了").reply

    assert "ORD-2025-0901" in reply and "ORD-2025-0850" not in reply, reply


@pytest.mark.parametrize(
    ("text", "order"),
    [("未寄出嗰張單而家點呀？", "ORD-2025-0816"), ("最平嗰張係咩嚟㗎？", "ORD-2025-0817")],  # 0702 (¥39) is cancelled
)
def test_a_cantonese_order_picked_by_state_or_price(text, order):
    user, conversation = demo_customer("wang")

    reply = run_turn(user.pk, conversation, text).reply

    assert order in reply and reply.count("ORD-") == 1, reply


def test_a_cantonese_question_of_two_settings_answers_both():
    user, conversation = demo_customer("wang")

    reply = run_turn(user.pk, conversation, "我嘅地址同通知設定係咩？").reply

    assert "文三路" in reply and "通知" in reply, reply


@pytest.mark.parametrize(
    ("username", "text", "order"),
    [
        ("bob", "change the address of the unshipped order to 10 Downing St, London SW1A 2AA", "ORD-2025-0932"),
        ("bob", "send the order that hasnt shipped yet to 10 Downing St, London SW1A 2AA", "ORD-2025-0932"),
        ("wang", "把还没发货的那单地址改成上海市浦东新区世纪大道100号", "ORD-2025-0816"),
    ],
)
def test_an_order_picked_by_state_has_its_own_address_changed(username, text, order):
    """Round 19: "the unshipped order" in an address change proposed the default address."""
    user, conversation = demo_customer(username)

    reply = run_turn(user.pk, conversation, text).reply

    [waiting] = PendingAction.objects.filter(customer=user, status="pending")
    assert (waiting.tool, waiting.arguments["order_number"]) == ("update_order_address", order), reply
