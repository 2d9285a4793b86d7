"""Fixtures for the attack tests: customers with a profile and an order each."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from decimal import Decimal

import pytest

from tests.factories import CustomerFactory, OrderFactory

_numbers = itertools.count(1)


@pytest.fixture
def make_customer(db) -> Callable:
    """A customer with a profile and one processing order ``ORD-2025-8NNN``."""

    def make(*, language: str = "en", display_name: str = "") -> tuple:
        index = next(_numbers)
        username = f"sec{index}"
        user = CustomerFactory(
            username=username, password="x", profile__display_name=display_name or username, profile__language=language
        )
        return user, OrderFactory(customer=user, number=f"ORD-2025-{8000 + index:04d}", total=Decimal("19.90"))

    return make
