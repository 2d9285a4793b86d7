"""Fixtures for the memory tests: customers, session stores, Redis, and the offline model's summaries."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator
from datetime import UTC, datetime

import pytest

import tests.conftest as root
from memory.session import SessionStore
from memory.working import Entry, Role, ToolCall

if not hasattr(root, "offline_model"):  # until the suite-wide server fixture lands in tests/conftest.py

    @pytest.fixture(scope="session")
    def offline_model():
        from agentsite.offline_model.runner import start_offline_model

        model = start_offline_model()
        yield model
        model.stop()


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
def summarise(offline_model, settings) -> Iterator[Callable[[str], str]]:
    """The real summariser: the cheap model over HTTP to the offline model.

    Through the model boundary (``agentsite.llm.summarise``) where it exists; otherwise the same
    request made with the openai client.
    """
    try:
        from agentsite import llm
    except ImportError:
        llm = None
    settings.OPENAI_BASE_URL = offline_model.base_url
    if llm is not None:
        llm.reset_gateway()
        yield llm.summarise
        llm.reset_gateway()
        return
    import openai

    client = openai.OpenAI(base_url=offline_model.base_url, api_key="offline", max_retries=0)

    def direct(text: str) -> str:
        system = "TASK: summarise\nSummarise the conversation; keep every order number, date and amount."
        reply = client.chat.completions.create(
            model=settings.LLM_CHEAP_MODEL,
            messages=[{"role": "system", "content": system}, {"role": "user", "content": text}],
        )
        return reply.choices[0].message.content

    yield direct


def summary_calls(offline_model) -> int:
    """Return how many summarise requests the offline model has answered."""
    return offline_model.stats()["by_task"]["summarise"]


def session_keys(redis_conn) -> list[bytes]:
    return list(redis_conn.scan_iter(match="stm:*"))
