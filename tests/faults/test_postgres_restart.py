"""PostgreSQL restarted under load: requests fail cleanly and recover without restarting the app.

The test starts a PostgreSQL of its own (pgserver, a temp folder), copies the suite database's schema
into it, aims a daphne process at it and, while customers are mid-turn, stops the server, talks to the
app while it is down, and starts it again.
"""

import json
import os
import shutil
import subprocess
import tempfile
import threading
import urllib.parse
import urllib.request
from http.cookiejar import CookieJar
from pathlib import Path

import pgserver
import psycopg
import pytest
from django.contrib.auth.hashers import make_password

from agentsite.embedded import ensure_postgres, stop_postgres
from tests.faults.chat_client import ChatClient, Customer
from tests.procs import ProcessEnv, start_daphne
from tests.waiting import wait_until

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]

BIN = Path(pgserver.__file__).parent / "pginstall" / "bin"
CUSTOMERS = ("pg1", "pg2", "pg3")
QUESTION = "What's the status of order ORD-2025-0001?"


class OwnPostgres:
    """A pgserver PostgreSQL in a short temp folder (its Unix socket lives there)."""

    def __init__(self) -> None:
        self.datadir = Path(tempfile.mkdtemp(prefix="pgf", dir="/tmp"))
        os.chmod(self.datadir, 0o755)  # pgserver runs postgres as its own user when we are root
        self.url = self.start()

    def start(self) -> str:
        pgserver.PostgresServer._instances.clear()  # pgserver caches a handle per folder: start for real
        return ensure_postgres(self.datadir)

    def stop(self) -> None:
        stop_postgres(self.datadir)  # pg_ctl -m fast: open sessions are cut off

    def remove(self) -> None:
        self.stop()
        shutil.rmtree(self.datadir, ignore_errors=True)


def copy_schema(source_url: str, target_url: str) -> None:
    dump = subprocess.run([BIN / "pg_dump", "--no-owner", "--schema-only", source_url], capture_output=True, check=True)
    subprocess.run(
        [BIN / "psql", "-q", "-v", "ON_ERROR_STOP=1", target_url], input=dump.stdout, capture_output=True, check=True
    )


def add_customers(url: str) -> None:
    with psycopg.connect(url) as conn:
        for name in CUSTOMERS:
            conn.execute(
                "INSERT INTO auth_user (password, username, first_name, last_name, email, is_superuser, is_staff,"
                " is_active, date_joined) VALUES (%s, %s, '', '', '', false, false, true, now())",
                [make_password("pw-" + name), name],
            )


def log_in(server, username: str) -> Customer:
    """Log in through the app's own login page (CSRF and all); return the session cookie."""
    jar = CookieJar()
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))
    opener.open(f"{server.url}/accounts/login/", timeout=30).read()
    token = next(c.value for c in jar if c.name == "csrftoken")
    form = urllib.parse.urlencode({"username": username, "password": "pw-" + username, "csrfmiddlewaretoken": token})
    request = urllib.request.Request(
        f"{server.url}/accounts/login/", data=form.encode(), headers={"Referer": f"{server.url}/accounts/login/"}
    )
    opener.open(request, timeout=30).read()
    session = next(c.value for c in jar if c.name == "sessionid")
    return Customer(user=None, cookie=f"sessionid={session}")


def concurrently(clients: list[ChatClient], text: str, before_waiting=None) -> list[list[dict]]:
    """Every client sends ``text`` at once; return each one's turn frames."""
    results: list = [None] * len(clients)

    def run(index: int) -> None:
        results[index] = clients[index].say(text, timeout=120)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(clients))]
    for thread in threads:
        thread.start()
    if before_waiting is not None:
        before_waiting()
    for thread in threads:
        thread.join(150)
    return results


def test_postgres_restarted_under_load_fails_cleanly_and_recovers(process_env):
    pg = OwnPostgres()
    server = None
    try:
        copy_schema(process_env.database_url, pg.url)
        add_customers(pg.url)
        env = ProcessEnv(pg.url, process_env.redis_url)
        # Persistent connections, as in production: each thread's connection dies with the server and
        # must be replaced on its next use (the suite itself runs with DATABASE_CONN_MAX_AGE=0).
        server = start_daphne(env, extra_env={"AGENT_RATE_LIMIT_PER_MINUTE": "1000", "DATABASE_CONN_MAX_AGE": "60"})
        clients = [ChatClient(server.port, log_in(server, name)) for name in CUSTOMERS]
        assert all(turn[-1]["type"] == "reply_done" for turn in concurrently(clients, "Hello"))

        # Under load: the server stops while three turns are running.
        during = concurrently(clients, QUESTION, before_waiting=pg.stop)
        for frames in during:  # each turn ended, one way or the other: answered, or a clean error
            assert frames[-1]["type"] == "reply_done" or frames[-1]["code"] == "unavailable", frames

        # While it is down: health names the database, a turn is refused with a clear error, nothing hangs.
        status, body = server.get("/healthz")
        assert status == 503 and "database" in json.loads(body)["failing"]
        refused = clients[0].say(QUESTION)
        assert refused[-1] == {
            "type": "error",
            "code": "unavailable",
            "message": "we could not take your message just now; please send it again in a moment",
        }

        # It comes back. The same daphne process, the same sockets.
        pg.start()
        wait_until(lambda: server.get("/healthz")[0] == 200, "/healthz is 200 again")
        after = concurrently(clients, QUESTION)
        assert [frames[-1]["type"] for frames in after] == ["reply_done"] * len(clients), after
        assert "ORD-2025-0001" in "".join(f["text"] for f in after[0] if f["type"] == "token")
        late = ChatClient(server.port, log_in(server, "pg1"))  # a new socket (a reload) gets the history
        assert [m["text"] for m in late.history["messages"]][-1] == "".join(
            f["text"] for f in after[0] if f["type"] == "token"
        )
        assert server.alive()
        for client in [*clients, late]:
            client.close()
    finally:
        if server is not None:
            server.stop()
        pg.remove()
