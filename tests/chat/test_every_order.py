"""A question about every order is answered for every order: "track all my orders" tracked the one shipped order
only, and "列一下我所有的退款" ("list all my refunds") proposed a refund."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command

from chat.agent import run_turn
from chat.models import PendingAction
from memory import session as short_term

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def customers(db):
    call_command("seed_demo", stdout=open("/dev/null", "w"))  # noqa: SIM115
    return {u.username: u for u in get_user_model().objects.all()}


def _say(user, text: str) -> str:
    return run_turn(user.pk, short_term.store().start(user.pk).id, text).reply


@pytest.mark.parametrize(
    ("username", "text", "expected", "not_there"),
    [
        ("alice", "track all my orders", ["ORD-2025-0923", "1Z999AA10123456784", "JD014600006281"], []),
        ("alice", "where are all my orders?", ["ORD-2025-0923", "1Z999AA10123456784", "JD014600006281"], []),
        ("wang", "帮我列一下所有订单的物流", ["ORD-2025-0816", "SF1234567890", "JD0098765432"], ["ORD-2025-0702"]),
    ],
)
def test_every_order_is_tracked(customers, username, text, expected, not_there):
    reply = _say(customers[username], text)

    assert all(value in reply for value in expected), reply
    assert not any(value in reply for value in not_there), reply  # a cancelled order has no parcel


@pytest.mark.parametrize("text", ["列一下我所有的退款", "显示我的退款", "show me all my refunds"])
def test_a_list_of_refunds_asked_for_proposes_none(customers, text):
    wang = customers["wang"]

    reply = _say(wang, text)

    assert not PendingAction.objects.filter(customer=wang).exists(), reply
    assert "没有退款记录" in reply or "no refunds on record" in reply, reply
