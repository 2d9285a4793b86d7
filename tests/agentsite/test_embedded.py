"""The embedded servers start, re-attach, and recover from a killed run's leftovers."""

import os
import signal

import psutil
import psycopg
import pytest
import redis

from agentsite import embedded
from tests.waiting import wait_until

pytestmark = pytest.mark.slow


def test_redis_restarts_after_being_killed_and_keeps_its_data(tmp_path):
    url = embedded.ensure_redis(tmp_path)
    client = redis.Redis.from_url(url)
    client.set("kept", "yes")
    assert embedded.ensure_redis(tmp_path) == url  # re-attach, same server

    embedded.stop_redis(tmp_path, kill=True)  # leaves its pid file and port file behind
    assert (tmp_path / embedded.REDIS_PID_FILE).exists()
    url_again = embedded.ensure_redis(tmp_path)

    assert redis.Redis.from_url(url_again).get("kept") == b"yes"  # appendonly survived SIGKILL
    assert redis.Redis.from_url(url_again).config_get("maxmemory-policy")["maxmemory-policy"] == "noeviction"
    embedded.stop_redis(tmp_path)


def test_postgres_restarts_after_its_postmaster_was_killed(tmp_path):
    datadir = tmp_path / "pg"
    url = embedded.ensure_postgres(datadir)
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("CREATE TABLE kept (v text)")
        conn.execute("INSERT INTO kept VALUES ('yes')")
    postmaster = int((datadir / "postmaster.pid").read_text().splitlines()[0])

    os.kill(postmaster, signal.SIGKILL)  # postmaster.pid stays behind
    wait_until(lambda: not psutil.pid_exists(postmaster), f"postmaster {postmaster} gone", timeout=10)
    assert (datadir / "postmaster.pid").exists()

    url_again = embedded.ensure_postgres(datadir)
    try:
        with psycopg.connect(url_again) as conn:
            assert conn.execute("SELECT v FROM kept").fetchone() == ("yes",)
    finally:
        embedded.stop_postgres(datadir)
