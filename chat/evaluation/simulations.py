"""The simulated figures' part of reports/eval.md: their parameters, the table that sets each beside the
article's, a section per figure and the charts. The figures themselves are simulated in ``store_size``,
``tool_results`` and ``session_compression`` on the shared ``scratch`` setup, and the harness runs them
(``harness.run_simulations``); how to read them: docs/eval.md.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, TypedDict

import numpy as np

from chat.evaluation.session_compression import ARTICLE_TOKENS, CompressionParams, SessionCompression
from chat.evaluation.store_size import ARTICLE_GROWTH, StoreSize, StoreSizeParams
from chat.evaluation.tool_results import ARTICLE_REDUCTION, KindFigures, ToolResultParams, ToolResults

if TYPE_CHECKING:
    from matplotlib.figure import Figure

ARTICLE: dict[str, str | float] = {
    "store_growth_per_month": ARTICLE_GROWTH,
    "tool_result_reduction": ARTICLE_REDUCTION,
    "session_tokens_before": ARTICLE_TOKENS[0],
    "session_tokens_after": ARTICLE_TOKENS[1],
}


@dataclass(frozen=True)
class Params:
    store_size: StoreSizeParams = field(default_factory=StoreSizeParams)
    tool_results: ToolResultParams = field(default_factory=ToolResultParams)
    compression: CompressionParams = field(default_factory=CompressionParams)


class Simulations(TypedDict):
    """The three figures as eval.json keeps them, with the parameters they ran on."""

    store_size: StoreSize
    tool_results: ToolResults
    session_compression: SessionCompression
    params: dict[str, dict[str, float]]  # Params as a dict: figure -> parameter -> value
    article: dict[str, str | float]
    seconds: float


def _pct(value: float | None) -> str:
    return "–" if value is None else f"{value * 100:+.1f}%"


def markdown(results: Simulations) -> str:
    """The three figures as a markdown section, each beside the article's."""
    size, tools, session = results["store_size"], results["tool_results"], results["session_compression"]
    on, off = size["on"], size["off"]
    lines = [
        "## Simulations: store size, tool results, long sessions",
        "",
        "Run through the project's own code on PostgreSQL + pgvector and Redis, for scratch customers "
        f"(`chat/evaluation/simulations.py`; everything created is rolled back), in {results['seconds']:,.0f} s.",
        "",
        "| figure | article | measured |",
        "|---|---|---|",
        f"| growth of valid memories over the last month, forgetting on / off | "
        f"{ARTICLE_GROWTH} | "
        f"{_pct(size['final_growth_valid']['on'])} / {_pct(size['final_growth_valid']['off'])} |",
        f"| growth of all rows (archived included) over the last month, on / off | "
        f"{ARTICLE_GROWTH} | "
        f"{_pct(size['final_growth_total']['on'])} / {_pct(size['final_growth_total']['off'])} |",
        f"| valid memories / all rows after {on['months'][-1]['day']} days, on | – | "
        f"{size['final_valid']['on']:,} / {size['final_total']['on']:,} |",
        f"| valid memories / all rows after {off['months'][-1]['day']} days, off | – | "
        f"{size['final_valid']['off']:,} / {size['final_total']['off']:,} |",
        f"| tool-result tokens after summarising (median of {tools['long_results']} long results) | "
        f"{_pct(ARTICLE_REDUCTION)} | {_pct(tools['median_reduction'])} |",
        f"| tool-result tokens, all long results together (values a later step needs kept) | "
        f"{_pct(ARTICLE_REDUCTION)} | {_pct(tools['total_reduction'])} "
        f"({tools['values_kept']} of {tools['values_needed']}) |",
        f"| the same, if only the values a later step needs were kept, written bare (the floor) | – | "
        f"median {_pct(tools['floor_median_reduction'])}, all {_pct(tools['floor_total_reduction'])} |",
        f"| tokens of a {session['messages']}-message session, before → after compression | "
        f"{ARTICLE_TOKENS[0]:,} → ~{ARTICLE_TOKENS[1]:,} | "
        f"{session['tokens_before']:,} → {session['tokens_after']:,} ({_pct(session['reduction'])}) |",
        f"| facts stated in that session, asked for at its end | – | {session['facts_answered']} of "
        f"{session['facts_asked']} answered |",
        "",
        f"### Store size over {on['months'][-1]['day']} simulated days",
        "",
        f"{_store_params_line(results)} "
        f"Forgetting ran daily (`memory.forgetting.run_daily`, clock: {on['clock']}); "
        f"{on['recalls']:,} recalls (one per visit) touched what they found — with the policy off, access "
        "changes nothing, so that run stores the same arrivals without recalling. Outcomes of storing: "
        + ", ".join(f"{k} {v:,}" for k, v in sorted(on["outcomes"].items()))
        + ".",
        "",
        "| day | on: valid | archived | superseded | deleted (cum.) | rows | growth | off: valid | superseded "
        "| rows | growth |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for a, b in zip(on["months"], off["months"], strict=True):
        lines.append(
            f"| {a['day']} | {a['valid']:,} | {a['archived']:,} | {a['superseded']:,} | {a['deleted']:,} | "
            f"{a['total']:,} | {_pct(a['growth_total'])} | {b['valid']:,} | {b['superseded']:,} | {b['total']:,} | "
            f"{_pct(b['growth_total'])} |"
        )
    lines += [
        "",
        "With a steady inflow the table grows linearly without forgetting, so its monthly growth falls "
        "below 20% by itself after about six months. What the policy changes: memories idle long enough are "
        "archived (no longer recalled, still stored) from about day 120, so the valid store stops growing, and "
        "deleted from about day 270 (confidence 0.7 stored, never touched), so the table itself grows more "
        "slowly at the end of the year.",
        "",
        "![Store size month by month, forgetting on and off](eval-store-size.png)",
        "",
        "### Tool-result tokens",
        "",
        f"Results longer than {tools['threshold_tokens']} tokens are compacted (`chat/tool_results.py`: the "
        "latest tracking event and a count, a shipment's fields that repeat its order's dropped, policy text cut "
        "to the passage asked about) and what is left is summarised by the cheap model "
        "(`WorkingMemory.append_tool_result`, which uses a summary only if it keeps every value a later step "
        f"needs); {tools['summarised']} of {tools['long_results']} were summarised. All long results together: "
        f"{_pct(tools['total_reduction'])}. Values a later step needs (`chat/tool_results.py`, `must_keep`) "
        f"still in what the model reads: {tools['values_kept']} of {tools['values_needed']}. The floor is "
        "those values alone, separated by semicolons, with no field names: about as far as a shortening that "
        f"keeps them (and which is which) can go.{_out_of_reach(tools)}",
        "",
        "| kind | results | median tokens raw | median tokens in working memory | median change | floor "
        "| values kept |",
        "|---|---|---|---|---|---|---|",
    ]
    for kind, row in tools["by_kind"].items():
        lines.append(
            f"| {kind} | {row['results']} | {row['median_raw_tokens']:,.0f} | {row['median_tokens']:,.0f} | "
            f"{_pct(row['median_reduction'])} | {_pct(row['median_floor_reduction'])} | "
            f"{row['values_kept']} of {row['values_needed']} |"
        )
    lines += [
        "",
        "Order lists, tracking histories and order details are the real tools' results on generated shop "
        "data; policy texts are generated payloads with whole articles (the real `search_policies` returns "
        "240-character snippets, below the threshold).",
        "",
        "![Tool-result tokens before and after summarising](eval-tool-results.png)",
        "",
        "### A long session",
        "",
        f"{session['messages']} messages ({session['tokens_before']:,} tokens) stored through `SessionStore`, "
        f"compressed after every message: {session['summaries']} summaries covering "
        f"{session['summarised_messages']} messages ({session['summaries_tokens_before']:,} → "
        f"{session['summaries_tokens_after']:,} tokens) plus {session['verbatim_messages']} recent messages "
        f"verbatim: {session['tokens_after']:,} tokens. Working memory as the agent builds it (system prompt "
        f"included): {session['working_memory_before']:,} tokens uncompressed, {session['working_memory_after']:,} "
        "compressed.",
        "",
        f"{session['facts_asked']} facts (`chat/evaluation/long_facts.py`: five about the customer, one order per "
        "item bought) are stated once each over the first three quarters of the session; at its end each is "
        f"asked for on its own with that compressed history: {session['facts_answered']} answered."
        + (f" Missed: {'; '.join(session['facts_missed'])}." if session["facts_missed"] else ""),
        "",
        "![A long session before and after compression](eval-session-compression.png)",
        "",
    ]
    return "\n".join(lines)


def _out_of_reach(tools: ToolResults) -> str:
    """A sentence when the floor itself is short of the article's reduction over all long results."""
    floor, article = tools["floor_total_reduction"], ARTICLE_REDUCTION
    if floor is None or floor <= article:
        return ""
    kind, row = max(tools["by_kind"].items(), key=_floor_of)
    return (
        f" Over all long results together the article's {_pct(article)} is out of reach of any shortening "
        f"that keeps those values: their floor is {_pct(floor)}, held back by the {kind}s (their values alone: "
        f"{_pct(row['median_floor_reduction'])} against the raw result, median)."
    )


def _floor_of(kind: tuple[str, KindFigures]) -> float:
    return kind[1]["median_floor_reduction"] or 0.0  # never None: a kind in by_kind has long results


def _store_params_line(results: Simulations) -> str:
    p = results.get("params", {}).get("store_size", {})
    if not p:
        return ""
    return (
        f"{p['customers']} customers, about {p['visits_per_day']:g} visits a day (lognormal activity, "
        f"sigma {p['activity_sigma']:g}: a few customers come back often, most rarely), about "
        f"{p['visits_per_day'] * p['memories_per_visit']:g} new memories a day, confidences 0.7–1.0; "
        f"{results['store_size']['pool_embedded']} sentences embedded for real, rows are them plus noise."
    )


def charts(results: Simulations, outdir: Path) -> list[Path]:
    """Draw the three figures as PNG files in ``outdir`` (matplotlib, Agg backend); return their paths."""
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib import pyplot as plt

    outdir = Path(outdir)
    outdir.mkdir(parents=True, exist_ok=True)
    size, tools, session = results["store_size"], results["tool_results"], results["session_compression"]
    paths = []

    figure, (rows_axis, growth_axis) = plt.subplots(1, 2, figsize=(11, 4))
    days = [m["day"] for m in size["on"]["months"]]
    rows_axis.plot(days, [m["total"] for m in size["off"]["months"]], "o-", label="rows, forgetting off")
    rows_axis.plot(days, [m["total"] for m in size["on"]["months"]], "o-", label="rows, forgetting on")
    rows_axis.plot(days, [m["valid"] for m in size["off"]["months"]], "--", label="valid, forgetting off")
    rows_axis.plot(days, [m["valid"] for m in size["on"]["months"]], "--", label="valid, forgetting on")
    rows_axis.set(xlabel="simulated day", ylabel="memories", title="Long-term memory store size")
    rows_axis.legend()
    growths = (
        ("off", [(m["day"], m["growth_total"]) for m in size["off"]["months"]], "rows", "o-"),
        ("on", [(m["day"], m["growth_total"]) for m in size["on"]["months"]], "rows", "o-"),
        ("on", [(m["day"], m["growth_valid"]) for m in size["on"]["months"]], "valid", "s--"),
    )
    for policy, growth, measure, style in growths:
        known = [(day, value) for day, value in growth if value is not None]
        growth_axis.plot(
            [day for day, _ in known],
            [value * 100 for _, value in known],
            style,
            label=f"{measure}, forgetting {policy}",
        )
    growth_axis.axhline(20, color="grey", linestyle=":", label="article: < 20% a month")
    growth_axis.set(xlabel="simulated day", ylabel="growth over the month (%)", title="Monthly growth of the store")
    growth_axis.legend()
    paths.append(_save(figure, outdir / "eval-store-size.png"))

    figure, axis = plt.subplots(figsize=(7, 4))
    kinds = list(tools["by_kind"])
    # Never None: a kind in by_kind has long results.
    raw = [tools["by_kind"][k]["median_raw_tokens"] or 0.0 for k in kinds]
    kept = [tools["by_kind"][k]["median_tokens"] or 0.0 for k in kinds]
    positions = np.arange(len(kinds))
    axis.bar(positions - 0.2, raw, 0.4, label="raw result")
    axis.bar(positions + 0.2, kept, 0.4, label="in working memory")
    axis.set_xticks(positions, kinds)
    axis.set(
        ylabel="tokens (median)",
        title=f"Tool results: median {_pct(tools['median_reduction'])} (article {_pct(ARTICLE_REDUCTION)})",
    )
    axis.legend()
    paths.append(_save(figure, outdir / "eval-tool-results.png"))

    figure, axis = plt.subplots(figsize=(6, 4))
    labels = ["article", "measured"]
    axis.bar([0 - 0.2, 1 - 0.2], [ARTICLE_TOKENS[0], session["tokens_before"]], 0.4, label="before")
    axis.bar([0 + 0.2, 1 + 0.2], [ARTICLE_TOKENS[1], session["tokens_after"]], 0.4, label="after")
    axis.set_xticks([0, 1], labels)
    axis.set(ylabel="tokens", title=f"A {session['messages']}-message session, compressed")
    axis.legend()
    paths.append(_save(figure, outdir / "eval-session-compression.png"))
    return paths


def _save(figure: Figure, path: Path) -> Path:
    from matplotlib import pyplot as plt

    figure.tight_layout()
    figure.savefig(path, dpi=110)
    plt.close(figure)
    return path
