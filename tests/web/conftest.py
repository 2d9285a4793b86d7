"""Fixtures for the customer's pages: customers and their long-term memories."""

from __future__ import annotations

import itertools
from collections.abc import Callable

import pytest

_usernames = itertools.count(1)


@pytest.fixture
def make_customer(django_user_model) -> Callable:
    def make(**fields):
        return django_user_model.objects.create_user(username=f"webcustomer{next(_usernames)}", password="pw", **fields)

    return make
