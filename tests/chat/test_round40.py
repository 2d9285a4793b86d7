"""Red team, session 28 (round 40, on bd95282): four part refunds became the whole, and one on a condition.

- bob "Refund everything on 0932 except one bottle please." → $45 proposed, "yes" requested it.
- chen "0942绿茶唔使全部退，退两盒就得", wang "0816耳机不要全部退哈，退个两百就行", alice "Headphones 0923: please refund
  two hundred dollars of it, not the whole thing." → the whole proposed and confirmed: the whole said not to be
  wanted is part of it wanted, whatever amount follows in words.
- bob "Refund the tent on 0870 in full - assuming it's still within the return window, of course - thanks." →
  proposed and made: "assuming" sets a condition.
- wang "0817这单两个保温杯，兩個都退，唔該" got "不客气": the request before the thanks was dropped."""

from __future__ import annotations

import pytest

from chat.agent import run_turn
from chat.models import PendingAction, Refund
from tests.chat.demo_chat import demo_customer

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.mark.parametrize(
    ("who", "text", "order"),
    [
        ("bob", "Refund everything on 0932 except one bottle please.", "ORD-2025-0932"),
        ("chen", "0942绿茶唔使全部退，退两盒就得", "ORD-2025-0942"),
        ("wang", "0816耳机不要全部退哈，退个两百就行", "ORD-2025-0816"),
        ("alice", "Headphones 0923: please refund two hundred dollars of it, not the whole thing.", "ORD-2025-0923"),
        ("wang", "0817除了一个都退吧，我只留一个", "ORD-2025-0817"),
    ],
)
def test_the_whole_said_not_to_be_wanted_is_never_proposed(who, text, order):
    user, conversation = demo_customer(who)

    reply = run_turn(user.pk, conversation, text).reply
    run_turn(user.pk, conversation, "yes" if who in ("bob", "alice") else "确认")

    assert not Refund.objects.filter(order__number=order).exists(), reply
    assert not PendingAction.objects.filter(customer=user, status="pending").exists(), reply


def test_a_refund_assuming_something_is_asked_on_a_condition():
    user, conversation = demo_customer("bob")

    reply = run_turn(
        user.pk,
        conversation,
        "Refund the tent on 0870 in full - assuming it's still within the return window, of course - thanks.",
    ).reply
    run_turn(user.pk, conversation, "yes")

    assert "condition" in reply and not Refund.objects.filter(order__number="ORD-2025-0870").exists(), reply


def test_a_whole_refund_then_thanks_is_proposed():
    user, conversation = demo_customer("wang")

    reply = run_turn(user.pk, conversation, "0817这单两个保温杯，兩個都退，唔該").reply

    assert [a.tool for a in PendingAction.objects.filter(customer=user, status="pending")] == ["request_refund"], reply
    assert "¥178.00" in reply, reply


@pytest.mark.parametrize(
    ("text", "part"),
    [
        ("refund everything except one bottle", True),
        ("除了一个都退", True),
        ("其余的都退", True),
        ("0816耳机不要全部退哈，退个两百就行", True),
        ("唔使全部退", True),
        ("refund everything", False),
        ("全部退", False),
        ("refund the full amount", False),
    ],
)
def test_all_but_some_and_the_whole_said_not_wanted_are_part(text, part):
    from chat.answers import asks_for_part, asks_for_the_whole, in_simplified

    assert asks_for_part(in_simplified(text), "299") is part
    assert asks_for_the_whole(in_simplified(text)) is not part
