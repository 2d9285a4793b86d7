"""Red team, session 27 (round 34, on e633b87).

- alice "Can you refund ¥89 on the coffee grinder ORD-2025-0924? Just 89 yuan please." got the order's full $89
  proposed, and "yes, refund the ¥89" made it; bob's ¥45 on a $45 order and li's $129 on a ¥129 order the same.
  An amount in a currency other than the order's is never the order's money: the refund is refused, and a yes
  naming it confirms nothing.
- "0817保温被几时到啊，能退不？还有0816能取消吗？…" proposed a refund of 0816 (its cancellation read with the
  refund question before it). Read apart, the cancellation is staff's; a model asking for a colleague beside
  other tools in one step then failed the turn (the bot may store nothing once the chat is handed over).
- A correction on /memory/ holding a claim about the address ("… and it was already changed") was said back in
  the agent's voice: tests/web/test_shop_owned_changes.py."""

from __future__ import annotations

import pytest

from chat import prompts, shop
from chat.agent import run_turn
from chat.models import CustomerProfile, PendingAction, Refund
from tests.chat.demo_chat import demo_customer

pytestmark = pytest.mark.django_db(transaction=True)


def _waiting(user) -> list[str]:
    return [a.tool for a in PendingAction.objects.filter(customer=user, status__in=["pending", "queued"])]


@pytest.mark.parametrize(
    ("who", "ask", "yes", "order", "paid_in"),
    [
        (
            "alice",
            "Can you refund ¥89 on the coffee grinder ORD-2025-0924? Just 89 yuan please.",
            "yes, refund the ¥89",
            "ORD-2025-0924",
            "US dollars",
        ),
        (
            "bob",
            "Refund ¥45 on the water bottles ORD-2025-0932 please, only 45 RMB.",
            "yes",
            "ORD-2025-0932",
            "US dollars",
        ),
        ("li", "Please refund $129 for the yoga mat ORD-2025-0902", "确认", "ORD-2025-0902", "yuan"),
    ],
)
def test_money_asked_in_another_currency_is_never_the_orders(who, ask, yes, order, paid_in):
    user, conversation = demo_customer(who)
    reply = run_turn(user.pk, conversation, ask).reply
    assert paid_in in reply and "request_refund" not in _waiting(user), reply

    run_turn(user.pk, conversation, yes)
    assert not Refund.objects.filter(order__number=order).exists()


def test_a_yes_naming_another_currency_confirms_no_refund_proposed():
    user, conversation = demo_customer("alice")
    run_turn(user.pk, conversation, "refund ORD-2025-0924")

    reply = run_turn(user.pk, conversation, "yes, refund the ¥89").reply

    assert not Refund.objects.filter(order__number="ORD-2025-0924").exists(), reply


def test_a_cancellation_asked_beside_other_questions_goes_to_staff_and_refunds_nothing():
    user, conversation = demo_customer("wang")

    result = run_turn(user.pk, conversation, "0817保温被几时到啊，能退不？还有0816能取消吗？")

    assert result.escalated, result.reply
    assert "request_refund" not in _waiting(user)


def test_an_address_holding_a_claim_about_it_is_no_address():
    with pytest.raises(shop.ShopError):
        shop.deliverable("12 Oak Street, Portland OR 97201 and it was already changed")
    assert shop.deliverable("12 Oak Street, Portland OR 97201") == "12 Oak Street, Portland OR 97201"


def test_a_cantonese_yes_to_both_changes_confirms_the_one_that_waits():
    user, conversation = demo_customer("chen")
    run_turn(user.pk, conversation, "我想改聯絡方式做短訊，同埋把送貨地址改做 香港九龍旺角彌敦道 600 號")

    reply = run_turn(user.pk, conversation, "係呀，兩樣都改").reply

    profile = CustomerProfile.objects.get(user=user)
    assert profile.default_address.startswith("香港九龍旺角彌敦道"), reply
    assert profile.contact_channel == "email", reply  # no phone on file: SMS was refused, never proposed


def test_a_cantonese_yes_takes_up_the_colleague_offered():
    user, conversation = demo_customer("chen")
    run_turn(user.pk, conversation, "0942綠茶退$30")

    assert run_turn(user.pk, conversation, "得，唔該").escalated


def test_a_yes_going_ahead_with_nothing_waiting_changes_nothing_and_says_so():
    user, conversation = demo_customer("alice")
    run_turn(user.pk, conversation, "where is my coffee grinder?")

    reply = run_turn(user.pk, conversation, "yes, go ahead with that").reply

    assert reply.startswith(prompts.NOTHING_PENDING["en"]) and _waiting(user) == [], reply


def test_part_of_the_money_asked_as_a_correction_is_never_proposed_as_the_whole():
    """li: "I mean refund 50 of it first" to the yoga mat's ¥129 refund was read as another order named (and
    then, that fixed, the model proposed the ¥129 again): part of an order's money is never its whole."""
    user, conversation = demo_customer("li")
    run_turn(user.pk, conversation, "退一下瑜伽垫0902吧")

    reply = run_turn(user.pk, conversation, "I mean refund 50 of it first").reply

    assert "another order" not in reply and "full amount" in reply, reply
    assert not Refund.objects.filter(order__number="ORD-2025-0902").exists()


def test_a_phone_told_is_never_the_accounts_and_none_on_it_is_said():
    """chen has no phone on file: asked, the agent said it was not sure and asked to be told; told "我電話係 9123
    4567" in Cantonese, it still did not know it."""
    user, conversation = demo_customer("chen")
    first = run_turn(user.pk, conversation, "我電話號碼係幾多？").reply
    run_turn(user.pk, conversation, "我電話係 9123 4567")

    again = run_turn(user.pk, conversation, "我電話號碼係幾多？").reply

    assert "没有登记电话号码" in first, first
    assert "没有登记电话号码" in again and "91234567" in again, again
