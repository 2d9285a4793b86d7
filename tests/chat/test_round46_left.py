"""Red team round 46's leftovers (session 31): parts said loosely ("like two-thirds", "thirty-ish dollars") left
the full refund proposed or waiting."""

from __future__ import annotations

import pytest

from chat.agent import run_turn
from chat.models import PendingAction
from tests.chat.demo_chat import demo_customer

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.mark.parametrize(
    ("who", "ask", "part"),
    [
        ("alice", "refund the grinder", "keep it but get like two-thirds of my money back"),
        ("bob", "refund the tent", "thirty-ish dollars back?"),
    ],
)
def test_a_loose_part_drops_the_full_refund(who, ask, part):
    user, conversation = demo_customer(who)
    run_turn(user.pk, conversation, ask)

    reply = run_turn(user.pk, conversation, part).reply

    assert "partial refund needs a colleague" in reply, reply
    assert not PendingAction.objects.filter(customer=user, status="pending").exists(), reply
