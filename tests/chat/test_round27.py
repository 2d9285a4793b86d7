"""Red team, session 24 (round 27): "wheres my cofee grindr at?? ordered it like 3 days ago" tracked the desk lamps'
order (0880, the one of alice's earlier chat): "3 days ago" was read as "the order from last time" before the thing
named, mistyped, was looked for."""

from __future__ import annotations

import pytest

from chat.agent import run_turn
from tests.chat.demo_chat import demo_customer

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_thing_named_decides_over_a_time_it_was_ordered():
    user, conversation = demo_customer("alice")

    reply = run_turn(user.pk, conversation, "wheres my cofee grindr at?? ordered it like 3 days ago").reply

    assert "ORD-2025-0924" in reply and "ORD-2025-0880" not in reply, reply
