"""Start, stop and kill the real processes tests need: Celery workers and daphne servers.

Each process gets the tests' database and Redis through its environment, logs to a file under
``test-artifacts/`` (printed when it fails to start), and is killed at the end of the test that
started it. Fault tests use ``kill()`` (SIGKILL the whole worker) and ``kill_pool_child()``.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import quote

import psutil

ROOT = Path(__file__).resolve().parent.parent
ARTIFACTS = ROOT / "test-artifacts"


@dataclass(frozen=True)
class ProcessEnv:
    """The environment variables that aim a child process at the tests' services."""

    database_url: str
    redis_url: str

    @classmethod
    def from_connection(cls, settings_dict: dict, redis_url: str) -> ProcessEnv:
        host = settings_dict.get("HOST") or settings_dict.get("OPTIONS", {}).get("host", "")
        user = quote(settings_dict.get("USER") or "postgres")
        password = quote(settings_dict.get("PASSWORD") or "")
        name = settings_dict["NAME"]
        if host.startswith("/"):
            url = f"postgresql://{user}:{password}@/{name}?host={host}"
        else:
            url = f"postgresql://{user}:{password}@{host}:{settings_dict.get('PORT') or 5432}/{name}"
        return cls(database_url=url, redis_url=redis_url)

    def as_environ(self, **extra: str) -> dict[str, str]:
        environ = dict(os.environ)
        environ.update(
            DATABASE_URL=self.database_url,
            REDIS_URL=self.redis_url,
            CLOCK_ALLOW_OFFSET="1",
            DJANGO_SETTINGS_MODULE="agentsite.settings",
            OMP_NUM_THREADS="1",
            PYTHONUNBUFFERED="1",
        )
        environ.update(extra)
        return environ


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _wait_for(predicate, timeout: float, what: str, log: Path, proc: subprocess.Popen) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"{what} exited with {proc.returncode}:\n{log.read_text(errors='replace')[-4000:]}")
        if predicate():
            return
        time.sleep(0.05)
    raise RuntimeError(f"{what} not ready after {timeout} s:\n{log.read_text(errors='replace')[-4000:]}")


@dataclass
class ManagedProcess:
    """A child process with its log file."""

    name: str
    proc: subprocess.Popen
    log: Path
    _log_handle: object = field(repr=False, default=None)

    @property
    def pid(self) -> int:
        return self.proc.pid

    def alive(self) -> bool:
        return self.proc.poll() is None

    def stop(self, timeout: float = 20) -> None:
        """Ask the process to stop (SIGTERM); SIGKILL it and its children if it does not."""
        if self.alive():
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.kill()
        self._reap()

    def kill(self) -> None:
        """SIGKILL the process and every child it has (no clean shutdown)."""
        try:
            children = psutil.Process(self.proc.pid).children(recursive=True)
        except psutil.NoSuchProcess:
            children = []
        for proc in [self.proc, *children]:
            with contextlib.suppress(ProcessLookupError):
                os.kill(proc.pid, signal.SIGKILL)
        self.proc.wait(10)
        self._reap()

    def _reap(self) -> None:
        if self._log_handle is not None:
            self._log_handle.close()
            self._log_handle = None


def _spawn(name: str, argv: list[str], env: dict[str, str]) -> ManagedProcess:
    ARTIFACTS.mkdir(exist_ok=True)
    log = ARTIFACTS / f"{name}-{os.getpid()}-{time.monotonic_ns()}.log"
    handle = open(log, "w")  # noqa: SIM115 - closed by ManagedProcess
    proc = subprocess.Popen(argv, cwd=ROOT, env=env, stdout=handle, stderr=subprocess.STDOUT)
    return ManagedProcess(name=name, proc=proc, log=log, _log_handle=handle)


@dataclass
class CeleryWorker(ManagedProcess):
    """A real `celery worker` process (prefork pool by default) on the tests' broker."""

    def pool_children(self) -> list[int]:
        try:
            return [p.pid for p in psutil.Process(self.proc.pid).children()]
        except psutil.NoSuchProcess:
            return []

    def kill_pool_child(self) -> int:
        """SIGKILL one pool child (the parent survives and forks a replacement); return its pid."""
        pid = self.pool_children()[0]
        os.kill(pid, signal.SIGKILL)
        return pid


def start_worker(
    env: ProcessEnv,
    *,
    concurrency: int = 1,
    pool: str = "prefork",
    queues: str | None = None,
    name: str = "worker",
    extra_env: dict[str, str] | None = None,
    timeout: float = 60,
    app: str = "agentsite.celery",
) -> CeleryWorker:
    """Start a Celery worker and wait until it is ready to take tasks."""
    argv = [
        sys.executable,
        "-m",
        "celery",
        "-A",
        app,
        "worker",
        "--pool",
        pool,
        "--concurrency",
        str(concurrency),
        "--loglevel",
        "INFO",
        "--hostname",
        f"{name}-{time.monotonic_ns()}@%h",
        "--without-gossip",
        "--without-mingle",
        "--without-heartbeat",
    ]
    if queues:
        argv += ["--queues", queues]
    managed = _spawn(name, argv, env.as_environ(**(extra_env or {})))
    worker = CeleryWorker(name=managed.name, proc=managed.proc, log=managed.log, _log_handle=managed._log_handle)
    _wait_for(
        lambda: "ready." in worker.log.read_text(errors="replace"), timeout, f"celery {name}", worker.log, worker.proc
    )
    if pool == "prefork":
        _wait_for(
            lambda: len(worker.pool_children()) >= concurrency, timeout, f"celery {name} pool", worker.log, worker.proc
        )
    return worker


@dataclass
class DaphneServer(ManagedProcess):
    """A daphne process serving the ASGI application over real HTTP and websockets."""

    port: int = 0

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def get(self, path: str, timeout: float = 10) -> tuple[int, bytes]:
        """GET ``path``; return the status and body, also for error statuses."""
        try:
            with urllib.request.urlopen(self.url + path, timeout=timeout) as response:
                return response.status, response.read()
        except urllib.error.HTTPError as error:
            return error.code, error.read()


def start_daphne(env: ProcessEnv, *, extra_env: dict[str, str] | None = None, timeout: float = 60) -> DaphneServer:
    """Start daphne on a free loopback port and wait until it answers HTTP."""
    port = free_port()
    argv = [sys.executable, "-m", "daphne", "-b", "127.0.0.1", "-p", str(port), "agentsite.asgi:application"]
    managed = _spawn("daphne", argv, env.as_environ(**(extra_env or {})))
    server = DaphneServer(name="daphne", proc=managed.proc, log=managed.log, _log_handle=managed._log_handle, port=port)

    def answers() -> bool:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return True
        except OSError:
            return False

    _wait_for(answers, timeout, "daphne", server.log, server.proc)
    return server


@dataclass
class EmbeddingServer(ManagedProcess):
    """The embedding process (``agentsite.embedding_server``) on a loopback port."""

    port: int = 0

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def client_env(self) -> dict[str, str]:
        """The settings that aim a web process or a worker at this server."""
        return {
            "MEMORY_EMBEDDING_BACKEND": "memory.embeddings.OpenAIEmbedder",
            "MEMORY_EMBEDDING_BASE_URL": self.base_url,
            "MEMORY_EMBEDDING_API_KEY": "not-needed",
        }


def start_embedding_server(timeout: float = 60) -> EmbeddingServer:
    """Start the embedding process on a free loopback port and wait until it listens."""
    port = free_port()
    argv = [sys.executable, "-m", "agentsite.embedding_server", "--port", str(port)]
    managed = _spawn("embedding", argv, {**os.environ, "PYTHONUNBUFFERED": "1"})
    server = EmbeddingServer(name="embedding", proc=managed.proc, log=managed.log, _log_handle=managed._log_handle,
                             port=port)  # fmt: skip
    _wait_for(lambda: "server on http" in server.log.read_text(errors="replace"), timeout, "embedding server",
              server.log, server.proc)  # fmt: skip
    return server
