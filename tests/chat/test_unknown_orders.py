"""An order number the shop found no order of the customer's for is not remembered as an order they asked
about: recalled later, "the order from last time" would be another customer's or a made-up number."""

from __future__ import annotations

import pytest
from django.core.management import call_command

from chat.agent import run_turn
from memory import session as short_term
from memory.consolidation import consolidate
from memory.models import LongTermMemory

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def customers(db):
    from django.contrib.auth import get_user_model

    call_command("seed_demo", stdout=open("/dev/null", "w"))  # noqa: SIM115
    return {u.username: u for u in get_user_model().objects.all()}


@pytest.mark.parametrize(
    ("username", "theirs", "not_theirs", "ask"),
    [
        ("wang", "ORD-2025-0817", "ORD-2025-0901", "我的订单号是 {order}，帮我查一下"),  # 0901 is li's
        ("alice", "ORD-2025-0924", "ORD-2025-0881", "my order number is {order}, where is it?"),  # 0881 is nobody's
    ],
)
def test_an_order_the_shop_did_not_find_is_not_remembered(customers, username, theirs, not_theirs, ask):
    """Before, wang's memory kept li's order number, and a later "快递会送到哪个地址" looked it up (round-5
    red team)."""
    user = customers[username]
    conversation = short_term.store().start(user.pk).id
    run_turn(user.pk, conversation, ask.format(order=not_theirs))
    run_turn(user.pk, conversation, ask.format(order=theirs))

    consolidate(conversation, final=True)

    remembered = set(
        LongTermMemory.objects.valid().filter(customer=user, key="order_number").values_list("value", flat=True)
    )
    assert not_theirs not in remembered and theirs in remembered, remembered
