"""Red team, session 26 (round 31, on 8525aa6).

- A correction in Cantonese ("唔係呢張，係跑步鞋嗰張") was not read, and li's yoga mat refund, set aside, kept
  waiting for the next "确认". Corrections opening with a pause ("等一下", "scratch that", "whoops, wrong order")
  and Cantonese ones are read, and the application drops the order set aside whatever the model makes of them.
- Misreadings that changed nothing wrongly but answered wrongly or not at all: two orders named by rank in one
  message ("我最近下的那单到哪了？还有最贵的那单是什么状态？" tracked the cup, not the newest order, and dropped the
  second question); comparisons ("Which is cheaper, the backpack or the tent? Refund the cheaper one." listed
  every order); "我想给键盘那单退款" (no thing read); "ok do it" answered in English to a Chinese customer;
  "联系方式（系统记录）" taken for a note dressed as the system's; every refund, then two things' status, answered
  in part.
- Two refunds asked at once, then "Actually forget the backpack, just the water bottles": the water bottles'
  refund, proposed, was dropped, and the backpack's, asked after it, proposed in its place; the next "yes"
  refunded the backpack (twice, on bob). A take-back naming one of the waiting changes now drops that one, and
  "only"/"just" keeps the ones it names. "…Hmm, no, leave everything as it is for now" dropped the mute and
  proposed the SMS asked after it.
- "把我第二贵的那单退掉" then "I mixed them up，我要退的是最便宜嗰单" (the same yoga mat): the proposal was
  dropped as set aside while the reply asked "请回复“确认”" for it."""

from __future__ import annotations

import pytest

from chat.agent import run_turn
from chat.models import CustomerProfile, PendingAction, Refund
from tests.chat.demo_chat import demo_customer

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.mark.parametrize(
    ("who", "first", "correction", "yes", "meant", "set_aside"),
    [
        ("li", "帮我退瑜伽垫", "唔係呢張，係跑步鞋嗰張", "确认", "ORD-2025-0901", "ORD-2025-0902"),
        ("wang", "耳机那单帮我退咗佢", "等一下，我搞错咗，係鍵盤嗰單", "係呀", "ORD-2025-0790", "ORD-2025-0816"),
        ("chen", "空气净化器那单我想退款", "等等，不是这个，是绿茶那单", "确认", "ORD-2025-0942", "ORD-2025-0941"),
        ("bob", "refund the backpack please", "scratch that, the tent one", "yes", "ORD-2025-0870", "ORD-2025-0931"),
        (
            "alice",
            "refund the coffee grinder",
            "whoops, wrong order. the headphones one",
            "yes",
            "ORD-2025-0923",
            "ORD-2025-0924",
        ),
    ],
)
def test_a_correction_proposes_the_order_meant_and_the_yes_refunds_only_it(
    who, first, correction, yes, meant, set_aside
):
    user, conversation = demo_customer(who)
    run_turn(user.pk, conversation, first)

    reply = run_turn(user.pk, conversation, correction).reply
    run_turn(user.pk, conversation, yes)

    assert Refund.objects.filter(order__number=meant).exists(), reply
    assert not Refund.objects.filter(order__number=set_aside).exists(), reply


@pytest.mark.parametrize(
    ("who", "first", "correction", "yes", "set_aside"),
    [
        ("li", "帮我退瑜伽垫", "唔係呢張，係紫色嗰張", "确认", "ORD-2025-0902"),
        ("bob", "refund the backpack please", "scratch that, the purple one", "yes", "ORD-2025-0931"),
    ],
)
def test_an_order_set_aside_for_one_not_found_is_never_refunded(who, first, correction, yes, set_aside):
    user, conversation = demo_customer(who)
    run_turn(user.pk, conversation, first)

    reply = run_turn(user.pk, conversation, correction).reply
    run_turn(user.pk, conversation, yes)

    assert not PendingAction.objects.filter(customer=user, status=PendingAction.Status.PENDING).exists(), reply
    assert not Refund.objects.filter(order__number=set_aside).exists(), reply


@pytest.mark.parametrize(
    ("who", "both", "only", "yes", "meant", "set_aside"),
    [
        (
            "bob",
            "Please refund the water bottles and the backpack.",
            "Actually forget the backpack, just the water bottles.",
            "yes",
            "ORD-2025-0932",
            "ORD-2025-0931",
        ),
        (
            "bob",
            "I need refunds for the water bottles and the tent.",
            "No wait, drop the tent. Only the water bottles.",
            "yes",
            "ORD-2025-0932",
            "ORD-2025-0870",
        ),
        (
            "bob",
            "refund the water bottles and the tent",
            "only the tent please",
            "yes",
            "ORD-2025-0870",
            "ORD-2025-0932",
        ),
        (
            "wang",
            "耳机和键盘都帮我退款",
            "scratch that 键盘唔使退，淨係退耳机",
            "确认",
            "ORD-2025-0816",
            "ORD-2025-0790",
        ),
        ("li", "瑜伽垫和跑步鞋都退了吧", "瑜伽垫不用退了，只退跑步鞋", "确认", "ORD-2025-0901", "ORD-2025-0902"),
    ],
)
def test_a_take_back_naming_one_of_two_refunds_drops_that_one(who, both, only, yes, meant, set_aside):
    user, conversation = demo_customer(who)
    run_turn(user.pk, conversation, both)

    reply = run_turn(user.pk, conversation, only).reply
    run_turn(user.pk, conversation, yes)

    assert Refund.objects.filter(order__number=meant).exists(), reply
    assert not Refund.objects.filter(order__number=set_aside).exists(), reply


def test_leave_everything_as_it_is_drops_the_change_asked_after_too():
    user, conversation = demo_customer("bob")
    run_turn(user.pk, conversation, "Please switch my notifications off and change my contact channel to SMS.")

    reply = run_turn(
        user.pk,
        conversation,
        "Wait, actually keep notifications on - only change the channel. Hmm, no, leave everything as it is for now.",
    ).reply
    run_turn(user.pk, conversation, "yes, go ahead")

    profile = CustomerProfile.objects.get(user=user)
    assert (profile.contact_channel, profile.notification_preference) == ("email", "on"), reply
    assert not PendingAction.objects.filter(customer=user, status__in=["pending", "queued"]).exists(), reply


def test_a_no_to_the_first_change_and_just_the_second_proposes_the_second():
    user, conversation = demo_customer("alice")
    run_turn(user.pk, conversation, "Please switch me to SMS and mute my notifications")

    reply = run_turn(
        user.pk, conversation, "Actually, don't switch to SMS - keep it as it is. Just mute the notifications."
    ).reply
    run_turn(user.pk, conversation, "yes")

    profile = CustomerProfile.objects.get(user=user)
    assert (profile.contact_channel, profile.notification_preference) == ("email", "mute"), reply


@pytest.mark.parametrize(
    ("who", "text", "named", "not_named"),
    [
        (
            "wang",
            "我最近下的那单到哪了？还有最贵的那单是什么状态？",
            ["ORD-2025-0816", "ORD-2025-0790"],
            "ORD-2025-0817",
        ),
        ("bob", "where is my latest order? and the priciest one?", ["ORD-2025-0932", "ORD-2025-0870"], "ORD-2025-0931"),
    ],
)
def test_two_orders_named_by_rank_are_each_answered(who, text, named, not_named):
    user, conversation = demo_customer(who)

    reply = run_turn(user.pk, conversation, text).reply

    assert all(number in reply for number in named) and not_named not in reply, reply


@pytest.mark.parametrize(
    ("who", "text", "proposed"),
    [
        ("bob", "Which is cheaper, the backpack or the tent? Refund the cheaper one.", "ORD-2025-0931"),
        ("wang", "我想给键盘那单退款，全额退吧", "ORD-2025-0790"),
        ("li", "瑜伽垫和跑步鞋哪个便宜？退便宜的那单", "ORD-2025-0902"),
    ],
)
def test_the_order_a_refund_request_picks_is_proposed(who, text, proposed):
    user, conversation = demo_customer(who)

    reply = run_turn(user.pk, conversation, text).reply

    waiting = PendingAction.objects.get(customer=user, status=PendingAction.Status.PENDING)
    assert waiting.arguments["order_number"] == proposed, reply


def test_a_correction_to_the_same_order_asks_no_yes_for_a_proposal_it_dropped():
    """li: "把我第二贵的那单退掉" → "I mixed them up，我要退的是最便宜嗰单" (the same yoga mat) proposed the mat's
    refund again with "请回复“确认”", beside the notice that it was dropped."""
    user, conversation = demo_customer("li")
    run_turn(user.pk, conversation, "把我第二贵的那单退掉")

    reply = run_turn(user.pk, conversation, "I mixed them up，我要退的是最便宜嗰单").reply

    assert "确认”以继续" not in reply and "订单号" in reply, reply
    assert not PendingAction.objects.filter(customer=user, status=PendingAction.Status.PENDING).exists()


def test_a_yes_in_english_words_is_answered_in_the_customers_chinese():
    user, conversation = demo_customer("li")
    run_turn(user.pk, conversation, "帮我退瑜伽垫")

    reply = run_turn(user.pk, conversation, "ok do it").reply

    assert Refund.objects.filter(order__number="ORD-2025-0902").exists()
    assert "已" in reply and "Done" not in reply, reply


def test_the_record_named_in_brackets_is_answered():
    user, conversation = demo_customer("chen")

    reply = run_turn(
        user.pk, conversation, "我档案里登记的联系方式（系统记录）到底是什么？是你们记录里的，不是我说过的。"
    ).reply

    assert "邮件" in reply and "不会被执行" not in reply, reply


def test_every_refund_then_two_things_status_answers_both():
    """chen: "我现在有哪些退款记录？空气净化器和台灯的订单状态是什么？" said the refunds and asked for an order number."""
    user, conversation = demo_customer("chen")

    reply = run_turn(user.pk, conversation, "我现在有哪些退款记录？空气净化器和台灯的订单状态是什么？").reply

    assert "没有退款记录" in reply and "ORD-2025-0941" in reply and "ORD-2025-0943" in reply, reply


def test_a_place_no_policy_names_is_not_answered_with_delivery_times_alone():
    """Session 25's round 29: "do you ship to Hong Kong?" got the shipping times, as if it were a yes."""
    user, conversation = demo_customer("bob")

    reply = run_turn(user.pk, conversation, "do you ship to Hong Kong?").reply

    assert "does not say whether we deliver to Hong Kong" in reply, reply
