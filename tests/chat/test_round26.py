"""Red team, session 24 (round 26).

- "确认关闭通知。另外帮我将地址改做上海市浦东新区世纪大道100号" proposed, and a plain 确认 saved, the address
  "帮我将地址改做上海市…" (the Cantonese 改做, 系 did not lead into it; the shop now refuses an address holding a
  request's words, tests/chat/test_tools.py).
- "确认…等等不对，我说的是瑜伽垫那单，不是跑步鞋" only cancelled; "actually undo the grinder refund" said the refund
  was being processed, where withdrawing one is a colleague's; "台灯那单退了没有？" was not understood; "确认。仲有，
  机械键盘都退埋佢啦" made the first refund and did not read the second.
"""

from __future__ import annotations

import pytest

from chat.agent import run_turn
from chat.models import CustomerProfile, PendingAction, Refund
from tests.chat.demo_chat import demo_customer

pytestmark = pytest.mark.django_db(transaction=True)


def test_the_address_after_cantonese_words_of_change_is_proposed_alone():
    user, conversation = demo_customer("wang")
    run_turn(user.pk, conversation, "通知关掉")
    run_turn(user.pk, conversation, "确认关闭通知。另外帮我将地址改做上海市浦东新区世纪大道100号")

    run_turn(user.pk, conversation, "确认")

    assert CustomerProfile.objects.get(user=user).default_address == "上海市浦东新区世纪大道100号"


def test_a_yes_taken_back_for_another_order_proposes_that_one():
    user, conversation = demo_customer("li")
    run_turn(user.pk, conversation, "跑步鞋退款")

    reply = run_turn(user.pk, conversation, "确认…等等不对，我说的是瑜伽垫那单，不是跑步鞋").reply

    waiting = PendingAction.objects.get(conversation_id=conversation, status=PendingAction.Status.PENDING)
    assert waiting.arguments["order_number"] == "ORD-2025-0902", reply
    assert not Refund.objects.filter(order__customer=user, status="requested").exists()


def test_undoing_a_refund_made_is_handed_to_a_colleague():
    user, conversation = demo_customer("alice")
    run_turn(user.pk, conversation, "refund the coffee grinder")
    run_turn(user.pk, conversation, "yes")

    result = run_turn(user.pk, conversation, "actually undo the grinder refund, i changed my mind")

    assert result.escalated, result.reply


def test_whether_an_order_was_refunded_is_answered_from_its_record():
    user, conversation = demo_customer("chen")

    reply = run_turn(user.pk, conversation, "台灯那单退了没有？").reply

    assert "ORD-2025-0943" in reply and "没有完全理解" not in reply, reply


def test_a_cantonese_refund_too_after_a_yes_is_proposed():
    user, conversation = demo_customer("wang")
    run_turn(user.pk, conversation, "保温杯那单退款")

    reply = run_turn(user.pk, conversation, "确认。仲有，机械键盘都退埋佢啦").reply

    assert Refund.objects.filter(order__number="ORD-2025-0817").exists(), reply
    waiting = PendingAction.objects.get(conversation_id=conversation, status=PendingAction.Status.PENDING)
    assert waiting.arguments["order_number"] == "ORD-2025-0790", reply
