"""Websocket load: many customers chatting at once through daphne with the offline model.

    .venv/bin/python benchmarks/ws_load.py --customers 200 --messages 2 --workers 8

Runs on servers of its own (``benchmarks/services.py``), starts the offline model and one daphne
process, logs every customer in, then lets them all chat at once (bounded: each sends
``--messages`` messages and the run stops). Prints turns per second, p50/p95/p99 turn latency,
errors, and the resident memory of daphne and the model server.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import time
from decimal import Decimal
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from benchmarks import services  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--customers", type=int, default=200)
    parser.add_argument("--messages", type=int, default=2)
    parser.add_argument("--workers", type=int, default=8, help="AGENT_TURN_WORKERS of the daphne process")
    parser.add_argument("--datadir", type=Path, default=Path("/tmp/bench-ws"))
    args = parser.parse_args()
    server_url = services.start(args.datadir, "bench_ws")
    try:
        run(args)
    finally:
        services.stop(args.datadir, server_url, "bench_ws")


def run(args) -> None:
    import psutil
    from django.conf import settings
    from django.contrib.auth import get_user_model
    from django.test import Client

    from agentsite import clock
    from agentsite.offline_model.runner import start_offline_model
    from chat.models import CustomerProfile, Order
    from tests.load import CustomerRun, crowd, percentile
    from tests.procs import ProcessEnv, start_daphne

    settings.ALLOWED_HOSTS = ["*"]
    customers = []
    for index in range(args.customers):
        user = get_user_model().objects.create_user(username=f"load{index}")  # no password: nothing to hash
        CustomerProfile.objects.create(user=user, display_name=user.username, language="en")
        number = f"ORD-2025-{1000 + index:04d}"
        Order.objects.create(
            customer=user, number=number, status="processing", total=Decimal("5"), placed_at=clock.now()
        )
        client = Client()
        client.force_login(user)
        customers.append((f"sessionid={client.cookies['sessionid'].value}", CustomerRun(user.username, number)))
    model = start_offline_model()
    env = ProcessEnv(database_url=os.environ["DATABASE_URL"], redis_url=os.environ["REDIS_URL"])
    server = start_daphne(env, extra_env={"AGENT_TURN_WORKERS": str(args.workers), "OPENAI_BASE_URL": model.base_url,
                                          "CLOCK_ALLOW_OFFSET": "0", "LOG_LEVEL": "WARNING"})  # fmt: skip
    try:
        url = f"ws://127.0.0.1:{server.port}/ws/chat/"
        messages = ["What's the status of order {n}?", "Thanks!"][: args.messages]
        started = time.perf_counter()
        runs = asyncio.run(crowd(url, customers, lambda r: [m.format(n=r.order_number) for m in messages]))
        elapsed = time.perf_counter() - started
        rss = {name: psutil.Process(pid).memory_info().rss / 2**20 for name, pid in (("daphne", server.pid),
                                                                                     ("model", model.pid))}  # fmt: skip
    finally:
        server.stop()
        model.stop()
    latencies = [x for r in runs for x in r.latencies]
    errors = [e for r in runs for e in r.errors]
    wrong = sum(1 for r in runs if r.replies and r.order_number not in r.replies[0])
    print(services.machine())
    print(f"customers {args.customers}, messages each {args.messages}, AGENT_TURN_WORKERS {args.workers}")
    print(f"turns {len(latencies)} in {elapsed:.1f} s: {len(latencies) / elapsed:.1f} turns/s")
    p50, p95, p99 = (percentile(latencies, q) * 1000 for q in (0.5, 0.95, 0.99))
    print(f"turn latency p50 {p50:.0f} ms, p95 {p95:.0f} ms, p99 {p99:.0f} ms")
    print(f"errors {len(errors)} {sorted(set(errors))[:5]}; replies naming the wrong order {wrong}")
    print(f"resident memory: daphne {rss['daphne']:.0f} MiB, offline model {rss['model']:.0f} MiB")


if __name__ == "__main__":
    main()
