"""Red team round 43 (session 29): an answer to a refund proposed that opens with thanks was read as thanks only,
and what followed it (all but some, a condition, another currency) was dropped; the full refund kept waiting and
the next "确认" made it.

- chen "好呀，除咗滤网之外全部退" and "唔該，除咗一盒之外全部退" (all but …, in Cantonese), then "确认": made ×2.
- wang "谢谢，前提是还没发货的话就退" (only if not shipped), then "确认": made.
- li "唔該，係嘅，不過退返港幣俾我" (in HKD), then "係": made.
- alice "Thanks! Yes, go ahead." got "You're welcome!" and the proposal lapsed; "thanks, but no" was no no."""

from __future__ import annotations

import pytest

from chat.agent import run_turn
from chat.models import PendingAction, Refund
from tests.chat.demo_chat import demo_customer

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.mark.parametrize(
    ("who", "ask", "answer", "yes", "order", "said"),
    [
        ("chen", "ORD-2025-0941 空气净化器 全额退款", "好呀，除咗滤网之外全部退", "确认", "ORD-2025-0941", "部分退款"),
        ("chen", "退ORD-2025-0942", "唔該，除咗一盒之外全部退", "確認", "ORD-2025-0942", "部分退款"),
        ("li", "幫我退ORD-2025-0902", "唔該，係嘅，不過退返港幣俾我", "係", "ORD-2025-0902", "币种"),
        ("li", "幫我退ORD-2025-0902", "唔該，係，退美金俾我", "係", "ORD-2025-0902", "币种"),
        (
            "bob",
            "refund order 0932 please",
            "ok so yes, but pay it back in euros please",
            "yes",
            "ORD-2025-0932",
            "currency",
        ),
        (
            "bob",
            "refund order 0932 please",
            "thanks - only one of the bottles though",
            "yes",
            "ORD-2025-0932",
            "partial",
        ),
    ],
)
def test_what_follows_thanks_is_read_and_the_whole_is_dropped(who, ask, answer, yes, order, said):
    user, conversation = demo_customer(who)
    run_turn(user.pk, conversation, ask)

    reply = run_turn(user.pk, conversation, answer).reply
    run_turn(user.pk, conversation, yes)

    assert said in reply, reply
    assert not Refund.objects.filter(order__number=order).exists(), reply


def test_a_condition_after_thanks_is_refused_and_the_change_waits():
    user, conversation = demo_customer("wang")
    run_turn(user.pk, conversation, "退掉ORD-2025-0816")

    reply = run_turn(user.pk, conversation, "谢谢，前提是还没发货的话就退").reply

    assert "条件" in reply and not Refund.objects.filter(order__number="ORD-2025-0816").exists(), reply
    assert PendingAction.objects.get(customer=user).status == "pending", reply


@pytest.mark.parametrize(("answer", "made"), [("Thanks! Yes, go ahead.", True), ("thanks, but no", False)])
def test_an_answer_after_thanks_is_the_answer(answer, made):
    user, conversation = demo_customer("bob")
    run_turn(user.pk, conversation, "refund order 0932 please")

    reply = run_turn(user.pk, conversation, answer).reply

    assert Refund.objects.filter(order__number="ORD-2025-0932").exists() is made, reply
    assert not PendingAction.objects.filter(customer=user, status="pending").exists(), reply
