"""Benchmark the session layer on the tests' own services; print per-operation medians.
It runs on the test suite's servers in a database of its own: never while the tests run. How to run it and
what it measures: docs/bench.md ("The scripts").
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

ROOT = Path(__file__).resolve().parent.parent
BENCH_DB = "session_bench"


def configure() -> str:
    """Point the settings at the tests' services and a database of the benchmark's own; return its URL."""
    sys.path.insert(0, str(ROOT))
    data = Path(os.environ.get("TEST_EMBEDDED_DATA_DIR", ROOT / ".data" / "test"))
    os.environ.setdefault("LOG_LEVEL", "WARNING")
    os.environ.update(
        AGENTSITE_READ_DOTENV="0",
        AGENTSITE_ENV="development",
        CLOCK_ALLOW_OFFSET="0",
        EMBEDDED_DATA_DIR=str(data),
        DJANGO_SETTINGS_MODULE="agentsite.settings",
    )
    from agentsite.embedded import ensure_postgres, ensure_redis

    server_url = os.environ.get("TEST_DATABASE_URL") or ensure_postgres(data / "pg")
    os.environ["REDIS_URL"] = os.environ.get("TEST_REDIS_URL") or ensure_redis(data / "redis")
    import psycopg

    with psycopg.connect(server_url, autocommit=True) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {BENCH_DB}")
        conn.execute(f"CREATE DATABASE {BENCH_DB}")
    parts = urlsplit(server_url)
    os.environ["DATABASE_URL"] = urlunsplit((parts.scheme, parts.netloc, f"/{BENCH_DB}", parts.query, ""))
    return server_url


def drop(server_url: str) -> None:
    from django.db import connections

    connections.close_all()
    import psycopg

    with psycopg.connect(server_url, autocommit=True) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {BENCH_DB}")


def timed(operation: Callable[[int], object], repeat: int) -> list[float]:
    samples = []
    for i in range(repeat):
        start = time.perf_counter()
        operation(i)
        samples.append((time.perf_counter() - start) * 1000)
    return samples


def report(name: str, samples: list[float]) -> None:
    samples = sorted(samples)
    p95 = samples[int(len(samples) * 0.95) - 1]
    print(f"{name:<44} median {statistics.median(samples):7.3f} ms   p95 {p95:7.3f} ms   n={len(samples)}")


def tool_steps(store, ids: list, message: Callable, repeat: int) -> tuple[list[float], list[float]]:
    """Milliseconds of a tool step's writes under the row lock and on the snapshot, interleaved."""
    from memory.models import Conversation
    from memory.working import Role

    latest = {cid: Conversation.objects.get(pk=cid) for cid in ids}
    samples: dict[bool, list[float]] = {False: [], True: []}

    def step(i: int, on_snapshot: bool) -> None:
        cid = ids[i % len(ids)]
        start = time.perf_counter()
        for role in (Role.ASSISTANT, Role.USER):
            with store.batch(cid, expected=latest[cid] if on_snapshot else None) as saved:
                store.append(cid, message(i, role))
            latest[cid] = saved
        samples[on_snapshot].append((time.perf_counter() - start) * 1000)

    for i in range(repeat):
        first = i % 2 == 0  # which way goes first alternates too
        step(i, first)
        step(i, not first)
    return samples[False], samples[True]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--conversations", type=int, default=20)
    parser.add_argument("--messages", type=int, default=120, help="messages per conversation before timing")
    parser.add_argument("--repeat", type=int, default=500)
    args = parser.parse_args()

    server_url = configure()
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    try:
        run(args)
    finally:
        drop(server_url)


def run(args: argparse.Namespace) -> None:
    from django.contrib.auth import get_user_model
    from django_redis import get_redis_connection

    from memory.compression import ChunkDigest
    from memory.models import CompressionSummary, Conversation, ConversationMessage
    from memory.session import SessionKeys, SessionStore
    from memory.working import Entry, Role, WorkingMemory

    redis = get_redis_connection("default")
    store = SessionStore(redis)
    now = datetime.now(UTC)

    def message(i: int, role: Role = Role.USER) -> Entry:
        text = f"我的订单号是 ORD-2025-{i % 10000:04d}，昨天下的单，还没发货，请帮我看看是什么情况。"
        return Entry.create(role, text, timestamp=now)

    def digest(lines: list[tuple[str, str]], cap: int) -> ChunkDigest:
        return ChunkDigest(" ".join(" ".join(text for _, text in lines).split()[:40]))

    User = get_user_model()
    sessions = []
    for c in range(args.conversations):
        customer = User.objects.create_user(username=f"bench{c}")
        session = store.start(customer.pk)
        for i in range(args.messages):
            store.append(session.id, message(i, Role.USER if i % 2 == 0 else Role.ASSISTANT))
        store.compress(session.id, digest=digest, fold=lambda text, cap: " ".join(text.split()[:cap]))
        sessions.append(session.id)
    ids = sessions

    print(f"setup: {len(ids)} conversations x {args.messages} messages, compressed; timing {args.repeat} of each\n")
    append = timed(lambda i: store.append(ids[i % len(ids)], message(i)), args.repeat)
    load = timed(lambda i: store.load(ids[i % len(ids)], recent=50), args.repeat)
    locked, snapshot = tool_steps(store, ids, message, args.repeat)

    def rebuild(i: int) -> None:
        cid = ids[i % len(ids)]
        redis.delete(*SessionKeys.of(cid).all())
        store.load(cid, recent=50)  # notices the loss and rebuilds from PostgreSQL

    rebuilt = timed(rebuild, args.repeat)
    memory_block = "<<<MEMORY\n- [confirmed] prefers email {key=contact_channel; value=email}\nMEMORY>>>"

    def build(i: int) -> None:
        wm = WorkingMemory.from_settings()
        wm.set_system("You are the shop's customer-service assistant.")
        wm.set_memory(memory_block)
        wm.extend(store.history(ids[i % len(ids)]))
        wm.to_messages()

    built = timed(build, args.repeat)

    report("append a message (PostgreSQL + Redis)", append)
    report("load the recent 50 messages (Redis)", load)
    report("a tool step's two writes, row locked", locked)
    report("a tool step's two writes, on the snapshot", snapshot)
    ratio = statistics.median(snapshot) / statistics.median(locked)
    print(f"{'  ratio of medians (snapshot / locked)':<44} {ratio:.2f}")
    report("rebuild a lost session from PostgreSQL", rebuilt)
    report("build working memory for a turn", built)

    keys = list(redis.scan_iter(match="stm:*"))
    per_list = [redis.llen(k) for k in keys if k.endswith(b":msgs")]
    wm = WorkingMemory.from_settings()
    wm.extend(store.history(ids[0]))
    print(
        f"\nrows: {Conversation.objects.count()} conversations, {ConversationMessage.objects.count()} messages, "
        f"{CompressionSummary.objects.count()} summaries\n"
        f"Redis: {len(keys)} session keys, {min(per_list)}-{max(per_list)} messages per list "
        f"(cap {store.max_messages}); a turn's history: {len(store.history(ids[0]))} entries, "
        f"{wm.usage().used} tokens"
    )
    for cid in ids:
        redis.delete(*SessionKeys.of(cid).all())


if __name__ == "__main__":
    main()
