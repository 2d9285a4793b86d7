"""A long order the agent looked up: the model reads a few lines of it, the customer still gets every item
and the latest tracking event, and the durable copy keeps the whole result."""

import json
from datetime import timedelta
from decimal import Decimal

import pytest
from django.contrib.auth import get_user_model

from agentsite import clock
from chat.agent import run_turn
from chat.models import CustomerProfile, Order, OrderItem, Shipment, TrackingEvent
from memory import session as short_term
from memory.models import ConversationMessage
from memory.tokens import count_tokens

pytestmark = pytest.mark.django_db(transaction=True)

QUESTIONS = {
    "en": ("Where is ORD-2026-4242?", "What was in that order?"),
    "zh-hans": ("ORD-2026-4242到哪了？", "这个订单买了什么？"),
}


def _customer_with_a_long_order(language: str):
    user = get_user_model().objects.create_user(username=f"long-{language}", password="x")
    CustomerProfile.objects.create(user=user, display_name="Long", language=language)
    order = Order.objects.create(
        customer=user,
        number="ORD-2026-4242",
        status="shipped",
        total=Decimal("318.50"),
        placed_at=clock.now() - timedelta(days=4),
    )
    for i in range(9):
        OrderItem.objects.create(order=order, name=f"Ceramic mug #{i}", quantity=1 + i % 3, unit_price=Decimal("9.50"))
    shipment = Shipment.objects.create(
        order=order, carrier="SF Express", tracking_number="SF1234567890", status="shipped"
    )
    for i in range(24):
        TrackingEvent.objects.create(
            shipment=shipment,
            time=clock.now() - timedelta(hours=48 - 2 * i),
            location=f"Depot {i}",
            description=f"Parcel passed sorting centre {i}",
        )
    return user


@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_a_long_result_is_read_as_a_card_and_answered_in_full(language):
    user = _customer_with_a_long_order(language)
    conversation = short_term.store().start(user.pk).id
    where, what = QUESTIONS[language]

    tracked = run_turn(user.pk, conversation, where).reply
    listed = run_turn(user.pk, conversation, what).reply

    assert "SF1234567890" in tracked and "Depot 23" in tracked and "Parcel passed sorting centre 23" in tracked
    assert "Depot 22" not in tracked
    separator = "、" if language == "zh-hans" else ", "
    items = separator.join(f"Ceramic mug #{i} ×{1 + i % 3}" for i in range(9))
    assert items in listed and "318.50" in listed
    results = ConversationMessage.objects.filter(conversation_id=conversation, role="tool_result").order_by("seq")
    shipment, order = results
    assert order.content.startswith("[summary] order ORD-2026-4242 shipped, placed ")
    assert "items: Ceramic mug #0; Ceramic mug #1 ×2; Ceramic mug #2 ×3;" in order.content
    assert "latest of 24 events" in shipment.content and "latest of 24 events" in order.content
    raw = json.loads(order.metadata["raw"])  # the whole result, for audit
    assert len(raw["shipment"]["events"]) == 24 and len(raw["items"]) == 9
    assert order.token_count == count_tokens(order.content) < count_tokens(order.metadata["raw"]) / 5
