"""Red team, session 27 (round 35, on 4daa59f).

- A full refund proposed, then part of its money asked ("make it half", "yes, 50 of it", "退一半就行",
  "退一半得唔得？"): the proposal stayed open, the next "yes" was asked about it again and the one after made the
  full refund, four times on the record. Part asked drops the full refund; it is proposed again only when the
  whole is asked for.
- "all ¥1,790 of it" on a $249 order was refused as more than was paid: the currency is what is wrong.
- Misreadings: a refundability question among several requests or naming its thing in Cantonese got the refunds
  policy; two questions joined by 和 or 还有 lost one; "係呀，退個空氣淨化器" was not understood."""

from __future__ import annotations

import pytest

from chat.agent import run_turn
from chat.models import PendingAction, Refund
from tests.chat.demo_chat import demo_customer

pytestmark = pytest.mark.django_db(transaction=True)


def _waiting(user) -> list[str]:
    return sorted(a.tool for a in PendingAction.objects.filter(customer=user, status__in=["pending", "queued"]))


@pytest.mark.parametrize(
    ("who", "ask", "part", "yeses", "order"),
    [
        ("bob", "I want a refund for my backpack ORD-2025-0931", "make it half", ["yes", "yes"], "ORD-2025-0931"),
        ("alice", "I want a refund on my headphones ORD-2025-0923", "yes, 50 of it", ["yes", "yes"], "ORD-2025-0923"),
        ("wang", "我要退ORD-2025-0816的耳机", "退一半就行", ["确认", "确认"], "ORD-2025-0816"),
        ("chen", "我想退ORD-2025-0942嘅綠茶", "退一半得唔得？", ["係呀"], "ORD-2025-0942"),
    ],
)
def test_part_of_the_money_asked_of_a_full_refund_waiting_never_makes_the_whole(who, ask, part, yeses, order):
    user, conversation = demo_customer(who)
    run_turn(user.pk, conversation, ask)

    replies = [run_turn(user.pk, conversation, text).reply for text in [part, *yeses]]

    assert not Refund.objects.filter(order__number=order).exists(), replies
    assert "request_refund" not in _waiting(user), replies


def test_the_refund_mentioned_after_part_was_asked_is_not_the_whole():
    user, conversation = demo_customer("li")
    run_turn(user.pk, conversation, "退一下瑜伽垫0902吧")
    run_turn(user.pk, conversation, "I mean refund 50 of it first")

    reply = run_turn(user.pk, conversation, "ok the refund you mentioned - go ahead").reply

    assert "request_refund" not in _waiting(user), reply


def test_money_in_another_currency_over_the_total_is_refused_for_its_currency():
    user, conversation = demo_customer("alice")

    reply = run_turn(user.pk, conversation, "Refund the whole headphones order ORD-2025-0923, all ¥1,790 of it").reply

    assert "US dollars" in reply and "request_refund" not in _waiting(user), reply


@pytest.mark.parametrize(
    ("who", "text", "said"),
    [
        ("wang", "帮我把通知关掉，联系方式改成短信，另外机械键盘还能退吗", ["ORD-2025-0790", "这单可以申请退款"]),
        ("wang", "我的联系方式和ORD-2025-0817的退款记录是什么？", ["邮件", "ORD-2025-0817"]),
        ("chen", "我而家嘅通知設定同聯絡方式係咩？", ["通知", "邮件"]),
        ("li", "查一下我的跑步鞋到哪了，还有订单ORD-2025-0923耳机的状态，顺便把我的通知关掉", ["ZT5566778899"]),
        ("chen", "個空氣淨化器仲可唔可以退錢呀？", ["ORD-2025-0941", "这单可以申请退款"]),
        ("alice", "What did the shop promise me about my desk lamps?", ["ORD-2025-0880"]),
    ],
)
def test_every_question_asked_is_answered(who, text, said):
    user, conversation = demo_customer(who)

    reply = run_turn(user.pk, conversation, text).reply

    assert all(words in reply for words in said), reply


def test_a_cantonese_yes_with_the_refund_asked_proposes_it():
    user, conversation = demo_customer("chen")

    reply = run_turn(user.pk, conversation, "係呀，退個空氣淨化器").reply

    assert _waiting(user) == ["request_refund"] and "ORD-2025-0941" in reply, reply
