"""Red team, session 25 (round 29, on 3e14d91): a Chinese correction of the order to refund not read (and the next
"确认" refunded the order taken back), "the cheaper one" of two things named in the message, an English status
word in a Chinese request, the oldest order said with 下, traditional Cantonese, a channel change taken back in
favour of the one on record, and a yes naming the address proposed."""

from __future__ import annotations

import pytest

from chat.agent import run_turn
from chat.models import CustomerProfile, PendingAction, Refund
from tests.chat.demo_chat import demo_customer

pytestmark = pytest.mark.django_db(transaction=True)


def _waiting(user) -> PendingAction:
    return PendingAction.objects.get(customer=user, status=PendingAction.Status.PENDING)


@pytest.mark.parametrize(
    ("who", "first", "correction", "order"),
    [
        # the application passes on "是键盘那单", what the no taken back ended on: the pick alone
        ("wang", "帮我把耳机那单退了", "不对不对，我说错了，是键盘那单", "ORD-2025-0790"),
        ("bob", "refund my tent order", "the backpack one", "ORD-2025-0931"),
    ],
)
def test_the_order_picked_after_a_proposal_takes_its_place(who, first, correction, order):
    user, conversation = demo_customer(who)
    run_turn(user.pk, conversation, first)
    refunds = Refund.objects.count()

    reply = run_turn(user.pk, conversation, correction).reply

    assert _waiting(user).arguments["order_number"] == order, reply
    assert Refund.objects.count() == refunds  # nothing refunded: the one picked waits for its own yes


@pytest.mark.parametrize(
    ("who", "text", "order"),
    [
        ("wang", "耳机同键盘边个平啲？平嗰個幫我退咗佢", "ORD-2025-0816"),  # ¥299 of the two, not the ¥178 cup
        ("wang", "帮我把那个已经shipped的order refund掉吧", "ORD-2025-0817"),  # not the delivered keyboard
        ("li", "我條瑜伽墊唔想要喇，幫我退錢啦", "ORD-2025-0902"),
    ],
)
def test_the_order_described_is_the_one_proposed(who, text, order):
    user, conversation = demo_customer(who)

    reply = run_turn(user.pk, conversation, text).reply

    assert _waiting(user).arguments["order_number"] == order, reply


@pytest.mark.parametrize(
    ("who", "text", "said", "not_said"),
    [
        ("chen", "我最早下的那个订单是哪个？多少钱？", "ORD-2025-0942", "ORD-2025-0941"),
        ("li", "瑜伽墊張單而家係咩狀態？有冇退款記錄？", "ORD-2025-0902", "都没有退款记录"),
        ("li", "我條瑜伽墊唔想要喇，幫我退錢啦，順便問下對跑步鞋幾時到？", "ZT5566778899", "没有找到"),
        ("wang", "耳机同键盘边个平啲？平嗰個幫我退咗佢，退返去我張招商銀行卡度", "原路退回", "申请退款"),
    ],
)
def test_cantonese_and_mixed_requests_are_read(who, text, said, not_said):
    user, conversation = demo_customer(who)

    reply = run_turn(user.pk, conversation, text).reply

    assert said in reply and not_said not in reply, reply


@pytest.mark.parametrize("taken_back", ["hmm, actually use email instead of SMS", "Sorry, I meant email, not SMS"])
def test_a_change_taken_back_for_the_channel_on_record_is_dropped(taken_back):
    """alice's SMS proposal stayed waiting beside "Nothing needs changing"."""
    user, conversation = demo_customer("alice")
    run_turn(user.pk, conversation, "switch my contact channel to SMS")

    run_turn(user.pk, conversation, taken_back)

    assert not PendingAction.objects.filter(customer=user, status=PendingAction.Status.PENDING).exists()
    assert CustomerProfile.objects.get(user=user).contact_channel == "email"


def test_a_yes_naming_the_address_proposed_saves_it():
    user, conversation = demo_customer("bob")
    run_turn(user.pk, conversation, "change my address to 1601 Pennsylvania Ave, Washington DC 20500")

    run_turn(user.pk, conversation, "yes, save 1601 Pennsylvania Ave, Washington DC 20500")

    assert CustomerProfile.objects.get(user=user).default_address == "1601 Pennsylvania Ave, Washington DC 20500"


def test_which_orders_have_refunds_is_answered_with_their_refunds():
    """Round 29: right after a refund, bob's "Which of my orders have refunds on record, and are my notifications on
    or off?" listed his orders and no refund."""
    user, conversation = demo_customer("bob")
    run_turn(user.pk, conversation, "refund my backpack order")
    run_turn(user.pk, conversation, "yes")

    reply = run_turn(
        user.pk, conversation, "Which of my orders have refunds on record, and are my notifications on or off?"
    ).reply

    assert "ORD-2025-0931: Refunds on record" in reply and "notifications" in reply, reply


def test_things_joined_by_or_in_a_question_are_each_answered():
    """ "Do my grinder or headphones orders have refunds on record?" answered the grinder only."""
    user, conversation = demo_customer("alice")

    reply = run_turn(user.pk, conversation, "Do my grinder or headphones orders have refunds on record?").reply

    assert "ORD-2025-0924" in reply and "ORD-2025-0923" in reply, reply


def test_a_refund_of_one_thing_or_another_asks_which():
    """ "refund the backpack or the tent" proposed the backpack's refund: one of them, not said which."""
    user, conversation = demo_customer("bob")

    reply = run_turn(user.pk, conversation, "refund the backpack or the tent").reply

    assert "order number" in reply, reply
    assert not PendingAction.objects.filter(customer=user).exists()
