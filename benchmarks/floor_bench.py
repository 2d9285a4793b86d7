"""The floor of a turn's memory layer on this machine: the storage round trips a turn makes, and nothing else.
It sends only the product's own statements and scripts with the thinnest client there is, a lower bound for
turn_bench. How to run it and what it measures: docs/bench.md ("The scripts").
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from benchmarks import services  # noqa: E402

DATABASE = "bench_floor"
PARTS = (
    "turn lock",
    "session read",
    "message: PostgreSQL",
    "message: Redis",
    "reply: PostgreSQL",
    "reply: Redis",
    "unlock",
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=300, help="turns of each kind (durable, no WAL flush wait)")
    parser.add_argument("--model-ms", type=float, default=20.0, help="the untimed pause standing for the model")
    parser.add_argument("--between-ms", type=float, default=5.0, help="the untimed pause between turns")
    parser.add_argument(
        "--history",
        type=int,
        default=40,
        help="messages the session read returns (a compressed session holds 30 to 50 after its summaries)",
    )
    parser.add_argument("--json", type=Path, help="also write the figures to this file")
    parser.add_argument("--datadir", type=Path, default=Path("/tmp/bench-floor"))
    args = parser.parse_args()
    services.run_benchmark(args, DATABASE, lambda: run(args))


class Turn:
    """One conversation's storage round trips, with every argument prepared ahead of the clock."""

    def __init__(self, conversation_id, customer_id: int, history: int) -> None:
        import psycopg
        from django.db import connection
        from django_redis import get_redis_connection

        from chat import commitments
        from chat.agent import _LOCK_AND_PROFILE
        from memory import locks
        from memory import session as short_term
        from memory.models import Conversation
        from memory.session import hot, rows

        connection.ensure_connection()
        self.pg = psycopg.Cursor(connection.connection)  # server-side binding: no quoting in Python
        self.redis = get_redis_connection("default")
        store = short_term.store()
        self.read_sha = self.redis.script_load(hot.READ_SESSION)
        self.apply_sha = self.redis.script_load(hot.APPLY_IF_VERSION)
        self.keys = short_term.SessionKeys.of(conversation_id)
        self.id, self.customer = conversation_id, customer_id
        self.lock_sql = _LOCK_AND_PROFILE
        lease = locks.Lease(f"turn:{conversation_id}")
        self.give_back_sql, self.lease_key = locks.GIVE_BACK, [lease.name, lease.holder]
        # The lease's query also asks whether the customer has promises to read (chat.commitments).
        self.lock_params = [*lease.take_parameters(), commitments.recent_since(), customer_id]
        self.ttl, self.max_messages, self.history = store.ttl_seconds, store.max_messages, history
        # The two batches of a plain turn, as memory.session.rows writes them.
        self.message_sql = rows._batch_sql(
            rows._set_clause(("last_seq", "loop_flagged", "state", "updated_at", "version"))[0], 1, 1
        )
        self.reply_sql = rows._batch_sql(rows._set_clause(("last_seq", "updated_at", "version"))[0], 1, 0)
        row = Conversation.objects.get(pk=conversation_id)
        self.version, self.seq = row.version, row.last_seq

    def arguments(self, now, customer_text: str, reply_text: str) -> dict:
        """Everything the timed round trips send, built before the clock starts."""
        from psycopg.types.json import Jsonb

        v, seq = self.version, self.seq
        message = [self.id, seq + 1, "user", customer_text, 12, now, Jsonb({})]
        transition = [self.id, self.customer, "resolved", "collecting_info", "the customer wrote", False, now]
        reply = [self.id, seq + 2, "assistant", reply_text, 20, now, Jsonb({})]

        def hot(version: int, seq: int, text: str, role: str, extra: list) -> list:
            entry = json.dumps(
                {"seq": seq, "role": role, "content": text, "tokens": 12, "at": now.isoformat(), "meta": {}},
                ensure_ascii=False,
            )
            head = ["version", version + 1, "updated", now.isoformat(), "last_seq", seq, *extra]
            commands = ["HSET", 1, len(head), *head, "RPUSH", 2, 1, entry, "LTRIM", 2, 2, -self.max_messages, -1]
            for index in (1, 2, 3, 4):
                commands += ["EXPIRE", index, 1, self.ttl]
            return [version, *commands]

        return {
            "message_sql": [seq + 1, False, "collecting_info", now, v + 1, self.id, v, *message, *transition],
            "message_redis": hot(v, seq + 1, customer_text, "user", ["state", "collecting_info", "loop_flagged", 0]),
            "reply_sql": [seq + 2, now, v + 2, self.id, v + 1, *reply],
            "reply_redis": hot(v + 1, seq + 2, reply_text, "assistant", []),
        }

    def _batch(self, sql: str, parameters: list, script_arguments: list, marks: list[float]) -> None:
        """One batch as the product writes it: its statement, then its Redis script; a mark after each."""
        self.pg.execute(sql, parameters, prepare=True)
        if self.pg.fetchone() is None:
            raise RuntimeError("a batch found another version: the benchmark's bookkeeping is wrong")
        marks.append(time.perf_counter())
        if not self.redis.execute_command("EVALSHA", self.apply_sha, 4, *self.keys.all(), *script_arguments):
            raise RuntimeError("the hot copy was not at the expected version")
        marks.append(time.perf_counter())

    def run(self, arguments: dict, model_seconds: float, synchronous: bool) -> tuple[list[float], float]:
        """Make the turn's round trips; the wall milliseconds of each, and this thread's CPU milliseconds."""
        pg, redis, keys = self.pg, self.redis, self.keys.all()
        message_sql = self.message_sql
        reply_sql = self.reply_sql
        if not synchronous:  # the same statement with the WAL flush wait off for its own transaction
            off = " , (SELECT set_config('synchronous_commit', 'off', true)) AS commit_mode"
            message_sql, reply_sql = message_sql + off, reply_sql + off
        spent, cpu = [], 0.0
        marks = [time.perf_counter()]
        started_cpu = time.thread_time()
        pg.execute(self.lock_sql, self.lock_params, prepare=True)
        pg.fetchone()
        marks.append(time.perf_counter())
        redis.execute_command("EVALSHA", self.read_sha, 4, keys[0], keys[1], keys[3], keys[2], self.history, 0)
        marks.append(time.perf_counter())
        self._batch(message_sql, arguments["message_sql"], arguments["message_redis"], marks)
        cpu += time.thread_time() - started_cpu
        time.sleep(model_seconds)
        marks.append(time.perf_counter())
        started_cpu = time.thread_time()
        self._batch(reply_sql, arguments["reply_sql"], arguments["reply_redis"], marks)
        pg.execute(self.give_back_sql, self.lease_key, prepare=True)
        marks.append(time.perf_counter())
        cpu += time.thread_time() - started_cpu
        for index, (start, end) in enumerate(zip(marks, marks[1:], strict=False)):
            if index != 4:  # the model's pause
                spent.append((end - start) * 1000)
        self.version, self.seq = self.version + 2, self.seq + 2
        return spent, cpu * 1000


def run(args: argparse.Namespace) -> dict:
    from django.contrib.auth import get_user_model

    from agentsite import clock
    from chat.models import CustomerProfile
    from memory import session as short_term

    customer = get_user_model().objects.create(username="floor")
    CustomerProfile.objects.create(user=customer, display_name="Floor", language="en")
    conversation = short_term.store().start(customer.pk)
    turn = Turn(conversation.id, customer.pk, args.history)
    samples = {kind: {"parts": [], "total": [], "cpu": []} for kind in ("durable", "no WAL flush wait")}
    text, reply = "Where is my parcel, order ORD-2025-0816?", "It left the warehouse this morning; here is the link."
    for index in range(args.turns * 2 + 20):
        kind = "durable" if index % 2 == 0 else "no WAL flush wait"
        arguments = turn.arguments(clock.now(), text, reply)
        time.sleep(args.between_ms / 1000)
        parts, cpu = turn.run(arguments, args.model_ms / 1000, synchronous=kind == "durable")
        if index >= 20:  # the first turns prepare the statements and warm the caches
            samples[kind]["parts"].append(parts)
            samples[kind]["total"].append(sum(parts))
            samples[kind]["cpu"].append(cpu)
    figures = {
        "machine": services.machine(),
        "load": services.load_average(),
        "parameters": {
            "turns": args.turns,
            "model ms": args.model_ms,
            "between ms": args.between_ms,
            "history": args.history,
        },
        "rows": {"messages written": turn.seq, "conversation version": turn.version},
        "kinds": {},
    }
    for kind, s in samples.items():
        figures["kinds"][kind] = {
            "total": stats(s["total"]),
            "client CPU": stats(s["cpu"]),
            "parts": {name: stats([p[i] for p in s["parts"]]) for i, name in enumerate(PARTS)},
        }
    print(f"{services.machine()}\n{services.load_average()}")
    print(
        f"one conversation, {args.turns} turns of each kind, alternating; model pause {args.model_ms:g} ms, "
        f"{args.between_ms:g} ms between turns; {args.history} messages read a turn; {turn.seq} messages "
        "written"
    )
    for kind in figures["kinds"]:
        print(f"{kind}: the turn's storage round trips, ms")
        print(f"  {'all of them':38s} {services.summary(samples[kind]['total'])}")
        for i, name in enumerate(PARTS):
            print(f"  {name:38s} {services.summary([p[i] for p in samples[kind]['parts']])}")
        print(f"  {'client CPU (this thread)':38s} {services.summary(samples[kind]['cpu'])}")
    return figures


def stats(samples: list[float]) -> dict:
    return {
        "p50": statistics.median(samples),
        "p95": services.percentile(samples, 0.95),
        "mean": statistics.fmean(samples),
        "n": len(samples),
    }


if __name__ == "__main__":
    main()
