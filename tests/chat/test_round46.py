"""Red team round 46 (session 30): a part said as a fraction in Cantonese ("三分二") or "about ¥100" after a full
refund proposed was no part, and the whole was made or kept waiting; "keep it as it is" with a question after it
left the change waiting; a no, then a request, lost the request."""

from __future__ import annotations

import pytest

from chat.agent import run_turn
from chat.answers import asks_for_part, in_simplified
from chat.models import PendingAction, Refund
from tests.chat.demo_chat import demo_customer

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_cantonese_fraction_is_a_part_and_the_yes_makes_nothing():
    """chen: "咁 0942 綠茶退款啦，但係扣返一盒先，即係退三分二" proposed ¥204, and "係" made it."""
    user, conversation = demo_customer("chen")

    reply = run_turn(user.pk, conversation, "咁 0942 綠茶退款啦，但係扣返一盒先，即係退三分二").reply
    run_turn(user.pk, conversation, "係")

    assert "部分退款" in reply, reply
    assert not Refund.objects.filter(order__number="ORD-2025-0942").exists(), reply


@pytest.mark.parametrize(
    ("ask", "part", "order"),
    [
        ("0790 键盘全退吧", "等等，其实只退键盘上坏咗嘅键帽，大概壹佰蚊左右", "ORD-2025-0790"),
        ("0816 耳机退款", "呃，淨係退個充電盒就得，大約八十蚊", "ORD-2025-0816"),
    ],
)
def test_about_an_amount_after_a_full_refund_proposed_is_a_part(ask, part, order):
    """wang: the full refund kept waiting, and was asked again on "係"."""
    user, conversation = demo_customer("wang")
    run_turn(user.pk, conversation, ask)

    reply = run_turn(user.pk, conversation, part).reply
    run_turn(user.pk, conversation, "係")

    assert "部分退款" in reply, reply
    assert not PendingAction.objects.filter(customer=user, status="pending").exists(), reply
    assert not Refund.objects.filter(order__number=order).exists(), reply


@pytest.mark.parametrize(
    ("who", "ask", "keep"),
    [
        ("alice", "contact me by SMS only from now on", "nah scratch that, keep whatever it is now. what's it set to?"),
        ("wang", "改我的联系方式为电话", "嗯其实维持现状吧，我现在登记的是什么？"),
    ],
)
def test_keeping_it_as_it_is_with_a_question_drops_the_change(who, ask, keep):
    user, conversation = demo_customer(who)
    run_turn(user.pk, conversation, ask)

    reply = run_turn(user.pk, conversation, keep).reply

    assert "cancelled" in reply or "已取消" in reply, reply
    assert not PendingAction.objects.filter(customer=user, status="pending").exists(), reply


def test_a_no_then_a_request_in_cantonese_answers_the_request():
    """ "算啦唔好退住，帮我查下0817到边了" cancelled the refund and said nothing of 0817."""
    user, conversation = demo_customer("wang")
    run_turn(user.pk, conversation, "退0816")

    reply = run_turn(user.pk, conversation, "算啦唔好退住，帮我查下0817到边了").reply

    assert "已取消" in reply and "ORD-2025-0817" in reply, reply


@pytest.mark.parametrize(
    ("text", "total", "part"),
    [
        ("即係退三分二", "204", True),
        ("扣返一盒先", "204", True),
        ("大概壹佰蚊左右", "459", True),
        ("refund the one around $130", "129", False),
        ("refund the ~$130 one", "129", False),
        ("129块那单退了", "129", False),
        ("三分钟后再说", "204", False),
    ],
)
def test_parts_said_as_fractions_deductions_and_about_amounts(text, total, part):
    assert asks_for_part(in_simplified(text), total) is part
