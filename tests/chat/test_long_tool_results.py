"""A long order the agent looked up: the model reads a few lines of it, the customer still gets every item
and the latest tracking event, and the durable copy keeps the whole result."""

import json
from datetime import timedelta
from decimal import Decimal

import pytest

from agentsite import clock, metrics
from chat import tool_results
from chat.agent import run_turn
from chat.models import Order
from chat.shop import describe_order
from memory import session as short_term
from memory.models import ConversationMessage
from memory.tokens import count_tokens
from memory.working import ToolCall, WorkingMemory
from tests.factories import CustomerFactory, OrderFactory, OrderItemFactory, ShipmentFactory, TrackingEventFactory

pytestmark = pytest.mark.django_db(transaction=True)

QUESTIONS = {
    "en": ("Where is ORD-2026-4242?", "What was in that order?"),
    "zh-hans": ("ORD-2026-4242到哪了？", "这个订单买了什么？"),
}


def _customer_with_a_long_order(language: str):
    user = CustomerFactory(
        username=f"long-{language}", password="x", profile__display_name="Long", profile__language=language
    )
    order = OrderFactory(
        customer=user,
        number="ORD-2026-4242",
        status="shipped",
        total=Decimal("318.50"),
        placed_at=clock.now() - timedelta(days=4),
    )
    for i in range(9):
        OrderItemFactory(order=order, name=f"Ceramic mug #{i}", quantity=1 + i % 3, unit_price=Decimal("9.50"))
    shipment = ShipmentFactory(order=order, carrier="SF Express", tracking_number="SF1234567890")
    for i in range(24):
        TrackingEventFactory(
            shipment=shipment,
            time=clock.now() - timedelta(hours=48 - 2 * i),
            location=f"Depot {i}",
            description=f"Parcel passed sorting centre {i}",
        )
    return user


def _summaries() -> dict[str, float]:
    """``agent_tool_result_summaries_total`` by outcome, as /metrics would say it now."""
    family = next(f for f in metrics.AgentCollector().collect() if f.name == "agent_tool_result_summaries")
    return {s.labels["outcome"]: s.value for s in family.samples if s.name.endswith("_total")}


@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_a_long_result_is_read_as_a_card_and_answered_in_full(language):
    user = _customer_with_a_long_order(language)
    conversation = short_term.store().start(user.pk).id
    where, what = QUESTIONS[language]
    used_before = _summaries().get("used", 0)

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
    assert _summaries()["used"] == used_before + 2  # counted with the model call that read each


def test_a_summary_that_loses_a_value_is_refused_and_counted():
    _customer_with_a_long_order("en")
    result = describe_order(Order.objects.get(number="ORD-2026-4242"))
    buffer = WorkingMemory(8000)
    buffer.append_tool_call([ToolCall("call_1", "lookup_order", '{"order_number": "ORD-2026-4242"}')])
    refused_before = _summaries().get("lost_values", 0)

    entry, raw = tool_results.append(
        buffer,
        "call_1",
        "lookup_order",
        {"order_number": "ORD-2026-4242"},
        result,
        lambda text: "ORD-2026-4242 shipped",
    )
    metrics.record_turn(0.5, "ok")  # the turn's own record carries the count

    assert entry.metadata["summary"] == "lost_values" and not entry.metadata["summarised"]
    assert json.loads(entry.content)["total"] == "318.50"  # the compacted result, every value in it
    assert _summaries()["lost_values"] == refused_before + 1
    assert len(json.loads(raw)["shipment"]["events"]) == 24
