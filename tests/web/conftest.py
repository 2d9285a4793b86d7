"""Fixtures for the customer's pages: customers and their long-term memories."""

from __future__ import annotations

import itertools
from collections.abc import Callable

import pytest
from django.db import transaction

from agentsite import clock
from memory.embeddings import get_embedder
from memory.longterm import Candidate, insert
from memory.models import LongTermMemory

_usernames = itertools.count(1)


@pytest.fixture
def make_customer(django_user_model) -> Callable:
    def make(**fields):
        return django_user_model.objects.create_user(username=f"webcustomer{next(_usernames)}", password="pw", **fields)

    return make


def remember(
    customer, content: str, *, key: str = "", value: str = "", source: str = "customer_stated"
) -> LongTermMemory:
    """Store one memory for ``customer`` as it is."""
    candidate = Candidate(type="fact", content=content, confidence=0.9, key=key, value=value, source=source)
    with transaction.atomic():
        return insert(
            customer.pk, candidate, get_embedder().embed_passages([content])[0], actor="test", now=clock.now()
        )
