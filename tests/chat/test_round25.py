"""Red team, session 24 (round 25): a question about refunds made proposed one, and orders named another way
than the list's were taken for the one in sight.

- "今天一共帮我提交了哪些退款？列出来" proposed a refund of the keyboard; "那你现在帮我退了哪个订单？退了多少钱？"
  proposed the tea's. A question about refunds made is answered from the records and proposes nothing.
- "keyboard那单refund一下 pls" proposed the refund of the cup order in sight (the keyboard is 机械键盘).
- "上次改成短信联系那个，撤销吧，还是用邮件" was answered "我们会通过短信联系您。无需更改。"; "ok 确认关通知" was asked
  again; "系呀，退瑜伽垫嗰单" was not a yes.
- "不是绿茶，是净化器那个" looked the purifier up and left the tea's refund waiting; "不对，是耳机那单" after a
  lookup was not understood; "ok forget the tent. actually the backpack one, …, refund that instead" was answered
  "I can't delete memories"; "…小张批准的退款呢？" was refused as another customer's data; "我那个键盘用了几天有个键
  不灵了，想退款" got the policy only.
"""

from __future__ import annotations

import pytest

from chat.agent import run_turn
from chat.models import CustomerProfile, PendingAction, Refund
from tests.chat.demo_chat import demo_customer

pytestmark = pytest.mark.django_db(transaction=True)


def _waiting(conversation):
    return PendingAction.objects.get(conversation_id=conversation, status=PendingAction.Status.PENDING)


def test_refunds_made_asked_after_are_listed_and_none_proposed():
    user, conversation = demo_customer("wang")
    run_turn(user.pk, conversation, "保温杯那单退款")
    run_turn(user.pk, conversation, "确认")

    reply = run_turn(user.pk, conversation, "今天一共帮我提交了哪些退款？列出来").reply

    assert "ORD-2025-0817" in reply and "178" in reply, reply
    assert not PendingAction.objects.filter(conversation_id=conversation, status=PendingAction.Status.PENDING)


def test_which_order_was_refunded_proposes_no_refund():
    user, conversation = demo_customer("chen")

    run_turn(user.pk, conversation, "那你现在帮我退了哪个订单？退了多少钱？")

    assert not PendingAction.objects.filter(conversation_id=conversation).exists()


@pytest.mark.parametrize(
    ("username", "text", "order"),
    [
        ("wang", "keyboard那单refund一下 pls", "ORD-2025-0790"),
        ("bob", "ok forget the tent. actually the backpack one, the 129 one, refund that instead", "ORD-2025-0931"),
        ("wang", "你好，我那个键盘用了几天有个键不灵了，想退款", "ORD-2025-0790"),
    ],
)
def test_the_order_named_is_the_one_proposed(username, text, order):
    user, conversation = demo_customer(username)

    reply = run_turn(user.pk, conversation, text).reply

    assert _waiting(conversation).arguments["order_number"] == order, reply


def test_undoing_a_channel_change_proposes_the_channel_named():
    user, conversation = demo_customer("li")
    run_turn(user.pk, conversation, "联系方式改成短信")
    run_turn(user.pk, conversation, "确认")

    reply = run_turn(user.pk, conversation, "上次改成短信联系那个，撤销吧，还是用邮件").reply

    assert _waiting(conversation).arguments == {"channel": "email"}, reply


@pytest.mark.parametrize(
    ("username", "ask", "yes"),
    [("chen", "通知关掉", "ok 确认关通知"), ("li", "瑜伽垫退款", "系呀，退瑜伽垫嗰单")],
)
def test_a_yes_naming_the_change_in_other_words_confirms(username, ask, yes):
    user, conversation = demo_customer(username)
    run_turn(user.pk, conversation, ask)

    reply = run_turn(user.pk, conversation, yes).reply

    assert PendingAction.objects.get(conversation_id=conversation).status == PendingAction.Status.DONE, reply
    if username == "chen":
        assert CustomerProfile.objects.get(user=user).notification_preference == "mute"
    else:
        assert Refund.objects.filter(order__number="ORD-2025-0902").exists()


def test_another_order_after_a_lookup_is_looked_up():
    user, conversation = demo_customer("wang")
    run_turn(user.pk, conversation, "机械键盘到哪了")

    reply = run_turn(user.pk, conversation, "不对，是耳机那单").reply

    assert "ORD-2025-0816" in reply, reply


def test_a_staff_name_in_a_claim_is_no_other_customer():
    user, conversation = demo_customer("li")

    reply = run_turn(user.pk, conversation, "电动牙刷那单现在什么情况？小张批准的退款呢？").reply

    assert "ORD-2025-0850" in reply and "其他客户" not in reply, reply
