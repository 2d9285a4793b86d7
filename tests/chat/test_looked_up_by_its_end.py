"""An order looked up by the end of its number ("帮我查一下0817吧", "check 0923", "0816?") is answered with how it
stands, and its refund looked up ("查一下0817的退款", "check 0880s refund") is the record, never a refund proposed.

Red team, session 19: "帮我查一下0817吧" got "I did not understand"; found beside it, "查一下0817的退款" proposed a
refund of the order.
"""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command

from chat.agent import run_turn
from chat.models import PendingAction
from memory import session as short_term

pytestmark = pytest.mark.django_db(transaction=True)

LOOKED_UP = [
    ("wang", "帮我查一下0817吧", "ORD-2025-0817"),
    ("wang", "看看0816", "ORD-2025-0816"),
    ("wang", "0816?", "ORD-2025-0816"),
    ("alice", "check 0923 pls", "ORD-2025-0923"),
    ("bob", "can you pull up #0931?", "ORD-2025-0931"),
    ("wang", "查一下0817的退款", "没有退款记录"),
    ("alice", "check 0880s refund", "Refunds on record"),
    ("bob", "check the 0931 refund", "no refund on record"),
]


@pytest.mark.parametrize(("username", "text", "answer"), LOOKED_UP)
def test_an_order_looked_up_by_its_end_is_answered(username, text, answer):
    call_command("seed_demo", stdout=open("/dev/null", "w"))  # noqa: SIM115
    user = get_user_model().objects.get(username=username)

    reply = run_turn(user.pk, short_term.store().start(user.pk).id, text).reply

    assert answer in reply, reply
    assert not PendingAction.objects.filter(customer=user).exists(), reply
