"""An order number no order can have ("ORD-2025-08166": five digits where the shop's have four) is said not to
be found, in the customer's language; it never reaches a tool, whose schema would refuse it and fail the turn
("our assistant is having trouble right now")."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command

from chat.agent import run_turn
from memory import session as short_term

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.mark.parametrize(
    ("username", "text", "said"),
    [
        # round-9 red team's
        ("wang", "ORD-2025-08166 查一下", "没有找到订单ORD-2025-08166"),
        ("chen", "ORD-2025-09411到哪了", "没有找到订单ORD-2025-09411"),
        ("bob", "refund ORD-2025-09311", "couldn't find order ORD-2025-09311"),
    ],
)
def test_an_order_number_no_order_can_have_is_not_found(db, username, text, said):
    call_command("seed_demo", stdout=open("/dev/null", "w"))  # noqa: SIM115
    user = get_user_model().objects.get(username=username)
    conversation = short_term.store().start(user.pk).id

    turn = run_turn(user.pk, conversation, text)

    assert not turn.failed and said in turn.reply, turn.reply
