"""A question about the refunds the customer asked for is answered from the shop's refunds, by the day they were
requested, and never proposes one.

Session 19: "我昨天申请了哪些退款？" ("which refunds did I apply for yesterday?") proposed a refund of the order
placed yesterday (the 请 of 申请 read as "please"); "which refunds did I request yesterday?" answered with the
order placed yesterday, or after a refund in the chat with that refund's order, whatever day it was requested.
"""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.core.management import call_command

from agentsite import clock
from chat.agent import run_turn
from chat.models import PendingAction
from memory import session as short_term
from tests.factories import CustomerFactory

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def bob_after_a_refund(at_noon):
    call_command("seed_demo", stdout=open("/dev/null", "w"))  # noqa: SIM115
    bob = CustomerFactory._meta.model.objects.get(username="bob")
    conversation = short_term.store().start(bob.pk).id
    run_turn(bob.pk, conversation, "refund 0931 please")
    run_turn(bob.pk, conversation, "yes")
    return bob, conversation


@pytest.mark.parametrize(
    ("question", "day", "expected"),
    [
        ("which refunds did I request yesterday?", -1, "There is no refund on record requested on {day}"),
        ("我昨天申请了哪些退款？", -1, "记录里没有{day}申请的退款"),
        (
            "which refunds did I ask for today?",
            0,
            "ORD-2025-0931: Refunds on record: a refund of $129.00 requested {day}",
        ),
        ("我今天申请过退款吗", 0, "订单ORD-2025-0931：退款记录：{day}申请的退款$129.00"),
        ("我申请过哪些退款", 0, "订单ORD-2025-0931：退款记录：{day}申请的退款$129.00"),
    ],
)
def test_refunds_asked_by_the_day_requested(bob_after_a_refund, question, day, expected):
    bob, conversation = bob_after_a_refund
    asked = (clock.now() + timedelta(days=day)).date().isoformat()

    reply = run_turn(bob.pk, conversation, question).reply

    assert expected.format(day=asked) in reply, reply
    assert "Water bottle" not in reply and "ORD-2025-0932" not in reply, reply  # the order placed yesterday
    assert PendingAction.objects.filter(customer=bob).count() == 1  # the refund asked for at first, no other


def test_the_order_placed_yesterday_is_still_that_order(bob_after_a_refund):
    bob, conversation = bob_after_a_refund

    reply = run_turn(bob.pk, conversation, "is there a refund on the order I placed yesterday?").reply

    assert "ORD-2025-0932" in reply and "no refund on record for this order" in reply, reply


def test_refunds_asked_after_as_a_whole_beside_another_order_are_every_orders():
    """Red team, session 19: "我之前是不是申请过退款？0943的地址改了没？" answered the refunds of 0943 only ("这个订单没有
    退款记录"), the order the second question named, while 0942 had one."""
    call_command("seed_demo", stdout=open("/dev/null", "w"))  # noqa: SIM115
    chen = CustomerFactory._meta.model.objects.get(username="chen")
    conversation = short_term.store().start(chen.pk).id
    run_turn(chen.pk, conversation, "0942退款")
    run_turn(chen.pk, conversation, "确认")

    reply = run_turn(chen.pk, conversation, "我之前是不是申请过退款？0943的地址改了没？").reply

    assert "ORD-2025-0942" in reply and "¥204.00" in reply and "ORD-2025-0943" in reply, reply
