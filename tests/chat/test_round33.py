"""Red team, session 26 (round 33, on 551627e): "cancel" (a refund proposed) then "actually change it again to
12 Elm St, Boston" proposed the cancelled refund again; "…again to 10 Elm St" after 9 Elm St was dropped proposed
9 Elm St."""

from __future__ import annotations

import pytest

from chat.agent import run_turn
from chat.models import PendingAction
from tests.chat.demo_chat import demo_customer

pytestmark = pytest.mark.django_db(transaction=True)


def _waiting(user) -> dict[str, str]:
    return {
        a.tool: a.arguments.get("order_number") or a.arguments.get("address") or ""
        for a in PendingAction.objects.filter(customer=user, status__in=["pending", "queued"])
    }


def test_change_it_again_to_a_new_value_proposes_that_value():
    user, conversation = demo_customer("bob")
    run_turn(user.pk, conversation, "refund the tent please")
    run_turn(user.pk, conversation, "cancel")

    reply = run_turn(user.pk, conversation, "actually change it again to 12 Elm St, Boston").reply

    assert _waiting(user) == {"update_shipping_address": "12 Elm St, Boston"}, reply
