"""Fixtures for the customer's pages: customers who log in."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from django.contrib.auth.models import User

from tests.factories import UserFactory


@pytest.fixture
def make_customer() -> Callable[..., User]:
    """A customer who logs in with the password ``pw``."""
    return lambda **fields: UserFactory(password="pw", **fields)
