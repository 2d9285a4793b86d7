"""Money asked back by its amount ("can I get $100 back on 0870?", "0901退我300就行") is a partial refund, which
the shop refuses with the full amount it can request; "fine, full amount then" proposes that full amount, and
nothing is refunded before a yes.

Red team, session 19: "fine, full amount then" after a refused partial refund proposed nothing. Found beside
it: "can I get $100 back on 0870?" was not understood at all, and "0901退我300就行" proposed the full ¥599 without
a word on the ¥300 asked for.
"""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command

from chat.agent import run_turn
from chat.models import PendingAction, Refund
from memory import session as short_term

pytestmark = pytest.mark.django_db(transaction=True)

FLOWS = [
    ("bob", "can I get $100 back on 0870? the tent has a tear", "only the full amount", "fine, full amount then"),
    ("alice", "I want $20 back for 0924", "only the full amount", "ok the full amount is fine"),
    ("li", "0901退我300就行", "只能为订单ORD-2025-0901申请全额退款", "那就全额退吧"),
]


@pytest.mark.parametrize(("username", "partial", "refused", "full"), FLOWS)
def test_a_partial_refund_is_refused_and_the_full_one_proposed(username, partial, refused, full):
    call_command("seed_demo", stdout=open("/dev/null", "w"))  # noqa: SIM115
    user = get_user_model().objects.get(username=username)
    refunds = Refund.objects.filter(order__customer=user).count()
    conversation = short_term.store().start(user.pk).id

    first = run_turn(user.pk, conversation, partial).reply
    run_turn(user.pk, conversation, full)

    assert refused in first, first
    proposed = PendingAction.objects.get(customer=user, status=PendingAction.Status.PENDING)
    assert proposed.tool == "request_refund" and "amount" not in proposed.arguments, proposed.arguments
    assert Refund.objects.filter(order__customer=user).count() == refunds
