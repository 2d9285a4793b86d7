"""Red team, session 26 (round 31, on 8525aa6): a correction in Cantonese ("唔係呢張，係跑步鞋嗰張") was not read,
and li's yoga mat refund, set aside, kept waiting for the next "确认". Corrections opening with a pause ("等一下",
"scratch that", "whoops, wrong order") and Cantonese ones are read, and the application drops the order set aside
whatever the model makes of them."""

from __future__ import annotations

import pytest

from chat.agent import run_turn
from chat.models import PendingAction, Refund
from tests.chat.demo_chat import demo_customer

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.mark.parametrize(
    ("who", "first", "correction", "yes", "meant", "set_aside"),
    [
        ("li", "帮我退瑜伽垫", "唔係呢張，係跑步鞋嗰張", "确认", "ORD-2025-0901", "ORD-2025-0902"),
        ("wang", "耳机那单帮我退咗佢", "等一下，我搞错咗，係鍵盤嗰單", "係呀", "ORD-2025-0790", "ORD-2025-0816"),
        ("chen", "空气净化器那单我想退款", "等等，不是这个，是绿茶那单", "确认", "ORD-2025-0942", "ORD-2025-0941"),
        ("bob", "refund the backpack please", "scratch that, the tent one", "yes", "ORD-2025-0870", "ORD-2025-0931"),
        (
            "alice",
            "refund the coffee grinder",
            "whoops, wrong order. the headphones one",
            "yes",
            "ORD-2025-0923",
            "ORD-2025-0924",
        ),
    ],
)
def test_a_correction_proposes_the_order_meant_and_the_yes_refunds_only_it(
    who, first, correction, yes, meant, set_aside
):
    user, conversation = demo_customer(who)
    run_turn(user.pk, conversation, first)

    reply = run_turn(user.pk, conversation, correction).reply
    run_turn(user.pk, conversation, yes)

    assert Refund.objects.filter(order__number=meant).exists(), reply
    assert not Refund.objects.filter(order__number=set_aside).exists(), reply


@pytest.mark.parametrize(
    ("who", "first", "correction", "yes", "set_aside"),
    [
        ("li", "帮我退瑜伽垫", "唔係呢張，係紫色嗰張", "确认", "ORD-2025-0902"),
        ("bob", "refund the backpack please", "scratch that, the purple one", "yes", "ORD-2025-0931"),
    ],
)
def test_an_order_set_aside_for_one_not_found_is_never_refunded(who, first, correction, yes, set_aside):
    user, conversation = demo_customer(who)
    run_turn(user.pk, conversation, first)

    reply = run_turn(user.pk, conversation, correction).reply
    run_turn(user.pk, conversation, yes)

    assert not PendingAction.objects.filter(customer=user, status=PendingAction.Status.PENDING).exists(), reply
    assert not Refund.objects.filter(order__number=set_aside).exists(), reply
