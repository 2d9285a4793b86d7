"""Left from round 17 (session 20): li's "那另一个呢？还没发货的那个，能取消退款吗".

- A refund question about one order picked out of the list ("还没发货的那个有退款吗") was answered "您的订单目前都没有
  退款记录", said of every order though one was looked at, and beside an order whose status is refunded.
- Cancelling asked as a question ("0902能取消吗", "can i cancel 0932?", "能取消退款吗") was not understood: no tool
  cancels an order or withdraws a refund, so staff are asked, as for "cancel my order".
- "how much did i get back in total?" asked for an order number or listed the orders, and "我总共退了多少钱" gave what
  the orders come to, which reads as money refunded.
"""

from __future__ import annotations

import pytest

from chat.agent import run_turn
from chat.models import Order, Refund
from tests.chat.demo_chat import demo_customer

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_refund_question_about_one_order_picked_out_is_answered_for_that_order():
    user, conversation = demo_customer("li")
    run_turn(user.pk, conversation, "0850退款到账了吗？")

    reply = run_turn(user.pk, conversation, "那另一个呢？还没发货的那个，有退款吗").reply

    assert "ORD-2025-0902" in reply and "没有退款记录" in reply, reply
    assert "都没有" not in reply, reply


@pytest.mark.parametrize(
    ("username", "text", "said"),
    [
        ("alice", "how much did i get back in total?", ["No refund has been approved yet", "$70.00 is still being"]),
        ("alice", "我总共退了多少钱", ["目前没有已批准的退款", "处理中的退款$70.00"]),
        ("li", "我一共退了多少钱？", ["目前没有已批准的退款", "ORD-2025-0850没有退款明细，未计入"]),
        ("bob", "whats the total of my refunds so far", ["Approved refunds come to $30.00"]),
    ],
)
def test_what_the_refunds_come_to_is_summed_from_the_record(username, text, said):
    user, conversation = demo_customer(username)
    if username == "bob":
        Refund.objects.create(
            order=Order.objects.get(number="ORD-2025-0870"), amount="30.00", reason="r", status="approved"
        )

    reply = run_turn(user.pk, conversation, text).reply

    assert all(words in reply for words in said), reply
    assert "come to $4" not in reply and "合计$" not in reply and "合计¥" not in reply, reply  # never what they spent


def test_what_was_spent_is_still_what_the_orders_come_to():
    user, conversation = demo_customer("alice")

    reply = run_turn(user.pk, conversation, "how much did i spend in total?").reply

    assert "come to $408.00" in reply, reply
