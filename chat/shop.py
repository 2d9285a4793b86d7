"""The demo shop's operations, always on behalf of ONE customer.

Reads return plain dicts (what a tool hands the model). Changes write through to long-term memory
as ``system_record`` memories in the same transaction, so long-term memory and the shop's data
never disagree (the article's section 7: the session says notifications on, long-term memory
says muted — that cannot arise here).
"""

from __future__ import annotations

import re
from decimal import Decimal
from uuid import UUID

from django.db import transaction

from agentsite import clock
from chat.models import CustomerProfile, Order, Refund
from memory.embeddings import get_embedder
from memory.keys import normalise
from memory.longterm import Candidate, customer_lock, store

ORDER_NUMBER = re.compile(r"^ORD-\d{4}-\d{4}$")
REFUNDABLE = {
    Order.Status.PAID,
    Order.Status.PROCESSING,
    Order.Status.SHIPPED,
    Order.Status.IN_TRANSIT,
    Order.Status.DELIVERED,
}


class ShopError(Exception):
    """A request the shop refuses; the message is safe to show the customer (and the model).

    ``experience`` is a sentence worth remembering next time (a refund refused, say): the tool
    result carries it, and the conversation's final consolidation stores it as an experience.
    """

    def __init__(self, message: str, experience: str = "") -> None:
        super().__init__(message)
        self.experience = experience


def find_order(customer_id: int, order_number: str) -> Order:
    """The customer's own order; another customer's order is "not found", exactly like a missing one."""
    number = order_number.strip().upper()
    if not ORDER_NUMBER.match(number):
        raise ShopError(f"{order_number!r} is not an order number (they look like ORD-2025-0816)")
    order = Order.objects.filter(customer_id=customer_id, number=number).first()
    if order is None:
        raise ShopError(f"order {number} not found")
    return order


def describe_order(order: Order) -> dict:
    data = {
        "order_number": order.number,
        "status": order.status,
        "placed_at": order.placed_at.date().isoformat(),
        "total": str(order.total),
        "currency": order.currency,
        "items": [{"name": i.name, "quantity": i.quantity} for i in order.items.all()],
    }
    shipment = getattr(order, "shipment", None)
    if shipment is not None:
        data["shipment"] = describe_shipment(order)
    return data


# What an order without a shipment row says, by its status: the order's status is the truth, and a delivered
# order whose carrier details were never recorded was still shipped.
NO_SHIPMENT_NOTE = {
    Order.Status.SHIPPED: "shipped; no tracking details recorded",
    Order.Status.IN_TRANSIT: "in transit; no tracking details recorded",
    Order.Status.DELIVERED: "delivered; no tracking details recorded",
    Order.Status.CANCELLED: "cancelled; it will not be shipped",
    Order.Status.REFUNDED: "refunded",
}


def describe_shipment(order: Order) -> dict:
    shipment = getattr(order, "shipment", None)
    if shipment is None:
        note = NO_SHIPMENT_NOTE.get(order.status, "not shipped yet")
        return {"order_number": order.number, "status": order.status, "events": [], "note": note}
    return {
        "order_number": order.number,
        "carrier": shipment.carrier,
        "tracking_number": shipment.tracking_number,
        "status": shipment.status,
        "eta": shipment.eta.isoformat() if shipment.eta else None,
        "events": [
            {"time": e.time.strftime("%Y-%m-%d %H:%M"), "location": e.location, "description": e.description}
            for e in shipment.events.all()
        ],
    }


def list_orders(customer_id: int, status: str | None = None) -> list[dict]:
    orders = Order.objects.filter(customer_id=customer_id).order_by("-placed_at")
    if status:
        orders = orders.filter(status=status)
    return [
        {
            "order_number": o.number,
            "status": o.status,
            "placed_at": o.placed_at.date().isoformat(),
            "total": str(o.total),
        }
        for o in orders[:20]
    ]


def _write_through(customer_id: int, key: str, value: str, content: str, conversation_id: UUID | str | None) -> None:
    """Record a confirmed change as a system record, superseding whatever memory held the key."""
    candidate = Candidate(
        type="preference" if key != "shipping_address" else "fact",
        content=content,
        confidence=1.0,
        source="system_record",
        key=key,
        value=normalise(key, value),
        conversation_id=conversation_id,
    )
    customer_lock(customer_id)
    store(customer_id, candidate, get_embedder().embed_passages([candidate.content])[0], actor="shop")


def _profile(customer_id: int) -> CustomerProfile:
    return CustomerProfile.objects.select_for_update().get(user_id=customer_id)


CHANGE_TEXT = {
    "notification_preference": {
        "zh": {"mute": "客户的通知设置为静音（已在系统中确认）", "on": "客户的通知设置为开启（已在系统中确认）"},
        "en": {
            "mute": "The customer's notifications are muted (confirmed in the system)",
            "on": "The customer's notifications are on (confirmed in the system)",
        },
    },
}


CHANNEL_ZH = {"email": "邮件", "phone": "电话", "sms": "短信", "wechat": "微信"}


def _language(profile: CustomerProfile) -> str:
    return "zh" if profile.language.startswith("zh") else "en"


@transaction.atomic
def set_notification_preference(customer_id: int, preference: str, conversation_id=None) -> dict:
    value = normalise("notification_preference", preference)
    profile = _profile(customer_id)
    profile.notification_preference = value
    profile.save(update_fields=["notification_preference"])
    content = CHANGE_TEXT["notification_preference"][_language(profile)][value]
    _write_through(customer_id, "notification_preference", value, content, conversation_id)
    return {"status": "done", "summary": content}


@transaction.atomic
def set_contact_channel(customer_id: int, channel: str, conversation_id=None) -> dict:
    value = normalise("contact_channel", channel)
    profile = _profile(customer_id)
    profile.contact_channel = value
    profile.save(update_fields=["contact_channel"])
    content = (
        f"客户希望通过{CHANNEL_ZH[value]}联系（已在系统中确认）"
        if _language(profile) == "zh"
        else f"The customer wants to be contacted by {value} (confirmed in the system)"
    )
    _write_through(customer_id, "contact_channel", value, content, conversation_id)
    return {"status": "done", "summary": content}


@transaction.atomic
def set_shipping_address(customer_id: int, address: str, conversation_id=None) -> dict:
    value = normalise("shipping_address", address)
    if len(value) < 5:
        raise ShopError("that address is too short to deliver to")
    profile = _profile(customer_id)
    profile.default_address = value
    profile.save(update_fields=["default_address"])
    content = (
        f"客户的收货地址是{value}（已在系统中确认）"
        if _language(profile) == "zh"
        else f"The customer's shipping address is {value} (confirmed in the system)"
    )
    _write_through(customer_id, "shipping_address", value, content, conversation_id)
    return {"status": "done", "summary": content}


def check_refundable(customer_id: int, order_number: str) -> Order:
    order = find_order(customer_id, order_number)
    if order.status not in REFUNDABLE:
        raise ShopError(
            f"order {order.number} is {order.status} and cannot be refunded",
            experience=f"A refund for order {order.number} was refused on {clock.now():%Y-%m-%d} ({order.status}).",
        )
    if order.refunds.filter(status=Refund.Status.REQUESTED).exists():
        raise ShopError(f"a refund for order {order.number} is already being processed")
    return order


@transaction.atomic
def request_refund(customer_id: int, order_number: str, reason: str, conversation_id=None) -> dict:
    order = check_refundable(customer_id, order_number)
    refund = Refund.objects.create(
        order=order,
        amount=Decimal(order.total),
        reason=reason[:300],
        requested_at=clock.now(),
        conversation_id=conversation_id,
    )
    return {
        "status": "done",
        "summary": f"refund of {refund.amount} {order.currency} requested for order {order.number}",
        "refund_id": refund.pk,
        "experience": f"A refund of {refund.amount} {order.currency} for order {order.number} was requested "
        f"on {refund.requested_at:%Y-%m-%d} ({refund.reason}).",
    }
