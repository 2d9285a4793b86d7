"""Turn runs into the figures of reports/eval.md and eval.json, each beside the article's, and charts:
every figure is computed from the records of ``runner``, nothing is estimated, and the figures run beside
the scenarios (``simulations``, ``shop_truth``, ``promises``) bring their own sections. The definitions of
the figures: docs/eval.md.
"""

from __future__ import annotations

from pathlib import Path
from typing import NotRequired, TypedDict

from django.conf import settings

from chat.evaluation import promises, shop_truth
from chat.evaluation.runner import NOT_MEMORY_LAYER, Run, TurnRecord
from chat.evaluation.simulations import Simulations

ARTICLE = {
    "first_question": ("67%", "89%"),
    "fifth_turn": ("41%", "83%"),
    "repeat": ("34%", "8%"),
    "deferred_vectors": "−60% vector queries vs active",
    "memories_per_fact": "47 before its fix (goal 1.00)",
    "tool_reduction": "−85% (3,000 → 200-400 tokens)",
    "long_session": "4,000 → ~1,200 tokens",
    "growth": "< 20% a month",
}


class Phase(TypedDict):
    wall_p50: float | None
    wall_p95: float | None
    cpu_p50: float | None
    cpu_p95: float | None


class MemoryLayerTime(TypedDict, total=False):  # total=False as ModeFigures, which it is part of
    memory_ms_p50: float | None
    memory_ms_p95: float | None
    memory_ms_p50_no_embedding: float | None
    memory_ms_p95_no_embedding: float | None
    memory_cpu_ms_p50: float | None
    memory_cpu_ms_p95: float | None
    memory_cpu_ms_p50_no_embedding: float | None
    memory_cpu_ms_p95_no_embedding: float | None
    phases: dict[str, Phase]


class LongSession(TypedDict):
    messages: int
    history_tokens: int
    working_tokens: int
    history_sent: int
    facts_asked: int
    facts_answered: int


# total=False: the report reads a mode that did not run as an empty one ({}), every figure missing.
class ModeFigures(MemoryLayerTime, total=False):
    """The figures of one mode's run (docs/eval.md, "The figures")."""

    mode: str
    turns: int
    customers: int
    sessions: int
    seconds: float
    first_question_accuracy: float | None
    first_question_n: int
    fifth_turn_accuracy: float | None
    fifth_turn_n: int
    question_accuracy: float | None
    memory_question_accuracy: float | None
    questions_n: int
    repeat_share: float | None
    repeat_n: int
    later_turns: int
    vector_queries_per_turn: float
    vector_queries: int
    planted_facts: int
    planted_facts_stored: int
    memories_per_planted_fact: float | None
    conflicts_recorded: int
    tool_results: int
    tool_results_summarised: int
    tool_raw_tokens: int
    tool_kept_tokens: int
    tool_token_reduction: float | None
    tool_long_results: int
    tool_long_raw_tokens: int
    tool_long_kept_tokens: int
    tool_long_reduction: float | None
    long_session: LongSession | None
    threads: int
    turn_ms_p50: float | None
    model_ms_p50: float | None
    turn_checks_passed: float | None
    mixed_language_replies: int
    session_checks_passed: float | None
    session_checks_n: int
    model_calls: int
    prompt_tokens: int
    completion_tokens: int
    cost_usd: float


class Meta(TypedDict):
    """Where, when and on what the evaluation ran."""

    started: str
    machine: str
    model: str
    files: list[str]
    customers: int
    scenario_turns: int
    modes: list[str]
    threads: int
    worker_concurrency: int
    sampled: str  # which modes ran on a sample, in words; empty when none did
    seconds: NotRequired[float]  # set once everything has run


class Results(TypedDict):
    """What eval.md is written from and eval.json keeps (with the runs themselves beside it)."""

    meta: Meta
    modes: list[ModeFigures]
    sample_baselines: list[ModeFigures]
    failures: dict[str, list[str]]
    simulations: NotRequired[Simulations]
    simulations_seconds: NotRequired[float]
    simulation_charts: NotRequired[list[str]]
    simulations_note: NotRequired[str]  # why there are none: skipped, or how they failed
    shop_truth: NotRequired[shop_truth.Kept]
    shop_truth_cases: NotRequired[list[shop_truth.Case]]
    shop_truth_note: NotRequired[str]
    promises: NotRequired[promises.Kept]
    promises_note: NotRequired[str]
    charts: NotRequired[list[str]]


def _share(values: list[bool]) -> float | None:
    return round(sum(values) / len(values), 4) if values else None


def _pct(value: float | None) -> str:
    return "n/a" if value is None else f"{value * 100:.0f}%"


def _percentile(values: list[float], q: float) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    return round(ordered[min(len(ordered) - 1, int(q * len(ordered)))], 1)


def _questions(run: Run, position: int | None) -> list[TurnRecord]:
    return [
        t
        for t in run.turns
        if t.question and t.session >= 1 and t.passed is not None and (position is None or t.turn == position)
    ]


def figures(run: Run) -> ModeFigures:
    """The figures of one mode's run."""
    later = [t for t in run.turns if t.session >= 1]
    first, fifth, every = _questions(run, 0), _questions(run, 4), _questions(run, None)
    # _questions keeps only the turns that were scored, so each ``passed`` is True or False.
    memory_questions = [t for t in every if t.needs_memory]
    stored = sum(c.stored for c in run.customers)
    raw = sum(c.tool_raw_tokens for c in run.customers)
    kept = sum(c.tool_kept_tokens for c in run.customers)
    long_raw = sum(c.tool_long_raw_tokens for c in run.customers)
    long_kept = sum(c.tool_long_kept_tokens for c in run.customers)
    long = [s for s in run.sessions if s.messages >= 250]
    after = [c.passed for s in run.sessions for c in s.after]
    turn_checks = [c.passed for t in run.turns for c in t.checks]
    return {
        "mode": run.mode,
        "turns": len(run.turns),
        "customers": len(run.customers),
        "sessions": len(run.sessions),
        "seconds": run.seconds,
        "first_question_accuracy": _share([t.passed is True for t in first]),
        "first_question_n": len(first),
        "fifth_turn_accuracy": _share([t.passed is True for t in fifth]),
        "fifth_turn_n": len(fifth),
        "question_accuracy": _share([t.passed is True for t in every]),
        "memory_question_accuracy": _share([t.passed is True for t in memory_questions]),
        "questions_n": len(every),
        "repeat_share": _share([bool(t.repeated) for t in later]),
        "repeat_n": sum(bool(t.repeated) for t in later),
        "later_turns": len(later),
        "vector_queries_per_turn": round(sum(t.vector_queries for t in run.turns) / max(1, len(run.turns)), 3),
        "vector_queries": sum(t.vector_queries for t in run.turns),
        "planted_facts": sum(c.facts for c in run.customers),
        "planted_facts_stored": stored,
        "memories_per_planted_fact": round(sum(c.memories for c in run.customers) / stored, 3) if stored else None,
        "conflicts_recorded": sum(c.conflicts for c in run.customers),
        "tool_results": sum(c.tool_results for c in run.customers),
        "tool_results_summarised": sum(c.tool_summarised for c in run.customers),
        "tool_raw_tokens": raw,
        "tool_kept_tokens": kept,
        "tool_token_reduction": round(1 - kept / raw, 4) if raw else None,
        "tool_long_results": sum(c.tool_long for c in run.customers),
        "tool_long_raw_tokens": long_raw,
        "tool_long_kept_tokens": long_kept,
        "tool_long_reduction": round(1 - long_kept / long_raw, 4) if long_raw else None,
        "long_session": (
            LongSession(
                messages=long[0].messages,
                history_tokens=long[0].history_tokens,
                working_tokens=long[0].working_tokens_last,
                history_sent=long[0].history_tokens_last,
                facts_asked=long[0].facts_asked,
                facts_answered=long[0].facts_answered,
            )
            if long
            else None
        ),
        **memory_layer_time(run.turns),
        "threads": run.threads,
        "turn_ms_p50": _percentile([t.wall_ms for t in run.turns], 0.5),
        "model_ms_p50": _percentile([t.model_ms for t in run.turns], 0.5),
        "turn_checks_passed": _share(turn_checks),
        "mixed_language_replies": sum(bool(t.other_language) for t in run.turns),
        "session_checks_passed": _share(after),
        "session_checks_n": len(after),
        "model_calls": run.model_calls,
        "prompt_tokens": run.prompt_tokens,
        "completion_tokens": run.completion_tokens,
        "cost_usd": run.cost_usd,
    }


def memory_layer_time(turns: list[TurnRecord]) -> MemoryLayerTime:
    """Memory-layer time per turn from the turn's own phase timings (``TurnResult.timings``), model and tools out.

    Wall time and this thread's CPU time, with and without the query embedding, and p50/p95 by phase.
    """
    without = [t.memory_ms - t.phases.get("embedding", 0.0) for t in turns]
    without_cpu = [t.memory_cpu_ms - t.cpu_phases.get("embedding", 0.0) for t in turns]
    names = sorted({name for t in turns for name in t.phases} - NOT_MEMORY_LAYER)
    return {
        "memory_ms_p50": _percentile([t.memory_ms for t in turns], 0.5),
        "memory_ms_p95": _percentile([t.memory_ms for t in turns], 0.95),
        "memory_ms_p50_no_embedding": _percentile(without, 0.5),
        "memory_ms_p95_no_embedding": _percentile(without, 0.95),
        "memory_cpu_ms_p50": _percentile([t.memory_cpu_ms for t in turns], 0.5),
        "memory_cpu_ms_p95": _percentile([t.memory_cpu_ms for t in turns], 0.95),
        "memory_cpu_ms_p50_no_embedding": _percentile(without_cpu, 0.5),
        "memory_cpu_ms_p95_no_embedding": _percentile(without_cpu, 0.95),
        "phases": {
            name: {
                "wall_p50": _percentile([t.phases.get(name, 0.0) for t in turns], 0.5),
                "wall_p95": _percentile([t.phases.get(name, 0.0) for t in turns], 0.95),
                "cpu_p50": _percentile([t.cpu_phases.get(name, 0.0) for t in turns], 0.5),
                "cpu_p95": _percentile([t.cpu_phases.get(name, 0.0) for t in turns], 0.95),
            }
            for name in names
        },
    }


def restricted(run: Run, customers: set[tuple[str, str]], label: str) -> Run:
    """The records of ``run`` for some (file, customer) pairs only, as a run named ``label``."""
    return Run(
        mode=label,
        turns=[t for t in run.turns if (t.file, t.customer) in customers],
        sessions=[s for s in run.sessions if (s.file, s.customer) in customers],
        customers=[c for c in run.customers if (c.file, c.customer) in customers],
        threads=run.threads,
    )


def failures(run: Run, limit: int = 15) -> list[str]:
    """A few failed checks, to read."""
    lines: list[str] = []
    for t in run.turns:
        for c in t.checks:
            if not c.passed and len(lines) < limit:
                lines.append(f"{t.customer} s{t.session + 1} t{t.turn + 1} «{t.say}» → «{t.reply[:100]}» ({c.detail})")
    for s in run.sessions:
        for c in s.after:
            if not c.passed and len(lines) < limit * 2:
                lines.append(f"{s.customer} after s{s.session + 1}: {c.kind}: {c.detail}")
    for t in [t for t in run.turns if t.other_language][:5]:
        lines.append(f"{t.customer} s{t.session + 1} t{t.turn + 1} «{t.say}»: other language: {t.other_language}")
    return lines


def markdown(results: Results, simulations_md: str = "") -> str:
    """reports/eval.md."""
    by = {f["mode"]: f for f in results["modes"]}
    off, on = by.get("off", ModeFigures()), by.get("active", ModeFigures())
    meta = results["meta"]
    lines = [
        "# Evaluation: the article's table on the real stack",
        "",
        f"Written by `make eval` (`manage.py eval`) on {meta['machine']}, {meta['started']}, "
        f"in {meta['seconds']:.0f} s. "
        f"Scenarios: {', '.join(meta['files'])} — {meta['customers']} customers, {meta['scenario_turns']} customer "
        f"turns. Model: {meta['model']}. Stack: PostgreSQL + pgvector and Redis (embedded), a Celery worker "
        "process consolidating every ended session, the shared clock moved between sessions. "
        "How to read every figure: docs/eval.md.",
        "",
        "## Memory off and on (active recall)",
        "",
        "| figure | article (off → on) | here, memory off | here, memory on | n |",
        "|---|---|---|---|---|",
        f"| planted-fact question, first turn of a later session | {ARTICLE['first_question'][0]} → "
        f"{ARTICLE['first_question'][1]} | {_pct(off.get('first_question_accuracy'))} | "
        f"{_pct(on.get('first_question_accuracy'))} | {on.get('first_question_n', 0)} |",
        f"| question at the 5th turn of a later session | {ARTICLE['fifth_turn'][0]} → {ARTICLE['fifth_turn'][1]} | "
        f"{_pct(off.get('fifth_turn_accuracy'))} | {_pct(on.get('fifth_turn_accuracy'))} | "
        f"{on.get('fifth_turn_n', 0)} |",
        f"| turns where the customer had to repeat a value given in an earlier session | {ARTICLE['repeat'][0]} → "
        f"{ARTICLE['repeat'][1]} | {_pct(off.get('repeat_share'))} ({off.get('repeat_n', 0)}) | "
        f"{_pct(on.get('repeat_share'))} ({on.get('repeat_n', 0)}) | {on.get('later_turns', 0)} |",
        f"| all scored questions of later sessions | — | {_pct(off.get('question_accuracy'))} | "
        f"{_pct(on.get('question_accuracy'))} | {on.get('questions_n', 0)} |",
        f"| only the questions that need an earlier session | — | {_pct(off.get('memory_question_accuracy'))} | "
        f"{_pct(on.get('memory_question_accuracy'))} | |",
        "",
        "## Recall modes",
        "",
        "| mode | vector queries per turn | question accuracy | needing memory | first turn | 5th turn | repeat share "
        "| customers | turns |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for f in results["modes"] + results.get("sample_baselines", []):
        lines.append(
            f"| {f['mode']} | {f['vector_queries_per_turn']:.2f} | {_pct(f['question_accuracy'])} | "
            f"{_pct(f['memory_question_accuracy'])} | {_pct(f['first_question_accuracy'])} | "
            f"{_pct(f['fifth_turn_accuracy'])} | {_pct(f['repeat_share'])} | {f['customers']} | {f['turns']} |"
        )
    if meta.get("sampled"):
        lines += ["", f"{meta['sampled']}; the rows “… on the sample” are the full runs cut to those customers."]
    base = {f["mode"]: f for f in results.get("sample_baselines", [])}
    active = base.get("active on the sample") or by.get("active")
    for mode in ("deferred", "tool"):
        if active and mode in by and active["vector_queries_per_turn"]:
            change = by[mode]["vector_queries_per_turn"] / active["vector_queries_per_turn"] - 1
            lines += [
                "",
                f"{mode.capitalize()} recall against active on the same customers: {change * 100:+.0f}% vector "
                f"queries per turn{' (article, deferred: −60%)' if mode == 'deferred' else ''}; accuracy of the "
                f"questions that need memory {_pct(by[mode]['memory_question_accuracy'])} against "
                f"{_pct(active['memory_question_accuracy'])}.",
            ]
    lines += [
        "",
        "## Memory store, tool results, compression, time",
        "",
        "| figure | article | here (memory on, active) |",
        "|---|---|---|",
        f"| memories per planted fact | {ARTICLE['memories_per_fact']} | {on.get('memories_per_planted_fact')} "
        f"({on.get('planted_facts_stored')} of {on.get('planted_facts')} planted facts stored) |",
        f"| conflicts recorded | — | {on.get('conflicts_recorded')} |",
        f"| tool-result token reduction, long results (over {settings.MEMORY_TOOL_RESULT_SUMMARY_TOKENS} tokens) | "
        f"{ARTICLE['tool_reduction']} | {_pct(on.get('tool_long_reduction'))} ({on.get('tool_long_raw_tokens')} → "
        f"{on.get('tool_long_kept_tokens')} tokens over {on.get('tool_long_results')} of "
        f"{on.get('tool_results')} results) |",
        f"| the same, every result that was shortened | — | {_pct(on.get('tool_token_reduction'))} "
        f"({on.get('tool_raw_tokens')} → {on.get('tool_kept_tokens')} tokens over "
        f"{on.get('tool_results_summarised')} results) |",
    ]
    long = on.get("long_session")
    if long:
        sent = long.get("history_sent", 0)
        lines.append(
            f"| the 300-message session | {ARTICLE['long_session']} | {long['history_tokens']:,} tokens stored "
            f"({long['messages']} messages) → {sent:,} of the conversation sent at its last turn "
            f"({sent / max(1, long['history_tokens']) - 1:+.0%}; "
            f"{long['working_tokens']:,} with the system prompt and memories) |"
        )
        if long.get("facts_asked"):
            lines.append(
                "| facts stated in that session, asked for at its end | — | "
                f"{long['facts_answered']} of {long['facts_asked']} answered "
                f"({long['facts_answered'] / long['facts_asked']:.0%}) |"
            )
    promises = results.get("promises")
    if promises:
        share = f"{promises['reported'] / promises['made']:.0%}" if promises["made"] else "n/a"
        lines.append(
            "| what the shop promised, reported back on the customer's next visit | — (goal 100%) | "
            f"{promises['reported']} of {promises['made']} ({share}); repeated on the visit after: "
            f"{promises['repeated']} |"
        )
    lines += [
        "| memory-layer time per turn, model and tools excluded, wall (this thread's CPU) | issue goal: p50 ≤ 25 ms "
        f"(Zep 87 ms, mem0 148 ms) | p50 {on.get('memory_ms_p50')} ms ({on.get('memory_cpu_ms_p50')} ms CPU), "
        f"p95 {on.get('memory_ms_p95')} ms ({on.get('memory_cpu_ms_p95')} ms CPU) |",
        "| the same without the query embedding | issue goal: p50 ≤ 5 ms, p95 ≤ 15 ms | "
        f"p50 {on.get('memory_ms_p50_no_embedding')} ms ({on.get('memory_cpu_ms_p50_no_embedding')} ms CPU), "
        f"p95 {on.get('memory_ms_p95_no_embedding')} ms ({on.get('memory_cpu_ms_p95_no_embedding')} ms CPU) |",
        f"| whole turn / model time, p50 | — | {on.get('turn_ms_p50')} ms / {on.get('model_ms_p50')} ms |",
        "",
    ]
    if on.get("phases"):
        lines += [
            "Memory-layer time by phase (memory on, active; `TurnResult.timings`, exclusive milliseconds per turn; "
            f"{on.get('threads', 1)} customer(s) played side by side, so wall time includes the others' turns "
            "and everyone else's load on the machine — CPU time is this thread's own work):",
            "",
            "| phase | wall p50 | wall p95 | CPU p50 | CPU p95 |",
            "|---|---|---|---|---|",
        ]
        for name, p in on["phases"].items():
            lines.append(f"| {name} | {p['wall_p50']} | {p['wall_p95']} | {p['cpu_p50']} | {p['cpu_p95']} |")
        lines.append("")
    if simulations_md:
        lines += [simulations_md.strip(), ""]
    else:
        lines += [
            f"Simulations (store size over 365 days, compression): {results.get('simulations_note', 'not run')}.",
            "",
        ]
    lines += [
        "## Checks of the scenario files",
        "",
        "| mode | turn checks passed | session checks passed | replies with another language's words | model calls "
        "| tokens in / out | cost (USD) | run time |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for f in results["modes"]:
        lines.append(
            f"| {f['mode']} | {_pct(f['turn_checks_passed'])} | {_pct(f['session_checks_passed'])} "
            f"({f['session_checks_n']}) | {f.get('mixed_language_replies', 0)} of {f['turns']} | {f['model_calls']} | "
            f"{f['prompt_tokens']:,} / {f['completion_tokens']:,} | {f['cost_usd']:.4f} | {f['seconds']:.0f} s |"
        )
    for mode, lines_failed in results.get("failures", {}).items():
        if lines_failed:
            lines += ["", f"Some failed checks ({mode}):", ""] + [f"- {line}" for line in lines_failed]
    lines += ["", "## Summary", "", _summary_table(results), ""]
    return "\n".join(lines)


def _summary_table(results: Results) -> str:
    rows = [
        "| mode | accuracy | first turn | 5th turn | repeats | vector q/turn | memories/fact | memory ms p50 |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for f in results["modes"]:
        rows.append(
            f"| {f['mode']} | {_pct(f['question_accuracy'])} | {_pct(f['first_question_accuracy'])} | "
            f"{_pct(f['fifth_turn_accuracy'])} | {_pct(f['repeat_share'])} | {f['vector_queries_per_turn']:.2f} | "
            f"{f['memories_per_planted_fact']} | {f['memory_ms_p50']} ({f['memory_cpu_ms_p50']} CPU) |"
        )
    return "\n".join(rows)


def summary_text(results: Results) -> str:
    """The summary table for the terminal."""
    return _summary_table(results)


def charts(results: Results, outdir: Path) -> list[Path]:
    """PNG charts beside the article's figures."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    outdir.mkdir(parents=True, exist_ok=True)
    by = {f["mode"]: f for f in results["modes"]}
    written = []
    if "off" in by and "active" in by:
        fig, ax = plt.subplots(figsize=(7, 3.6))
        labels = ["first turn", "5th turn", "repeat share"]
        article_off, article_on = [0.67, 0.41, 0.34], [0.89, 0.83, 0.08]
        off, on = by["off"], by["active"]
        here_off = [off["first_question_accuracy"] or 0, off["fifth_turn_accuracy"] or 0, off["repeat_share"] or 0]
        here_on = [on["first_question_accuracy"] or 0, on["fifth_turn_accuracy"] or 0, on["repeat_share"] or 0]
        width = 0.2
        for i, (values, label) in enumerate(
            [(article_off, "article, off"), (article_on, "article, on"), (here_off, "here, off"), (here_on, "here, on")]
        ):
            ax.bar([x + (i - 1.5) * width for x in range(3)], values, width, label=label)
        ax.set_xticks(range(3), labels)
        ax.set_ylim(0, 1)
        ax.set_ylabel("share")
        ax.legend(fontsize=8)
        ax.set_title("Memory off and on: accuracy and repeated information")
        fig.tight_layout()
        path = outdir / "eval-accuracy.png"
        fig.savefig(path, dpi=110)
        plt.close(fig)
        written.append(path)
    fig, ax1 = plt.subplots(figsize=(7, 3.6))
    modes = [f["mode"] for f in results["modes"]]
    ax1.bar(modes, [f["vector_queries_per_turn"] for f in results["modes"]], color="tab:blue")
    ax1.set_ylabel("vector queries per turn", color="tab:blue")
    ax2 = ax1.twinx()
    ax2.plot(modes, [f["question_accuracy"] or 0 for f in results["modes"]], "o-", color="tab:red")
    ax2.set_ylim(0, 1)
    ax2.set_ylabel("question accuracy", color="tab:red")
    ax1.set_title("Recall modes: vector queries and accuracy (article: deferred −60%)")
    fig.tight_layout()
    path = outdir / "eval-recall-modes.png"
    fig.savefig(path, dpi=110)
    plt.close(fig)
    written.append(path)
    return written
