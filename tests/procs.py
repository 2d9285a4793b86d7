"""Start, stop and kill the real processes tests need: Celery workers and daphne servers.

Each process gets the tests' database and Redis through its environment, logs to a file under
``test-artifacts/`` (printed when it fails to start), and is killed at the end of the test that
started it. Fault tests use ``kill()`` (SIGKILL the whole worker) and ``kill_pool_child()``.
"""

from __future__ import annotations

import contextlib
import os
import pwd
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar
from urllib.parse import quote

import psutil

from tests.waiting import wait_until

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
    """Wait until ``predicate`` holds; fail at once, with the log's tail, if the process exits first."""

    def ready() -> object:
        if proc.poll() is not None:
            raise RuntimeError(f"{what} exited with {proc.returncode}:\n{log.read_text(errors='replace')[-4000:]}")
        return predicate()

    wait_until(ready, lambda: f"{what} not ready:\n{log.read_text(errors='replace')[-4000:]}", timeout)


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
class LoopbackServer(ManagedProcess):
    """A process listening on a loopback port."""

    port: int = 0

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"


@dataclass
class DaphneServer(LoopbackServer):
    """A daphne process serving the ASGI application over real HTTP and websockets."""

    def get(self, path: str, timeout: float = 10, headers: dict[str, str] | None = None) -> tuple[int, bytes]:
        """GET ``path``; return the status and body, also for error statuses."""
        try:
            request = urllib.request.Request(self.url + path, headers=headers or {})
            with urllib.request.urlopen(request, timeout=timeout) as response:
                return response.status, response.read()
        except urllib.error.HTTPError as error:
            return error.code, error.read()


def _listening(port: int) -> Callable[[], bool]:
    """A check that something accepts connections on the loopback ``port``."""

    def answers() -> bool:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return True
        except OSError:
            return False

    return answers


Server = TypeVar("Server", bound=LoopbackServer)


def _start_server(
    kind: type[Server],
    name: str,
    argv: list[str],
    env: dict[str, str],
    *,
    port: int,
    timeout: float,
    ready: Callable[[Server], bool] | None = None,
    **fields,
) -> Server:
    """Spawn ``argv`` as a ``kind`` on ``port``; wait until ``ready`` (by default: it accepts connections)."""
    managed = _spawn(name, argv, env)
    server = kind(name=name, proc=managed.proc, log=managed.log, _log_handle=managed._log_handle, port=port, **fields)
    listening = _listening(port)
    _wait_for(lambda: ready(server) if ready else listening(), timeout, name, server.log, server.proc)
    return server


def start_daphne(
    env: ProcessEnv, *, extra_env: dict[str, str] | None = None, timeout: float = 60, port: int | None = None
) -> DaphneServer:
    """Start daphne on ``port`` (a free loopback port by default) and wait until it accepts connections."""
    port = port or free_port()
    argv = [sys.executable, "-m", "daphne", "-b", "127.0.0.1", "-p", str(port), "agentsite.asgi:application"]
    return _start_server(DaphneServer, "daphne", argv, env.as_environ(**(extra_env or {})), port=port, timeout=timeout)


@dataclass
class EmbeddingServer(LoopbackServer):
    """The embedding process (``agentsite.embedding_server``) on a loopback port."""

    @property
    def base_url(self) -> str:
        return f"{self.url}/v1"

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
    return _start_server(
        EmbeddingServer,
        "embedding",
        argv,
        {**os.environ, "PYTHONUNBUFFERED": "1"},
        port=port,
        timeout=timeout,
        ready=lambda server: "server on http" in server.log.read_text(errors="replace"),
    )


@dataclass
class Balancer(LoopbackServer):
    """HAProxy (``agentsite.balancer``) in front of daphne processes on a loopback port."""

    stats_socket: Path = field(default_factory=Path)

    def backends_up(self) -> dict[str, bool]:
        """Which backends HAProxy sends to (its stats socket): ``{"web1": True, ...}``."""
        return {row[1]: row[17] == "UP" for row in self._stat_rows()}

    def sessions(self) -> dict[str, int]:
        """Connections each backend has been given so far: ``{"web1": 3, ...}``."""
        return {row[1]: int(row[7]) for row in self._stat_rows()}

    def command(self, text: str) -> str:
        """Send one command to HAProxy's runtime API (its stats socket) and return the answer."""
        with socket.socket(socket.AF_UNIX) as stats:
            stats.settimeout(2)
            stats.connect(str(self.stats_socket))
            stats.sendall(text.encode() + b"\n")
            answer = b""
            while chunk := stats.recv(65536):
                answer += chunk
        return answer.decode()

    def _stat_rows(self) -> list[list[str]]:
        return [line.split(",") for line in self.command("show stat").splitlines() if line.startswith("web,web")]


def start_balancer(backend_ports: list[int], *, check_ms: int = 250, timeout: float = 30) -> Balancer:
    """Start HAProxy on a free port before daphne processes on ``backend_ports``; wait until it listens."""
    port = free_port()
    ARTIFACTS.mkdir(exist_ok=True)
    stats_socket = ARTIFACTS / f"haproxy-{port}.sock"
    environ = {
        **os.environ,
        "BALANCER_BIND": f"127.0.0.1:{port}",
        "WEB_BACKENDS": ",".join(f"127.0.0.1:{p}" for p in backend_ports),
        "BALANCER_CHECK_MS": str(check_ms),
        "BALANCER_STATS_SOCKET": str(stats_socket),
    }
    argv = [sys.executable, "-m", "agentsite.balancer"]
    balancer = _start_server(Balancer, "haproxy", argv, environ, port=port, timeout=timeout, stats_socket=stats_socket)
    # HAProxy binds its stats socket as a temporary file and renames it, which can come after the port
    # listens: a command sent in between found no socket (a fresh-clone CI run, 2026-12-05).
    _wait_for(stats_socket.exists, timeout, "haproxy's stats socket", balancer.log, balancer.proc)
    return balancer


@dataclass
class PgBouncer(LoopbackServer):
    """PgBouncer in transaction mode in front of the tests' PostgreSQL (Debian's package)."""

    def process_env(self, direct: ProcessEnv) -> ProcessEnv:
        """``direct`` with its database reached through this pooler, as the settings expect it."""
        name = urllib.parse.urlsplit(direct.database_url).path.lstrip("/")
        url = f"postgresql://postgres:@127.0.0.1:{self.port}/{name}"
        return ProcessEnv(database_url=url, redis_url=direct.redis_url)


def start_pgbouncer(settings_dict: dict, *, pool_size: int = 4, timeout: float = 30) -> PgBouncer:
    """Start PgBouncer (transaction mode, ``pool_size`` server connections a database) on a free port.

    PgBouncer refuses to run as root: as root it runs as the owner of PostgreSQL's socket folder
    (the embedded server's own user), who can reach the socket.
    """
    host = settings_dict.get("HOST") or settings_dict.get("OPTIONS", {}).get("host") or "127.0.0.1"
    server = f"host={host} port={settings_dict.get('PORT') or 5432} user={settings_dict.get('USER') or 'postgres'}"
    if settings_dict.get("PASSWORD"):
        server += f" password={settings_dict['PASSWORD']}"
    port = free_port()
    folder = Path(tempfile.mkdtemp(prefix="pgbouncer-"))
    folder.chmod(0o755)
    config = folder / "pgbouncer.ini"
    config.write_text(
        f"[databases]\n* = {server}\n"
        "[pgbouncer]\n"
        f"listen_addr = 127.0.0.1\nlisten_port = {port}\nunix_socket_dir =\n"
        "auth_type = any\npool_mode = transaction\n"
        f"default_pool_size = {pool_size}\nmax_client_conn = 2000\n"
    )
    config.chmod(0o644)
    argv = ["/usr/sbin/pgbouncer", str(config)]
    if os.getuid() == 0:
        owner = pwd.getpwuid(Path(host).stat().st_uid).pw_name if host.startswith("/") else "nobody"
        argv[1:1] = ["-u", owner]
    return _start_server(PgBouncer, "pgbouncer", argv, dict(os.environ), port=port, timeout=timeout)
