"""Left from round 17 (session 20): li's "那另一个呢？还没发货的那个，能取消退款吗".

- A refund question about one order picked out of the list ("还没发货的那个有退款吗") was answered "您的订单目前都没有
  退款记录", said of every order though one was looked at, and beside an order whose status is refunded.
- Cancelling asked as a question ("0902能取消吗", "can i cancel 0932?", "能取消退款吗") was not understood: no tool
  cancels an order or withdraws a refund, so staff are asked, as for "cancel my order".
"""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command

from chat.agent import run_turn
from memory import session as short_term

pytestmark = pytest.mark.django_db(transaction=True)


def _customer(username: str):
    call_command("seed_demo", stdout=open("/dev/null", "w"))  # noqa: SIM115
    user = get_user_model().objects.get(username=username)
    return user, short_term.store().start(user.pk).id


def test_a_refund_question_about_one_order_picked_out_is_answered_for_that_order():
    user, conversation = _customer("li")
    run_turn(user.pk, conversation, "0850退款到账了吗？")

    reply = run_turn(user.pk, conversation, "那另一个呢？还没发货的那个，有退款吗").reply

    assert "ORD-2025-0902" in reply and "没有退款记录" in reply, reply
    assert "都没有" not in reply, reply
