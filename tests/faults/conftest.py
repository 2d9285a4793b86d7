"""Fixtures for the fault tests: a Redis of the test's own that it may kill, and logged-in customers."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest

from memory.session import SessionStore
from tests.factories import CustomerFactory, UserFactory
from tests.faults.chat_client import Customer
from tests.faults.own_redis import OwnRedis
from tests.http_login import login_cookie


@pytest.fixture
def own_redis(tmp_path) -> Iterator[OwnRedis]:
    server = OwnRedis(datadir=tmp_path)
    server.start()
    yield server
    server.kill()


@pytest.fixture
def make_customer() -> type[UserFactory]:
    return UserFactory


@pytest.fixture
def store() -> SessionStore:
    return SessionStore()


@pytest.fixture
def make_chat_customer(transactional_db) -> Callable[[str], Customer]:
    """A customer with a profile and a login session (in the database, so daphne processes see it)."""

    def make(username: str, language: str = "en") -> Customer:
        user = CustomerFactory(username=username, password="x", profile__language=language)
        return Customer(user=user, cookie=login_cookie(user))

    return make
