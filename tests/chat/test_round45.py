"""Red team round 45 (session 30): parts of an order asked in words or Chinese numerals were proposed whole, and a
no that named a value no proposal took up left the change said no to waiting for a yes."""

from __future__ import annotations

import pytest

from chat.agent import run_turn
from chat.answers import asks_for_part, in_simplified
from chat.models import CustomerProfile, PendingAction, Refund
from tests.chat.demo_chat import demo_customer

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.mark.parametrize(
    ("who", "text", "order"),
    [
        ("alice", "Please refund the headphones, two hundred dollars is fine", "ORD-2025-0923"),
        ("alice", "refund the coffee grinder, eighty bucks is enough", "ORD-2025-0924"),
        ("chen", "空氣淨化器幫我退一千二啦", "ORD-2025-0941"),
        ("wang", "请帮我退耳机二百九", "ORD-2025-0816"),
        ("wang", "保温杯退一百二", "ORD-2025-0817"),
    ],
)
def test_a_part_in_words_or_numerals_is_never_proposed_whole(who, text, order):
    """Each of these proposed the order's full amount."""
    user, conversation = demo_customer(who)

    reply = run_turn(user.pk, conversation, text).reply

    assert "部分退款" in reply or "partial refund" in reply, reply
    assert not PendingAction.objects.filter(customer=user, tool="request_refund").exists(), reply
    assert not Refund.objects.filter(order__number=order).exists(), reply


@pytest.mark.parametrize(
    ("text", "total", "part"),
    [
        ("two hundred dollars is fine", "249", True),
        ("one hundred and twenty-five bucks back", "249", True),
        ("退一千二啦", "1299", True),
        ("请退空气净化器壹仟贰佰元", "1299", True),
        ("退耳机二百九", "299", True),
        ("退0941啦", "1299", False),
        ("帮我退一下", "1299", False),
        ("退十一月买的键盘", "459", False),
        ("退一千二百九十九", "1299", False),
        ("three hundred and twenty dollars back", "320", False),
    ],
)
def test_amounts_in_words(text, total, part):
    assert asks_for_part(in_simplified(text), total) is part


@pytest.mark.parametrize(
    ("who", "ask", "no", "yes", "field", "kept"),
    [
        # a way of contact the shop does not offer (WeChat and a call are proposed in place: test_round46_left.py)
        ("wang", "把联系方式改成短信", "唔係，改成QQ啦", "确认", "contact_channel", "email"),
        ("bob", "text me from now on", "no, use carrier pigeon instead", "yes", "contact_channel", "email"),
    ],
)
def test_a_no_naming_what_no_proposal_takes_up_drops_the_change(who, ask, no, yes, field, kept):
    """wang: SMS proposed, "唔係，改做微信啦" (no, WeChat) was not understood and SMS kept waiting; "确认" made it."""
    user, conversation = demo_customer(who)
    run_turn(user.pk, conversation, ask)

    reply = run_turn(user.pk, conversation, no).reply
    run_turn(user.pk, conversation, yes)

    assert "说了不" in reply or "You said no" in reply, reply
    assert getattr(CustomerProfile.objects.get(user=user), field) == kept
    assert not PendingAction.objects.filter(customer=user, status="pending").exists()
