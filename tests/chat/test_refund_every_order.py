"""A refund of every order ("把所有订单都退款", "refund all my orders") is proposed order by order: the first waits for
a yes, the others are queued behind it, and an order the shop cannot refund is said with its reason.

Red team, session 19: "把所有订单都退款" proposed the one refundable order it picked, without a word on the others.
"""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command

from chat.agent import run_turn
from chat.models import PendingAction, Refund
from memory import session as short_term

pytestmark = pytest.mark.django_db(transaction=True)

EVERY = [
    ("li", "把所有订单都退款", "确认", {"ORD-2025-0901", "ORD-2025-0902"}, "ORD-2025-0850已退款"),
    ("alice", "refund all my orders", "yes", {"ORD-2025-0923", "ORD-2025-0924"}, "ORD-2025-0880 is already being"),
]


@pytest.mark.parametrize(("username", "ask", "yes", "refundable", "refused"), EVERY)
def test_every_order_is_proposed_one_at_a_time(username, ask, yes, refundable, refused):
    call_command("seed_demo", stdout=open("/dev/null", "w"))  # noqa: SIM115
    user = get_user_model().objects.get(username=username)
    refunds = Refund.objects.filter(order__customer=user).count()
    conversation = short_term.store().start(user.pk).id

    reply = run_turn(user.pk, conversation, ask).reply

    proposed = PendingAction.objects.filter(customer=user, tool="request_refund")
    assert {p.arguments["order_number"] for p in proposed} == refundable, reply
    assert sorted(p.status for p in proposed) == ["pending", "queued"], reply
    assert refused in reply and Refund.objects.filter(order__customer=user).count() == refunds, reply

    run_turn(user.pk, conversation, yes)

    assert Refund.objects.filter(order__customer=user).count() == refunds + 1
    assert proposed.filter(status="pending").count() == 1  # the next one, waiting for its own yes
