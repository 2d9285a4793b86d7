"""A change proposed before the customer's latest login is no longer confirmable (a leftover of session 24's red
team: "proposals older than a new login")."""

from __future__ import annotations

import pytest

from chat.agent import run_turn
from chat.models import PendingAction
from tests.chat.demo_chat import demo_customer

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_yes_after_a_new_login_confirms_no_proposal_of_an_earlier_one():
    """A refund proposed, then the customer logs in again (another device, or after logging out): the yes that
    comes next answered no proposal it was shown in this login, so the refund lapses and the customer is told."""
    from django.test import Client

    from chat.models import Refund

    user, conversation = demo_customer("bob")
    run_turn(user.pk, conversation, "refund my tent order")
    assert PendingAction.objects.get(customer=user).status == PendingAction.Status.PENDING

    Client().force_login(user)
    reply = run_turn(user.pk, conversation, "yes").reply

    assert not Refund.objects.filter(order__number="ORD-2025-0870").exists()
    assert "lapsed" in reply, reply
    assert PendingAction.objects.get(customer=user).status == PendingAction.Status.LAPSED
