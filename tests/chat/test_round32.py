"""Red team, session 26 (round 32, on 81ec7f1): several changes asked at once, then some taken back.

- "第一个不要了，只退第二个" and "cancel the second" named the change by its place: the proposed one stayed (or the
  wrong one was dropped), and the next yes made the change taken back.
- "其它都唔要喇，淨係静音": "only" a change none of those waiting is: none of them is wanted.
- "退款唔使喇，只改地址就得": the model proposed a refund of another order; a change the message says not to make
  is never proposed, whatever the model asks for.
- "不对，是ORD-2025-0999那单": a correction naming another order by its number (one not found) left the air purifier's
  refund confirmable.
- "两件事：耳机0816申请退款，另外把通知打开" and "…0790退款，另外把保温杯0817也退了" lost a request.
- "Which is my most expensive order, and when did my cheapest one ship?" tracked neither."""

from __future__ import annotations

import pytest

from chat.agent import run_turn
from chat.answers import says_not_to_make, taken_back
from chat.models import CustomerProfile, PendingAction, Refund
from chat.tools import ToolContext, run_tool
from tests.chat.demo_chat import demo_customer

pytestmark = pytest.mark.django_db(transaction=True)

_YOGA = {
    "tool": "request_refund",
    "arguments": {"order_number": "ORD-2025-0902"},
    "summary": "为订单ORD-2025-0902（瑜伽垫）申请退款",
}
_SHOES = {
    "tool": "request_refund",
    "arguments": {"order_number": "ORD-2025-0901"},
    "summary": "为订单ORD-2025-0901（跑步鞋）申请退款",
}
_ADDRESS = {
    "tool": "update_shipping_address",
    "arguments": {"address": "9 Queen Road"},
    "summary": "change the address",
}
_SMS = {"tool": "update_contact_channel", "arguments": {"channel": "sms"}, "summary": "contact you by SMS"}


@pytest.mark.parametrize(
    ("text", "changes", "dropped"),
    [
        ("第一个不要了，只退第二个", [_YOGA, _SHOES], {0}),
        ("后面那个不用了", [_YOGA, _SHOES], {1}),
        ("cancel the second", [_ADDRESS, _SMS], {1}),
        ("only the second one", [_ADDRESS, _SMS], {0}),
        ("其它都唔要喇，淨是静音", [_ADDRESS, _YOGA], {0, 1}),
        ("just asking, has it shipped?", [_ADDRESS, _YOGA], set()),
        ("只退一半可以吗", [_YOGA, _ADDRESS], set()),
    ],
)
def test_the_changes_a_message_takes_back(text, changes, dropped):
    assert taken_back(text, changes) == dropped


@pytest.mark.parametrize(
    ("text", "tool", "refused"),
    [
        ("退款唔使喇，只改地址就得", "request_refund", True),
        ("no refund needed, just change the address", "request_refund", True),
        ("I dont need a refund anymore", "request_refund", True),
        ("don't refund the tent, refund the backpack", "request_refund", False),
        ("不用改其他的，退款吧", "request_refund", False),
        ("地址不用改了，把通知关掉", "update_shipping_address", True),
        ("地址不用改了，把通知关掉", "update_notification_preference", False),
    ],
)
def test_a_change_the_message_says_not_to_make(text, tool, refused):
    assert says_not_to_make(text, tool) is refused


def test_a_change_the_message_refuses_is_never_proposed():
    user, conversation = demo_customer("chen")
    ctx = ToolContext(user.pk, conversation, "zh", said="退款唔使喇，只改地址就得")

    result = run_tool(ctx, "request_refund", {"order_number": "ORD-2025-0942", "reason": "x"})

    assert result.get("error_code") == "not_wanted"
    assert not PendingAction.objects.filter(customer=user).exists()


@pytest.mark.parametrize(
    ("who", "messages", "refunded", "not_refunded"),
    [
        ("li", ["瑜伽垫0902和跑步鞋0901都帮我退款吧", "第一个不要了，只退第二个", "好的确认"], ["0901"], ["0902"]),
        ("chen", ["帮我把空气净化器那单退款", "不对，是ORD-2025-0999那单", "确认"], [], ["0941"]),
        (
            "chen",
            ["台灯那单退了，顺便把收货地址改成北京市朝阳区建国路88号", "退款唔使喇，只改地址就得", "係，確認"],
            [],
            ["0941", "0942", "0943"],
        ),
        (
            "wang",
            [
                "帮我做三件事：耳机0816退款，收货地址改成上海市浦东新区世纪大道100号，还有把通知静音",
                "其它都唔要喇，淨係静音",
                "确认",
                "确认",
                "确认",
            ],
            [],
            ["0816"],
        ),
    ],
)
def test_only_what_the_customer_kept_is_made(who, messages, refunded, not_refunded):
    user, conversation = demo_customer(who)
    replies = [run_turn(user.pk, conversation, text).reply for text in messages]

    made = {r.order.number[-4:] for r in Refund.objects.filter(order__customer=user, conversation_id=conversation)}
    assert made == set(refunded) and not made & set(not_refunded), replies


def test_three_things_then_only_the_mute_makes_only_the_mute():
    user, conversation = demo_customer("wang")
    before = CustomerProfile.objects.get(user=user).default_address
    for text in [
        "帮我做三件事：耳机0816退款，收货地址改成上海市浦东新区世纪大道100号，还有把通知静音",
        "其它都唔要喇，淨係静音",
        "确认",
    ]:
        run_turn(user.pk, conversation, text)

    profile = CustomerProfile.objects.get(user=user)
    assert (profile.notification_preference, profile.default_address) == ("mute", before)
    assert not PendingAction.objects.filter(customer=user, status__in=["pending", "queued"]).exists()


def test_cancel_the_second_keeps_the_first():
    user, conversation = demo_customer("alice")
    run_turn(
        user.pk,
        conversation,
        "Two things: change my address to 9 Queen Road, Leeds, and switch my contact channel to SMS.",
    )
    run_turn(user.pk, conversation, "cancel the second")
    run_turn(user.pk, conversation, "yes")

    profile = CustomerProfile.objects.get(user=user)
    assert (profile.default_address, profile.contact_channel) == ("9 Queen Road, Leeds", "email")


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


def test_a_refund_said_not_wanted_is_never_proposed_in_its_place():
    """wang (muted): "两件事：耳机0816申请退款，另外把通知打开" proposed the unmute and lost the refund; "退款就算了，只要
    打开通知" then proposed the refund, and "确认" made it."""
    user, conversation = demo_customer("wang")
    CustomerProfile.objects.filter(user=user).update(notification_preference="mute")
    for text in ["两件事：耳机0816申请退款，另外把通知打开", "退款就算了，只要打开通知", "确认"]:
        run_turn(user.pk, conversation, text)

    assert not Refund.objects.filter(order__number="ORD-2025-0816").exists()
    assert CustomerProfile.objects.get(user=user).notification_preference == "on"


def test_a_no_to_another_kind_of_change_leaves_the_waiting_one():
    """chen: "帮我把通知关掉" then "不要改联系方式了" (the SMS she had asked for before, refused): the mute was dropped."""
    user, conversation = demo_customer("chen")
    run_turn(user.pk, conversation, "帮我把通知关掉")

    reply = run_turn(user.pk, conversation, "不要改联系方式了").reply

    waiting = PendingAction.objects.get(customer=user, status=PendingAction.Status.PENDING)
    assert waiting.tool == "update_notification_preference", reply
