"""Fixtures shared by the whole suite: real services, flushed Redis, process helpers."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from django.conf import settings
from django.db import connection

from agentsite.settings import redis_db_url
from tests.procs import ProcessEnv


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
def process_env(django_db_setup, django_db_blocker) -> ProcessEnv:
    """Environment for subprocesses (workers, daphne) aimed at the tests' database and Redis."""
    with django_db_blocker.unblock():
        connection.ensure_connection()
        return ProcessEnv.from_connection(connection.settings_dict, settings.REDIS_URL)
