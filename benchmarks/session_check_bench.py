"""What the chat socket's check of the login behind a frame costs, by session engine.
Django's database engine against the project's cached one, alternating; a script that prints. How to run it
and what it measures: docs/bench.md ("The scripts").
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from benchmarks import services  # noqa: E402

DATABASE = "bench_sessions"
ENGINES = {"database": "django.contrib.sessions.backends.db", "cache + database": "agentsite.sessions"}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=1000, help="checks with each engine")
    parser.add_argument("--idle-ms", type=float, default=2.0, help="the untimed pause before each check")
    parser.add_argument("--datadir", type=Path, default=Path("/tmp/bench-sessions"))
    args = parser.parse_args()
    services.run_benchmark(args, DATABASE, lambda: run(args))


def run(args: argparse.Namespace) -> None:
    from django.conf import settings
    from django.contrib.auth import get_user_model
    from django.test import Client

    from chat.conversations import session_alive

    user = get_user_model().objects.create_user(username="checked", password="x")
    client = Client()
    client.force_login(user)
    key = client.cookies["sessionid"].value
    wall: dict[str, list[float]] = {name: [] for name in ENGINES}
    cpu: dict[str, list[float]] = {name: [] for name in ENGINES}
    for _ in range(args.rounds):
        for name, engine in ENGINES.items():
            settings.SESSION_ENGINE = engine
            time.sleep(args.idle_ms / 1000)
            started, started_cpu = time.perf_counter(), time.thread_time()
            alive = session_alive(key, user.pk)
            wall[name].append((time.perf_counter() - started) * 1000)
            cpu[name].append((time.thread_time() - started_cpu) * 1000)
            assert alive
    print(f"{services.machine()}")
    print(f"{args.rounds} checks with each engine, alternating, {args.idle_ms} ms idle before each")
    print(f"{'engine':<18}{'wall p50':>10}{'wall p95':>10}{'CPU p50':>10}{'CPU p95':>10}  (ms)")
    for name in ENGINES:
        print(
            f"{name:<18}{_p(wall[name], 50):>10.3f}{_p(wall[name], 95):>10.3f}"
            f"{_p(cpu[name], 50):>10.3f}{_p(cpu[name], 95):>10.3f}"
        )
    before, after = ENGINES
    print(
        f"ratio {after} / {before}: wall p50 {_p(wall[after], 50) / _p(wall[before], 50):.2f}, "
        f"CPU p50 {_p(cpu[after], 50) / _p(cpu[before], 50):.2f}"
    )


def _p(values: list[float], percentile: int) -> float:
    return statistics.quantiles(values, n=100)[percentile - 1]


if __name__ == "__main__":
    main()
