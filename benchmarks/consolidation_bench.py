"""Consolidation throughput per Celery worker process, with the offline model, and where its time goes.
It runs real prefork workers on servers of its own, so the figures are a deployment's. How to run it and what
it measures: docs/bench.md ("The scripts").
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from benchmarks import services  # noqa: E402
from benchmarks.synthetic import MONTHS  # noqa: E402

DATABASE = "bench_cons"
SCRIPTS = {
    "zh": [
        ("我的生日是{month}月{day}日", "好的，记下了。"),
        ("以后请用邮件联系我", "好的，以后用邮件联系您。"),
        ("我的订单号是 ORD-2025-{n:04d}，还没发货", "我查一下这个订单。"),
        ("收货地址改成上海市浦东新区世纪大道{n}号", "地址已记录，需要您确认。"),
        ("晚上请把通知静音", "好的，已为您设置静音。"),
    ],
    "en": [
        ("My birthday is {month_name} {day}", "Thanks, noted."),
        ("Please contact me by email from now on", "Sure, email it is."),
        ("My order number is ORD-2025-{n:04d} and it hasn't shipped", "Let me look that up."),
        ("Ship to {n} Baker Street, London NW1 6XE", "Noted, please confirm the address."),
        ("Please mute notifications at night", "Done, notifications are muted."),
    ],
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--conversations", type=int, default=60, help="conversations per timed batch")
    parser.add_argument("--processes", default="1,2", help="prefork pool sizes to run, comma-separated")
    parser.add_argument("--json", type=Path, help="also write the figures to this file")
    parser.add_argument("--datadir", type=Path, default=Path("/tmp/bench-cons"))
    args = parser.parse_args()
    services.run_benchmark(args, DATABASE, lambda: run(args))


def make_conversations(count: int, offset: int) -> list[str]:
    """``count`` conversations of ten messages, each of a new customer; return their ids."""
    from django.contrib.auth import get_user_model

    from agentsite import clock
    from chat.models import CustomerProfile
    from memory import session as short_term
    from memory.working import Entry, Role

    store = short_term.store()
    ids = []
    for index in range(offset, offset + count):
        language = "zh" if index % 2 else "en"
        user = get_user_model().objects.create_user(username=f"cons{index}")
        CustomerProfile.objects.create(user=user, display_name=user.username, language=language)
        conversation = store.start(user.pk).id
        values = {"month": index % 12 + 1, "month_name": MONTHS[index % 12], "day": index % 28 + 1, "n": index}
        for said, answered in SCRIPTS[language]:
            store.append(conversation, Entry.create(Role.USER, said.format(**values), timestamp=clock.now()))
            store.append(conversation, Entry.create(Role.ASSISTANT, answered, timestamp=clock.now()))
        ids.append(str(conversation))
    return ids


def consolidate_all(ids: list[str], timeout: float = 600) -> list[dict]:
    """Queue consolidation of every conversation at once and wait for every result."""
    from memory.tasks import consolidate_conversation

    pending = [consolidate_conversation.delay(conversation_id) for conversation_id in ids]
    return [result.get(timeout=timeout) for result in pending]


def cpu_seconds(pids: list[int]) -> float:
    import psutil

    total = 0.0
    for pid in pids:
        try:
            times = psutil.Process(pid).cpu_times()
            total += times.user + times.system
        except psutil.NoSuchProcess:
            pass
    return total


def run(args: argparse.Namespace) -> dict:
    import psutil
    from django.conf import settings

    from agentsite import llm
    from agentsite.offline_model.runner import start_offline_model
    from memory.models import ConversationMessage, LongTermMemory
    from tests.procs import ProcessEnv, start_worker

    model = start_offline_model()
    settings.OPENAI_BASE_URL = model.base_url
    llm.reset_gateway()
    env = ProcessEnv(database_url=os.environ["DATABASE_URL"], redis_url=os.environ["REDIS_URL"])
    runs = []
    offset = 0
    try:
        for processes in [int(p) for p in args.processes.split(",")]:
            warmup = make_conversations(2 * processes, offset)
            offset += len(warmup)
            batch = make_conversations(args.conversations, offset)
            offset += len(batch)
            worker = start_worker(
                env,
                concurrency=processes,
                name=f"bench-cons-{processes}",
                extra_env={"OPENAI_BASE_URL": model.base_url, "CLOCK_ALLOW_OFFSET": "0", "LOG_LEVEL": "WARNING"},
            )
            try:
                consolidate_all(warmup)
                children = worker.pool_children()
                cpu_before, model_cpu_before = cpu_seconds(children), cpu_seconds([model.pid])
                load = services.load_average()
                started = time.perf_counter()
                results = consolidate_all(batch)
                elapsed = time.perf_counter() - started
                cpu = cpu_seconds(children) - cpu_before
                model_cpu = cpu_seconds([model.pid]) - model_cpu_before
                rss = {pid: psutil.Process(pid).memory_info().rss / 2**20 for pid in [worker.pid, *children]}
            finally:
                worker.stop()
            runs.append(summarise(processes, results, elapsed, cpu, model_cpu, rss, load))
        rows = {
            "conversations consolidated": offset,
            "messages read": ConversationMessage.objects.count(),
            "long-term memories written": LongTermMemory.objects.count(),
        }
    finally:
        model.stop()
    figures = {
        "machine": services.machine(),
        "parameters": {"conversations per batch": args.conversations, "messages per conversation": 10},
        "rows": rows,
        "runs": runs,
    }
    print_figures(figures)
    return figures


def summarise(
    processes: int, results: list[dict], elapsed: float, cpu: float, model_cpu: float, rss: dict, load: str
) -> dict:
    """One pool size's figures."""
    phases = sorted({name for r in results for name in r["timings"]})
    per_phase = {name: statistics.fmean(r["timings"].get(name, 0.0) for r in results) for name in phases}
    cpu_by_phase = {name: statistics.fmean(r.get("cpu_timings", {}).get(name, 0.0) for r in results) for name in phases}
    total = sum(per_phase.values())
    outcomes: dict[str, int] = {}
    for r in results:
        for action, n in r["outcomes"].items():
            outcomes[action] = outcomes.get(action, 0) + n
    return {
        "processes": processes,
        "conversations": len(results),
        "seconds": elapsed,
        "conversations per second": len(results) / elapsed,
        "per process": len(results) / elapsed / processes,
        "mean ms per conversation by phase": per_phase,
        "share by phase": {name: ms / total for name, ms in per_phase.items()},
        "mean CPU ms per conversation by phase": cpu_by_phase,
        "CPU share by phase": {name: ms / max(sum(cpu_by_phase.values()), 1e-9) for name, ms in cpu_by_phase.items()},
        "memories per conversation": sum(outcomes.values()) / len(results),
        "outcomes": outcomes,
        "pool CPU seconds per conversation": cpu / len(results),
        "pool CPU use (cores)": cpu / elapsed,
        "offline model CPU use (cores)": model_cpu / elapsed,
        "resident MiB (parent, children)": [round(v) for v in rss.values()],
        "load before": load,
    }


def print_figures(figures: dict) -> None:
    print(figures["machine"])
    print("rows:", ", ".join(f"{k} {v}" for k, v in figures["rows"].items()))
    for r in figures["runs"]:
        print(
            f"\n{r['processes']} process(es): {r['conversations']} conversations in {r['seconds']:.1f} s = "
            f"{r['conversations per second']:.2f}/s, {r['per process']:.2f}/s per process ({r['load before']})"
        )
        print(
            "  mean ms per conversation: "
            + ", ".join(
                f"{k} {v:.1f} ({r['share by phase'][k]:.0%})" for k, v in r["mean ms per conversation by phase"].items()
            )
        )
        print(
            "  CPU ms per conversation (the pool child's thread): "
            + ", ".join(
                f"{k} {v:.1f} ({r['CPU share by phase'][k]:.0%})"
                for k, v in r["mean CPU ms per conversation by phase"].items()
            )
        )
        print(
            f"  memories per conversation {r['memories per conversation']:.1f} {r['outcomes']}; pool CPU "
            f"{r['pool CPU seconds per conversation'] * 1000:.0f} ms per conversation, {r['pool CPU use (cores)']:.2f} "
            f"cores; offline model {r['offline model CPU use (cores)']:.2f} cores; "
            f"RSS MiB {r['resident MiB (parent, children)']}"
        )


if __name__ == "__main__":
    main()
