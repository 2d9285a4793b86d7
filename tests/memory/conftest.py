"""Fixtures for the memory tests: customers, session stores, Redis, and the offline model's summaries."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from memory.session import SessionStore
from tests.factories import UserFactory


@pytest.fixture
def make_customer() -> type[UserFactory]:
    return UserFactory


@pytest.fixture
def customer(make_customer):
    return make_customer()


@pytest.fixture
def redis_conn():
    from django_redis import get_redis_connection

    return get_redis_connection("default")


@pytest.fixture
def store(redis_conn) -> SessionStore:
    return SessionStore(redis_conn)


@pytest.fixture
def summarise(offline_model) -> Callable[[str], str]:
    """The real summariser: the cheap model through the model boundary, over HTTP to the offline model."""
    from agentsite import llm

    return llm.summarise


@pytest.fixture
def digest(offline_model) -> Callable:
    """The real chunk digest: the cheap model through the model boundary, over HTTP to the offline model."""
    from memory.compression import digest_with_model

    return digest_with_model
