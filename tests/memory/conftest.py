"""Fixtures for the memory tests: customers, session stores, Redis, and the offline model's summaries."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from datetime import UTC, datetime

import pytest

from memory.session import SessionStore
from memory.working import Entry, Role, ToolCall

_usernames = itertools.count(1)


def entry(role: Role | str, content: str = "", **kwargs) -> Entry:
    """Build a working-memory entry stamped now (real time: entries carry no policy)."""
    return Entry.create(role, content, timestamp=datetime.now(UTC), **kwargs)


def tool_call(call_id: str, name: str = "lookup_order", arguments: str = '{"order_number": "ORD-2025-0001"}') -> Entry:
    return entry(Role.TOOL_CALL, tool_calls=[ToolCall(call_id, name, arguments)])


def tool_result(call_id: str, content: str) -> Entry:
    return entry(Role.TOOL_RESULT, content, tool_call_id=call_id)


@pytest.fixture
def make_customer(django_user_model) -> Callable:
    def make(**fields):
        return django_user_model.objects.create_user(username=f"customer{next(_usernames)}", **fields)

    return make


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


def digest_calls(offline_model) -> int:
    """Return how many chunk-digest requests the offline model has answered."""
    return offline_model.stats()["by_task"]["digest"]


def session_keys(redis_conn) -> list[bytes]:
    return list(redis_conn.scan_iter(match="stm:*"))
