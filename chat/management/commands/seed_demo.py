"""`manage.py seed_demo [--history]`: load the demo shop's customers, orders and policies (idempotent); with
``--history``, a few weeks of made-up activity for the staff dashboard (``chat.demo_history``), once."""

from __future__ import annotations

from argparse import ArgumentParser
from datetime import timedelta
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand
from django.db import transaction

from agentsite import clock
from chat import demo_data, demo_history, fulfilment, shop
from chat.demo_data import ARTICLES, CUSTOMERS, PROMISES
from chat.models import Commitment, CustomerProfile, Order, OrderItem, PolicyArticle, Refund, Shipment, TrackingEvent

if TYPE_CHECKING:
    from django.contrib.auth.models import User


class Command(BaseCommand):
    help = "Create the demo customers with their orders, shipments, promises and the policy articles; safe to rerun."

    def add_arguments(self, parser: ArgumentParser) -> None:
        parser.add_argument(
            "--history",
            action="store_true",
            help=f"also write {demo_history.DAYS} days of past activity for the staff dashboard (once)",
        )

    @transaction.atomic
    def handle(self, *args: Any, **options: Any) -> None:
        now = clock.now()
        password = demo_data.customer_password()
        user_model = get_user_model()
        for customer in CUSTOMERS:
            user, created = user_model.objects.get_or_create(username=customer.username)
            if created:
                user.set_password(password)
            if created or not user.email:  # a demo seeded before emails were gets one; one staff set stays
                user.email = f"{customer.username}@demo-shop.example"  # the account's email, a shop record
                user.save()
            profile, _ = CustomerProfile.objects.get_or_create(
                user=user,
                defaults={
                    "display_name": customer.display_name,
                    "language": customer.language,
                    "default_address": customer.address,
                    "phone": customer.phone,
                },
            )
            if customer.phone and not profile.phone:  # a demo seeded before phones were gets one
                profile.phone = customer.phone
                profile.save(update_fields=["phone"])
            for demo in customer.orders:
                order, created = Order.objects.get_or_create(
                    number=demo.number,
                    defaults={
                        "customer": user,
                        "status": demo.status,
                        "placed_at": now - timedelta(days=demo.days_ago),
                        "total": sum(Decimal(p) * q for _, q, p in demo.items),
                        "shipping_address": customer.address,
                        "currency": "CNY" if customer.language.startswith("zh") else "USD",
                    },
                )
                if not created:
                    continue
                for name, quantity, price in demo.items:
                    OrderItem.objects.create(order=order, name=name, quantity=quantity, unit_price=Decimal(price))
                if demo.carrier:
                    shipment = Shipment.objects.create(
                        order=order,
                        carrier=demo.carrier,
                        tracking_number=demo.tracking,
                        status=demo.status,
                        eta=(now + timedelta(days=demo.eta_days)).date() if demo.eta_days is not None else None,
                    )
                    for days_ago, location, description in demo.events:
                        TrackingEvent.objects.create(
                            shipment=shipment,
                            time=now - timedelta(days=days_ago),
                            location=location,
                            description=description,
                        )
        self._promises(user_model)
        for slug, language, title, body in ARTICLES:
            article = PolicyArticle.objects.filter(slug=slug, language=language).first()
            if article is None or (article.title, article.body) != (title, body):
                article = article or PolicyArticle(slug=slug, language=language)
                article.title, article.body = title, body
                article.save()
        if options["history"] and demo_history.backfill():
            self.stdout.write(f"Wrote {demo_history.DAYS} days of past activity for the staff dashboard.")
        self.stdout.write(f"Demo customers (password for all: {password}):")
        for customer in CUSTOMERS:
            numbers = ", ".join(o.number for o in customer.orders)
            self.stdout.write(f"  {customer.username:<6} {customer.display_name} ({customer.language}): {numbers}")

    def _promises(self, user_model: type[User]) -> None:
        """The demo's promises, made as the agent and staff make them; once per customer."""
        for username, kind, number, reason in PROMISES:
            user = user_model.objects.get(username=username)
            if Commitment.objects.filter(customer=user).exists():
                continue
            if kind == "expedite":
                shop.request_expedite(user.pk, number)
            else:
                shop.request_refund(user.pk, number, reason)
                refund = Refund.objects.get(order__number=number, status=Refund.Status.REQUESTED)
                fulfilment.record_return(refund, "staff:demo")
