"""What the shop's staff do to orders and refunds: ship, deliver, record a return, decide a refund. Each is one
transaction that records what happened and keeps the promise it answers; the admin's actions call these. See
docs/promises.md.
"""

from __future__ import annotations

from datetime import timedelta

from django.db import transaction

from agentsite import clock
from chat import commitments
from chat.models import Commitment, Order, Refund, Shipment, TrackingEvent


class FulfilmentError(Exception):
    """The order or refund is not in a state that allows this."""


SHIPPABLE = {Order.Status.PENDING, Order.Status.PAID, Order.Status.PROCESSING}
DELIVERABLE = {Order.Status.SHIPPED, Order.Status.IN_TRANSIT}


@transaction.atomic
def ship(order: Order, carrier: str, tracking_number: str, actor: str) -> Shipment:
    """Hand the order to a carrier: shipment, a tracking event, the order shipped; its chase is kept."""
    order = Order.objects.select_for_update().get(pk=order.pk)
    carrier, tracking_number = carrier.strip(), tracking_number.strip()
    if order.status not in SHIPPABLE:
        raise FulfilmentError(f"order {order.number} is {order.status}: it cannot be shipped")
    if not carrier or not tracking_number:
        raise FulfilmentError("a carrier and a tracking number are needed to ship")
    now = clock.now()
    eta = (now + timedelta(days=3)).date()
    sent = {"carrier": carrier[:40], "tracking_number": tracking_number[:40], "status": Order.Status.SHIPPED}
    shipment, _ = Shipment.objects.update_or_create(order=order, defaults={**sent, "eta": eta})
    TrackingEvent.objects.create(shipment=shipment, time=now, location="warehouse", description=f"shipped by {actor}")
    order.status = Order.Status.SHIPPED
    order.save(update_fields=["status"])
    sent = {"carrier": shipment.carrier, "tracking_number": shipment.tracking_number}
    commitments.close_for_order(order, Commitment.Kind.EXPEDITE, "shipped", actor, detail=sent)
    return shipment


@transaction.atomic
def deliver(order: Order, actor: str) -> None:
    """The carrier delivered it: order and shipment delivered, a tracking event."""
    order = Order.objects.select_for_update().get(pk=order.pk)
    if order.status not in DELIVERABLE:
        raise FulfilmentError(f"order {order.number} is {order.status}: only a shipped order can be delivered")
    order.status = Order.Status.DELIVERED
    order.save(update_fields=["status"])
    shipment = Shipment.objects.filter(order=order).first()
    if shipment is not None:
        shipment.status = Order.Status.DELIVERED
        shipment.save(update_fields=["status"])
        TrackingEvent.objects.create(shipment=shipment, time=clock.now(), location="", description="delivered")
    commitments.close_for_order(order, Commitment.Kind.EXPEDITE, "delivered", actor)


@transaction.atomic
def record_return(refund: Refund, actor: str) -> None:
    """The returned goods arrived: the refund is due ``COMMITMENT_REFUND_BUSINESS_DAYS`` business days on."""
    refund = Refund.objects.select_for_update().get(pk=refund.pk)
    if refund.status != Refund.Status.REQUESTED:
        raise FulfilmentError(f"the refund for {refund.order} is already {refund.status}")
    if refund.return_received_at is not None:
        raise FulfilmentError(f"the return for {refund.order} was already recorded")
    refund.return_received_at = clock.now()
    refund.save(update_fields=["return_received_at"])
    commitments.return_received(refund, actor)


@transaction.atomic
def decide_refund(refund: Refund, approve: bool, actor: str) -> None:
    """Approve or refuse a requested refund; an approved one refunds the order. Keeps the refund promise."""
    refund = Refund.objects.select_for_update().select_related("order").get(pk=refund.pk)
    if refund.status != Refund.Status.REQUESTED:
        raise FulfilmentError(f"the refund for {refund.order} is already {refund.status}")
    refund.status = Refund.Status.APPROVED if approve else Refund.Status.REFUSED
    refund.decided_at, refund.decided_by = clock.now(), actor
    refund.save(update_fields=["status", "decided_at", "decided_by"])
    if approve:
        Order.objects.filter(pk=refund.order_id).update(status=Order.Status.REFUNDED)
    commitments.refund_decided(refund, actor)
