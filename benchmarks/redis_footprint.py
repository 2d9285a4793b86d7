"""What Redis holds per active session and per queued task, for sizing it (docs/operations.md).
Sessions through the product's own store, tasks on the broker with no worker; prints bytes. How to run it and
what it measures: docs/bench.md ("The scripts").
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from benchmarks import services  # noqa: E402

DATABASE = "bench_redis_footprint"
TEXTS = {
    "en": (
        "Hi, my order ORD-2025-0816 still says processing after five days. Can you check where it is?",
        "Your order ORD-2025-0816 left our warehouse yesterday with the courier; tracking shows it in transit.",
    ),
    "zh": (
        "你好，我的订单 ORD-2025-0816 五天了还显示处理中，能帮我查一下吗？",
        "您的订单 ORD-2025-0816 昨天已经交给快递，目前在运输途中。",
    ),
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=50, help="sessions of each language and length")
    parser.add_argument("--tasks", type=int, default=1000, help="consolidation tasks queued with no worker")
    parser.add_argument("--json", type=Path, help="also write the figures to this file")
    parser.add_argument("--datadir", type=Path, default=Path("/tmp/bench-redis-footprint"))
    args = parser.parse_args()
    services.run_benchmark(args, DATABASE, lambda: run(args))


def session_bytes(store, customer_id: int, language: str, messages: int) -> int:
    """Write one session of ``messages`` messages; the bytes its Redis keys take."""
    from agentsite import clock
    from memory.session import SessionKeys
    from memory.working import Entry, Role

    session = store.start(customer_id)
    asked, answered = TEXTS[language]
    for n in range(messages):
        role, text = (Role.USER, asked) if n % 2 == 0 else (Role.ASSISTANT, answered)
        store.append(session.id, Entry.create(role, text, timestamp=clock.now()))
    redis = store.redis
    return sum(redis.memory_usage(key) or 0 for key in SessionKeys.of(session.id).all())


def run(args: argparse.Namespace) -> dict:
    import uuid

    from celery import current_app
    from django.contrib.auth import get_user_model

    from memory import session as short_term
    from memory.tasks import consolidate_conversation

    customer = get_user_model().objects.create_user(username="footprint")
    store = short_term.store()
    sessions: dict[str, dict[str, float]] = {}
    for language in TEXTS:
        for messages in (2, 20, store.max_messages):
            sizes = [session_bytes(store, customer.pk, language, messages) for _ in range(args.sessions)]
            sessions.setdefault(language, {})[str(messages)] = statistics.median(sizes)

    with current_app.connection_for_write() as broker_connection:
        broker = broker_connection.default_channel.client
        before = broker.info("memory")["used_memory"]
        for _ in range(args.tasks):
            consolidate_conversation.delay(str(uuid.uuid4()))
        after = broker.info("memory")["used_memory"]
        queued = broker.llen("celery")
        broker.delete("celery")  # nobody will take them
    per_task = (after - before) / args.tasks

    print(services.machine())
    hours = store.ttl_seconds / 3600
    print(f"session window (MEMORY_SESSION_MAX_MESSAGES) {store.max_messages} messages, kept {hours:g} h after")
    for language, by_length in sessions.items():
        print(
            f"a session in {language}: " + ", ".join(f"{n} messages {b / 1024:.1f} KiB" for n, b in by_length.items())
        )
    print(f"a queued consolidation task: {per_task:.0f} bytes of the broker's memory ({queued} queued, none taken)")
    return {
        "session bytes": sessions,
        "window messages": store.max_messages,
        "task bytes": per_task,
        "session ttl seconds": store.ttl_seconds,
    }


if __name__ == "__main__":
    main()
