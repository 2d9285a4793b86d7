"""Builders for what tests start from: customers, their profiles and orders, memories, working-memory entries.

One place, so a test names only the values it cares about and the rest stay the same suite-wide. The
model factories are factory_boy's: ``CustomerFactory(profile__language="zh-hans")``,
``OrderFactory(customer=user, status="shipped")``. They commit like any ORM call, so rows made under
``transactional_db`` are seen by the worker and daphne processes a test starts.
"""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal

import factory
from django.conf import settings
from django.db import transaction
from factory.django import DjangoModelFactory

from agentsite import clock
from chat.models import CustomerProfile, Order, OrderItem, Shipment, TrackingEvent
from memory.embeddings import get_embedder
from memory.longterm import Candidate, insert
from memory.models import LongTermMemory
from memory.working import Entry, Role, ToolCall


class UserFactory(DjangoModelFactory):
    """A login. Without ``password`` it has none usable, as ``create_user`` makes it."""

    class Meta:
        model = settings.AUTH_USER_MODEL

    username = factory.Sequence(lambda n: f"customer{n}")

    @classmethod
    def _create(cls, model_class, *args, **kwargs):
        # Through create_user, as the site makes accounts: it hashes the password, or marks it unusable.
        return cls._get_manager(model_class).create_user(*args, **kwargs)


class CustomerProfileFactory(DjangoModelFactory):
    """The shop's side of a customer: shown by their username, in English, unless told otherwise."""

    class Meta:
        model = CustomerProfile

    user = factory.SubFactory(UserFactory)
    display_name = factory.LazyAttribute(lambda profile: profile.user.username)
    language = "en"
    phone = factory.Sequence(lambda n: f"1390000{n:04d}")  # on the account, as for most shop customers


class CustomerFactory(UserFactory):
    """A shop customer: a login with a profile (set its fields with ``profile__language=...``)."""

    class Meta:
        skip_postgeneration_save = True  # the profile points at the user: nothing to save again

    profile = factory.RelatedFactory(CustomerProfileFactory, factory_related_name="user")


class OrderFactory(DjangoModelFactory):
    """An order placed now, still being processed."""

    class Meta:
        model = Order

    customer = factory.SubFactory(CustomerFactory)
    number = factory.Sequence(lambda n: f"ORD-2030-{n:04d}")
    status = "processing"
    total = Decimal("59.00")
    placed_at = factory.LazyFunction(clock.now)


class OrderItemFactory(DjangoModelFactory):
    class Meta:
        model = OrderItem

    order = factory.SubFactory(OrderFactory)
    name = "Kettle"
    quantity = 1
    unit_price = factory.LazyAttribute(lambda item: item.order.total)


class ShipmentFactory(DjangoModelFactory):
    class Meta:
        model = Shipment

    order = factory.SubFactory(OrderFactory, status="shipped")
    carrier = "UPS"
    tracking_number = factory.Sequence(lambda n: f"1Z{n}")
    status = factory.LazyAttribute(lambda shipment: shipment.order.status)


class TrackingEventFactory(DjangoModelFactory):
    class Meta:
        model = TrackingEvent

    shipment = factory.SubFactory(ShipmentFactory)
    time = factory.LazyFunction(clock.now)
    location = "Hub"
    description = "In transit"


def entry(role: Role | str, content: str = "", **kwargs) -> Entry:
    """Build a working-memory entry stamped now (real time: entries carry no policy)."""
    return Entry.create(role, content, timestamp=datetime.now(UTC), **kwargs)


def tool_call(call_id: str, name: str = "lookup_order", arguments: str = '{"order_number": "ORD-2025-0001"}') -> Entry:
    return entry(Role.TOOL_CALL, tool_calls=[ToolCall(call_id, name, arguments)])


def tool_result(call_id: str, content: str) -> Entry:
    return entry(Role.TOOL_RESULT, content, tool_call_id=call_id)


def remember(
    customer,
    content: str,
    *,
    key: str = "",
    value: str = "",
    confidence: float = 0.9,
    source: str = "customer_stated",
    type: str = "fact",
) -> LongTermMemory:
    """Insert one memory for ``customer`` as it is (no dedup, no conflict check), embedded for real."""
    candidate = Candidate(type=type, content=content, confidence=confidence, key=key, value=value, source=source)
    with transaction.atomic():
        return insert(
            customer.pk, candidate, get_embedder().embed_passages([content])[0], actor="test", now=clock.now()
        )
