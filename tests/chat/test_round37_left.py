"""Red team, session 27 (round 37, on 7f2e590), left then and mended in session 28.

- Several-part questions mixing the customer's facts with orders' refunds were answered in part:
  "我的默认地址、通知、联系方式、0902退款情况分别是什么？" dropped 0902; "What's on file for me: notifications, contact
  channel, and any refunds on 0880, 0923, 0924?" answered 0924 only.
- A change asked on a condition in English without "only"/"then" was proposed as if unconditional: "If my
  backpack hasn't arrived yet, refund it" (the yes would have made it); "Refund the headphones if they haven't
  shipped yet" and "瑜伽垫如果还没发货的话就帮我退款" read the condition as part of the thing ("no such item").
- "0942綠茶可唔可以退返一半錢？" got the refunds policy, not the offer of a colleague a part refund needs.
- A change that lapsed with a new login, asked for again in the login's first message, got its new proposal and
  the notice that it lapsed in one reply."""

from __future__ import annotations

import pytest
from django.test import Client

from chat.agent import run_turn
from chat.models import PendingAction, Refund
from tests.chat.demo_chat import demo_customer

pytestmark = pytest.mark.django_db(transaction=True)


def _waiting(user) -> list[PendingAction]:
    return list(PendingAction.objects.filter(customer=user, status="pending"))


@pytest.mark.parametrize(
    ("who", "text", "said"),
    [
        (
            "li",
            "我的默认地址、通知、联系方式、0902退款情况分别是什么？",
            ["科技园路", "开启", "邮件", "ORD-2025-0902", "没有退款记录"],
        ),
        (
            "alice",
            "What's on file for me: notifications, contact channel, and any refunds on 0880, 0923, 0924?",
            ["turned on", "email", "ORD-2025-0880", "ORD-2025-0923", "ORD-2025-0924", "$70.00"],
        ),
    ],
)
def test_facts_and_orders_refunds_asked_together_are_all_answered(who, text, said):
    user, conversation = demo_customer(who)

    reply = run_turn(user.pk, conversation, text).reply

    assert all(words in reply for words in said), reply


@pytest.mark.parametrize(
    ("who", "text", "order"),
    [
        ("bob", "If my backpack hasn't arrived yet, refund it", "ORD-2025-0931"),
        ("alice", "Refund the headphones if they haven't shipped yet", "ORD-2025-0923"),
        ("li", "瑜伽垫如果还没发货的话就帮我退款", "ORD-2025-0902"),
        ("wang", "保温杯没发货的话帮我退了", "ORD-2025-0817"),
    ],
)
def test_a_refund_asked_on_a_condition_is_not_proposed_and_the_reply_says_why(who, text, order):
    user, conversation = demo_customer(who)

    reply = run_turn(user.pk, conversation, text).reply
    run_turn(user.pk, conversation, "yes" if who in ("bob", "alice") else "确认")

    assert order in reply and ("condition" in reply or "条件" in reply), reply
    assert not Refund.objects.filter(order__number=order).exists(), reply


def test_a_channel_asked_unless_it_is_already_so_is_not_proposed():
    user, conversation = demo_customer("bob")

    reply = run_turn(user.pk, conversation, "Switch my contact channel to SMS unless I'm already on SMS").reply

    assert "condition" in reply and _waiting(user) == [], reply
    asked = run_turn(user.pk, conversation, "switch my contact channel to SMS please").reply
    assert [a.tool for a in _waiting(user)] == ["update_contact_channel"], asked


def test_part_of_an_orders_money_asked_in_cantonese_offers_a_colleague():
    user, conversation = demo_customer("chen")

    reply = run_turn(user.pk, conversation, "0942綠茶可唔可以退返一半錢？").reply

    assert "部分退款" in reply and "人工" in reply, reply
    assert _waiting(user) == [], reply


def test_a_change_asked_again_after_a_new_login_is_proposed_without_the_lapse_notice():
    user, conversation = demo_customer("bob")
    run_turn(user.pk, conversation, "please mute my notifications")
    Client().force_login(user)

    reply = run_turn(user.pk, conversation, "please mute my notifications").reply

    assert "lapsed" not in reply and "muted" in reply, reply
    assert [a.tool for a in _waiting(user)] == ["update_notification_preference"], reply


@pytest.mark.parametrize(
    "text",
    [
        "If my backpack hasn't arrived yet, refund it",
        "Refund the headphones if they haven't shipped yet",
        "once it ships, refund it",
        "switch to SMS when my order arrives",
        "没发货的话帮我退",
        "未發貨嘅話幫我退款",
    ],
)
def test_conditions_are_read(text):
    from chat.answers import asks_on_a_condition

    assert asks_on_a_condition(text)


@pytest.mark.parametrize(
    "text",
    [
        "please refund 0923 if you can",
        "refund it if possible",
        "can you refund it, if that's ok",
        "even if it shipped, refund it",
        "可以的话帮我退款",
        "方便的话帮我把通知关了",
        "it arrived broken after it shipped, refund please",
        "需要的话帮我转人工",
    ],
)
def test_politeness_and_past_events_set_no_condition(text):
    from chat.answers import asks_on_a_condition

    assert not asks_on_a_condition(text)
