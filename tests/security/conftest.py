"""Fixtures for the attack tests: customers with a profile and an order each."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from decimal import Decimal

import pytest
from django.contrib.auth import get_user_model

from agentsite import clock
from chat.models import CustomerProfile, Order

_numbers = itertools.count(1)


@pytest.fixture
def make_customer(db) -> Callable:
    """A customer with a profile and one processing order ``ORD-2025-8NNN``."""

    def make(*, language: str = "en", display_name: str = "") -> tuple:
        index = next(_numbers)
        user = get_user_model().objects.create_user(username=f"sec{index}", password="x")
        CustomerProfile.objects.create(user=user, display_name=display_name or user.username, language=language)
        order = Order.objects.create(
            customer=user,
            number=f"ORD-2025-{8000 + index:04d}",
            status="processing",
            total=Decimal("19.90"),
            placed_at=clock.now(),
        )
        return user, order

    return make
