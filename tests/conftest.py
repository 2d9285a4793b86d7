"""Fixtures shared by the whole suite: real services, flushed Redis, process helpers."""

from __future__ import annotations

import io
import logging
import os
import time
from collections.abc import Iterator

import pytest
from django.conf import settings
from django.db import connection

from agentsite import llm
from agentsite.logs import JsonFormatter
from agentsite.offline_model.runner import OfflineModelProcess, start_offline_model
from agentsite.settings import redis_db_url
from tests.captured_log import CapturedLog
from tests.procs import ProcessEnv


@pytest.fixture(scope="session", autouse=True)
def offline_model() -> Iterator[OfflineModelProcess]:
    """The suite's offline model server; the app (and every process tests start) talks to it."""
    started = time.monotonic()
    model = start_offline_model()
    print(f"\noffline model ready in {time.monotonic() - started:.3f} s at {model.base_url}")
    previous = os.environ.get("OPENAI_BASE_URL")
    os.environ["OPENAI_BASE_URL"] = model.base_url  # inherited by workers and daphne servers
    settings.OPENAI_BASE_URL = model.base_url
    llm.reset_gateway()
    yield model
    model.stop()
    if previous is None:
        os.environ.pop("OPENAI_BASE_URL", None)
    else:
        os.environ["OPENAI_BASE_URL"] = previous


@pytest.fixture(autouse=True)
def _fresh_offline_model(request: pytest.FixtureRequest) -> None:
    """Every test starts with no scripted behaviours queued and zeroed counters."""
    request.getfixturevalue("offline_model").reset()


@pytest.fixture(autouse=True)
def _clean_redis() -> Iterator[None]:
    """Give every test an empty cache/short-term-memory and channel-layer database.

    The broker and result databases are left alone: a worker started by a session fixture may
    be listening on them.
    """
    import redis

    for db in (settings.REDIS_DB_CACHE, settings.REDIS_DB_CHANNELS):
        client = redis.Redis.from_url(redis_db_url(settings.REDIS_URL, db))
        client.flushdb()
        client.close()
    yield


@pytest.fixture
def fresh_rate_window() -> None:
    """Move the shared clock to just past the start of a minute: the per-minute budgets count in fixed windows
    (agentsite/ratelimit.py), and a test whose frames straddled a window's end would see the budget twice."""
    from datetime import timedelta

    from agentsite import clock

    now = clock.now()
    clock.advance(timedelta(seconds=61 - now.second - now.microsecond / 1e6))


@pytest.fixture
def at_noon() -> None:
    """Move the shared clock on to the next noon (UTC): demo orders are placed hours before now, so which day
    one was placed on ("the order I placed yesterday") would otherwise depend on the hour the test runs."""
    from datetime import timedelta

    from agentsite import clock

    now = clock.now()
    noon = now.replace(hour=12, minute=0, second=0, microsecond=0)
    clock.advance(noon - now if noon > now else noon + timedelta(days=1) - now)


@pytest.fixture(autouse=True)
def _channels_still_closes_connections() -> Iterator[None]:
    """Fail the test that leaves ``channels.db.close_old_connections`` patched out (tests/chat/wsclient.py says how).

    Left patched, every later ``database_sync_to_async`` call keeps its connection open, and the
    one left at the end keeps the test database from being dropped: reported far from its cause.
    """
    import channels.db
    from django.db import close_old_connections

    yield
    if channels.db.close_old_connections is not close_old_connections:
        channels.db.close_old_connections = close_old_connections
        pytest.fail("channels.db.close_old_connections was left patched (concurrent Channels communicators?)")


@pytest.fixture
def sent_sql(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every SQL statement sent while the test runs, on any thread's connection, whitespace collapsed.

    Counted, never timed: tests assert how many statements a path sends and which.
    """
    import psycopg

    sent: list[str] = []
    execute = psycopg.Cursor.execute

    def record(cursor, query, *args, **kwargs):
        sent.append(" ".join(str(query).split()))
        return execute(cursor, query, *args, **kwargs)

    monkeypatch.setattr(psycopg.Cursor, "execute", record)
    return sent


@pytest.fixture
def process_env(django_db_setup, django_db_blocker) -> ProcessEnv:
    """Environment for subprocesses (workers, daphne) aimed at the tests' database and Redis."""
    with django_db_blocker.unblock():
        connection.ensure_connection()
        return ProcessEnv.from_connection(connection.settings_dict, settings.REDIS_URL)


@pytest.fixture
def json_log() -> Iterator[CapturedLog]:
    """Capture the root logger at DEBUG through the console handler's filters (context, redaction), as JSON."""
    console = next(h for h in logging.getLogger().handlers if h.get_name() == "console")
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(JsonFormatter())
    for log_filter in console.filters:
        handler.addFilter(log_filter)
    root = logging.getLogger()
    level = root.level
    root.addHandler(handler)
    root.setLevel(logging.DEBUG)
    yield CapturedLog(stream)
    root.removeHandler(handler)
    root.setLevel(level)
