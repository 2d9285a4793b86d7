"""The staff dashboard's figures: what the memory system did, per UTC day, over the last 7, 30 or 90 days. Each
chart is one aggregate statement over the product's tables and the records kept for it, so the page's
statements do not grow with rows or days. See docs/dashboard.md.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, time, timedelta
from decimal import Decimal
from typing import TYPE_CHECKING, Any, TypedDict, Unpack

from django.db import connection
from django.db.models import Model
from django.utils.translation import gettext_lazy as _

from agentsite import clock
from agentsite.models import BreakerOpening, ModelCall
from chat.models import Commitment, CommitmentEvent, ConversationRating, Takeover, TurnStat
from memory.models import ConsolidationRun, MemoryConflict, MemoryEvent, MemoryType, Source, StoreDay

if TYPE_CHECKING:
    from django_stubs_ext import StrOrPromise  # a title or name translated when the page shows it

PERIODS = (7, 30, 90)
# The bound the design sets on the long-term store's monthly growth once forgetting runs, in percent.
ARTICLE_MONTHLY_GROWTH = 20.0
LANGUAGES = {"zh": _("Chinese"), "en": _("English")}


@dataclass
class Chart:
    """One chart and the numbers under it: a value per label (day or week) for each series."""

    key: str
    title: StrOrPromise
    labels: list[str]
    series: dict[StrOrPromise, list[float | None]]
    kind: str = "line"  # line | bar | stacked
    unit: StrOrPromise = ""
    reference: tuple[StrOrPromise, float] | None = None  # a horizontal line to read the series against
    note: StrOrPromise = ""

    @property
    def has_data(self) -> bool:
        """Whether the period has numbers to draw (a cost of 0 is a number; a day without replies is not)."""
        return any(value is not None for values in self.series.values() for value in values)

    def rows(self) -> list[tuple[str, list[float | None]]]:
        """The table under the chart: one row per label."""
        columns = list(self.series.values())
        return [(label, [column[i] for column in columns]) for i, label in enumerate(self.labels)]


@dataclass
class Dashboard:
    days: int
    first: date
    last: date
    charts: list[Chart] = field(default_factory=list)
    now: dict[str, float | int | None] = field(default_factory=dict)  # the queues as they are now


def build(days: int, today: date | None = None) -> Dashboard:
    """Every chart for the ``days`` days ending ``today``."""
    if days not in PERIODS:
        raise ValueError(f"days must be one of {PERIODS}")
    last = today or clock.now().date()
    period = _Period(last - timedelta(days=days - 1), last)
    board = Dashboard(days, period.first, period.last)
    board.charts = [
        _conversations(period),
        _outcomes(period),
        _latency(period),
        _takeovers(period),
        _store(period),
        _growth(period),
        _deletions(period),
        _consolidation(period),
        *_conflicts(period),
        *_recall(period),
        _csat(period),
        _promises(period),
        _model_calls(period),
        *_model_usage(period),
    ]
    board.now = _queues()
    return board


@dataclass(frozen=True)
class _Period:
    first: date
    last: date

    @property
    def start(self) -> datetime:
        return datetime.combine(self.first, time.min, tzinfo=UTC)

    @property
    def end(self) -> datetime:
        return datetime.combine(self.last + timedelta(days=1), time.min, tzinfo=UTC)

    @property
    def dates(self) -> list[date]:
        return [self.first + timedelta(days=n) for n in range((self.last - self.first).days + 1)]

    @property
    def labels(self) -> list[str]:
        return [day.isoformat() for day in self.dates]

    @property
    def weeks(self) -> list[date]:
        """The Mondays of the weeks the period touches."""
        monday = self.first - timedelta(days=self.first.weekday())
        return [monday + timedelta(weeks=n) for n in range((self.last - monday).days // 7 + 1)]

    def params(self, **more: date) -> dict[str, date]:
        return {"start": self.start, "end": self.end, **more}


def _rows(sql: str, params: Mapping[str, date]) -> list[tuple[Any, ...]]:
    """The statement's rows, as the database returns them (its parameters are days and times)."""
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        rows: list[tuple[Any, ...]] = cursor.fetchall()
        return rows


def _by_day(
    period: _Period, rows: Sequence[tuple[Any, ...]], columns: int, *, missing: float | None = 0
) -> list[list[float | None]]:
    """Rows of (day, value, value…) as one list per column over the period's days: a day without a row
    is ``missing`` (0 for counts; ``None``, a gap, for rates and times, which a day without events lacks)."""
    found = {row[0]: row[1:] for row in rows}
    empty = (missing,) * columns
    return [[_number(found.get(day, empty)[i]) for day in period.dates] for i in range(columns)]


def _number(value: Decimal | float | None) -> float | None:
    return None if value is None else round(float(value), 2)


def _table(model: type[Model]) -> str:
    return model._meta.db_table


class _Drawing(TypedDict, total=False):
    """How a chart is drawn (``Chart``'s fields after its numbers)."""

    kind: str
    unit: StrOrPromise
    reference: tuple[StrOrPromise, float] | None
    note: StrOrPromise


def _daily(
    period: _Period,
    sql: str,
    key: str,
    title: StrOrPromise,
    names: list[StrOrPromise],
    *,
    missing: float | None = 0,
    **drawing: Unpack[_Drawing],
) -> Chart:
    """A chart of one statement returning (day, one value per name) over the period."""
    values = _by_day(period, _rows(sql, period.params()), len(names), missing=missing)
    return Chart(key, title, period.labels, dict(zip(names, values, strict=True)), **drawing)


def _conversations(period: _Period) -> Chart:
    rows = _rows(
        f"""SELECT (created_at AT TIME ZONE 'UTC')::date AS day,
                   count(DISTINCT conversation_id) FILTER (WHERE language = 'zh'),
                   count(DISTINCT conversation_id) FILTER (WHERE language = 'en'),
                   count(DISTINCT conversation_id) FILTER (WHERE language NOT IN ('zh', 'en'))
            FROM {_table(TurnStat)} WHERE created_at >= %(start)s AND created_at < %(end)s
            GROUP BY 1""",  # noqa: S608 - constant SQL
        period.params(),
    )
    zh, en, unknown = _by_day(period, rows, 3)
    series: dict[StrOrPromise, list[float | None]] = {LANGUAGES["zh"]: zh, LANGUAGES["en"]: en}
    if any(unknown):
        series[_("Not known (the turn failed first)")] = unknown
    return Chart("conversations", _("Conversations per day, by language"), period.labels, series, kind="stacked")


def _outcomes(period: _Period) -> Chart:
    sql = f"""SELECT day, 100.0 * resolved / conversations, 100.0 * escalated / conversations FROM (
                SELECT (created_at AT TIME ZONE 'UTC')::date AS day, count(DISTINCT conversation_id) AS conversations,
                       count(DISTINCT conversation_id) FILTER (WHERE outcome = 'resolved') AS resolved,
                       count(DISTINCT conversation_id) FILTER (WHERE outcome = 'escalated') AS escalated
                FROM {_table(TurnStat)} WHERE created_at >= %(start)s AND created_at < %(end)s GROUP BY 1
            ) days"""  # noqa: S608 - constant SQL
    return _daily(
        period,
        sql,
        "outcomes",
        _("Resolution and handoff rate"),
        [_("Resolved"), _("Handed to staff")],
        missing=None,
        unit="%",
        note=_("Share of the day's conversations with a turn that resolved it, or that asked for a person."),
    )


def _latency(period: _Period) -> Chart:
    percentiles = ", ".join(
        f"percentile_cont({share}) WITHIN GROUP (ORDER BY latency_ms) FILTER (WHERE language = '{language}')"
        for language in ("zh", "en")
        for share in (0.5, 0.95)
    )
    sql = f"""SELECT (created_at AT TIME ZONE 'UTC')::date, {percentiles}
            FROM {_table(TurnStat)} WHERE created_at >= %(start)s AND created_at < %(end)s
              AND outcome IN ('answered', 'resolved')
            GROUP BY 1"""  # noqa: S608 - constant SQL
    names: list[StrOrPromise] = [_("Chinese p50"), _("Chinese p95"), _("English p50"), _("English p95")]
    return _daily(
        period,
        sql,
        "latency",
        _("Reply latency, by language"),
        names,
        missing=None,
        unit="ms",
        note=_("From the customer's message to the whole reply, answered turns only."),
    )


def _takeovers(period: _Period) -> Chart:
    sql = f"""SELECT (created_at AT TIME ZONE 'UTC')::date,
                   percentile_cont(0.5) WITHIN GROUP (ORDER BY waited_seconds) / 60.0, max(waited_seconds) / 60.0
            FROM {_table(Takeover)} WHERE created_at >= %(start)s AND created_at < %(end)s GROUP BY 1"""  # noqa: S608
    return _daily(
        period,
        sql,
        "takeovers",
        _("Time to takeover"),
        [_("Median wait"), _("Longest wait")],
        missing=None,
        unit=_("minutes"),
        note=_("From the handoff to a member of staff taking the conversation."),
    )


def _store(period: _Period) -> Chart:
    split = [("type", kind) for kind in MemoryType] + [("source", source) for source in Source]
    filters = ", ".join(f"sum(valid) FILTER (WHERE {column} = '{value.value}')" for column, value in split)
    rows = _rows(
        f"""SELECT day, sum(valid) FILTER (WHERE type = '' AND source = ''),
                   sum(archived) FILTER (WHERE type = '' AND source = ''), {filters}
            FROM {_table(StoreDay)} WHERE day >= %(first)s AND day <= %(last)s GROUP BY day""",  # noqa: S608
        {"first": period.first, "last": period.last},
    )
    found = {row[0]: row[1:] for row in rows}
    names: list[StrOrPromise] = [_("Valid"), _("Archived"), *_SPLIT_NAMES]
    columns = [[_number(found[day][i]) if day in found else None for day in period.dates] for i in range(len(names))]
    return Chart(
        "store",
        _("Long-term memories at the end of each day"),
        period.labels,
        dict(zip(names, columns, strict=True)),
        note=_("Counted each night; a day not counted yet is empty. Type and source count valid memories."),
    )


# The store chart's series after valid and archived: memory.models.MemoryType, then Source, in their order.
_SPLIT_NAMES = [
    _("Facts"),
    _("Preferences"),
    _("Experiences"),
    _("Summaries"),
    _("From the shop's records"),
    _("Said by the customer"),
    _("Inferred by the agent"),
]


def _growth(period: _Period) -> Chart:
    """Valid memories against 30 days before, per day, beside the monthly bound."""
    rows = _rows(
        f"""SELECT now_.day, 100.0 * (now_.valid - before.valid) / nullif(before.valid, 0)
            FROM {_table(StoreDay)} now_
            JOIN {_table(StoreDay)} before ON before.day = now_.day - 30 AND before.type = '' AND before.source = ''
            WHERE now_.type = '' AND now_.source = '' AND now_.day >= %(first)s AND now_.day <= %(last)s""",  # noqa: S608
        {"first": period.first, "last": period.last},
    )
    found = dict(rows)
    return Chart(
        "growth",
        _("Monthly growth of the store"),
        period.labels,
        {_("Valid memories against 30 days before"): [_number(found.get(day)) for day in period.dates]},
        unit="%",
        reference=(_("The article's bound (20%)"), ARTICLE_MONTHLY_GROWTH),
        note=_("Empty until the store has been counted for 30 days."),
    )


def _deletions(period: _Period) -> Chart:
    sql = f"""SELECT (created_at AT TIME ZONE 'UTC')::date,
                   count(*) FILTER (WHERE actor = 'forgetting'), count(*) FILTER (WHERE actor <> 'forgetting')
            FROM {_table(MemoryEvent)} WHERE action = 'deleted' AND created_at >= %(start)s AND created_at < %(end)s
            GROUP BY 1"""  # noqa: S608 - constant SQL
    names: list[StrOrPromise] = [_("Forgotten by the policy"), _("Deleted by the customer or staff")]
    return _daily(period, sql, "deletions", _("Memories deleted per day"), names, kind="stacked")


def _consolidation(period: _Period) -> Chart:
    sql = f"""SELECT (created_at AT TIME ZONE 'UTC')::date, sum(created), sum(merged), sum(superseded),
                   sum(conflicts), sum(skipped), sum(rejected)
            FROM {_table(ConsolidationRun)} WHERE created_at >= %(start)s AND created_at < %(end)s GROUP BY 1"""  # noqa: S608
    names: list[StrOrPromise] = [
        _("Created"),
        _("Merged"),
        _("Superseded"),
        _("Conflict opened"),
        _("Skipped"),
        _("Rejected"),
    ]
    return _daily(period, sql, "consolidation", _("Consolidation outcomes per day"), names, kind="stacked")


def _conflicts(period: _Period) -> list[Chart]:
    rows = _rows(
        f"""SELECT day, sum(opened), sum(resolved), percentile_cont(0.5) WITHIN GROUP (ORDER BY age) FROM (
                SELECT (created_at AT TIME ZONE 'UTC')::date AS day, 1 AS opened, 0 AS resolved, NULL::float AS age
                FROM {_table(MemoryConflict)} WHERE created_at >= %(start)s AND created_at < %(end)s
                UNION ALL
                SELECT (resolved_at AT TIME ZONE 'UTC')::date, 0, 1, extract(epoch FROM resolved_at - created_at) / 3600
                FROM {_table(MemoryConflict)} WHERE resolved_at >= %(start)s AND resolved_at < %(end)s
            ) happened GROUP BY day""",  # noqa: S608 - constant SQL
        period.params(),
    )
    opened, resolved = _by_day(period, rows, 3)[:2]
    age = _by_day(period, rows, 3, missing=None)[2]
    return [
        Chart(
            "conflicts",
            _("Memory conflicts"),
            period.labels,
            {_("Opened"): opened, _("Resolved"): resolved},
            kind="bar",
        ),
        Chart(
            "conflict-age",
            _("Age of conflicts when resolved"),
            period.labels,
            {_("Median age"): age},
            kind="bar",
            unit=_("hours"),
            note=_("Superseded values are resolved at once; a conflict waiting for staff ages until reviewed."),
        ),
    ]


def _recall(period: _Period) -> list[Chart]:
    rows = _rows(
        f"""SELECT (created_at AT TIME ZONE 'UTC')::date, avg(vector_queries),
                   100.0 * count(*) FILTER (WHERE memories_used > 0) / count(*),
                   count(*) FILTER (WHERE recall_mode = 'deferred' AND vector_queries = 0)
            FROM {_table(TurnStat)} WHERE created_at >= %(start)s AND created_at < %(end)s
              AND outcome IN ('answered', 'resolved', 'escalated')
            GROUP BY 1""",  # noqa: S608 - constant SQL
        period.params(),
    )
    per_turn, used = _by_day(period, rows, 3, missing=None)[:2]
    saved = _by_day(period, rows, 3)[2]
    return [
        Chart(
            "memory-used",
            _("Turns that used a memory"),
            period.labels,
            {_("Turns that used a memory"): used},
            unit="%",
            note=_("A memory recalled into the turn's prompt (the inspector's list)."),
        ),
        Chart(
            "vector-queries",
            _("Vector queries"),
            period.labels,
            {_("Per turn"): per_turn, _("Searches deferred recall saved"): saved},
            note=_("A turn in deferred mode that answered without searching saved the search active recall makes."),
        ),
    ]


def _csat(period: _Period) -> Chart:
    weeks = period.weeks
    start = datetime.combine(weeks[0], time.min, tzinfo=UTC)
    rows = _rows(
        f"""SELECT date_trunc('week', r.created_at AT TIME ZONE 'UTC')::date, avg(r.score),
                   avg(r.score) FILTER (WHERE used.conversation_id IS NOT NULL),
                   avg(r.score) FILTER (WHERE used.conversation_id IS NULL), count(*)
            FROM {_table(ConversationRating)} r
            LEFT JOIN (SELECT DISTINCT conversation_id FROM {_table(TurnStat)}
                       WHERE memories_used > 0 AND created_at >= %(start)s - interval '30 days') used
              ON used.conversation_id = r.conversation_id
            WHERE r.created_at >= %(start)s AND r.created_at < %(end)s GROUP BY 1""",  # noqa: S608 - constant SQL
        {"start": start, "end": period.end},
    )
    found = {row[0]: row[1:] for row in rows}
    columns = [[_number(found[week][i]) if week in found else None for week in weeks] for i in range(4)]
    return Chart(
        "csat",
        _("Customer satisfaction by week (1–5)"),
        [week.isoformat() for week in weeks],
        {
            _("All rated conversations"): columns[0],
            _("Memory was used"): columns[1],
            _("No memory used"): columns[2],
        },
        kind="bar",
        note=_("Weeks start on Monday; a conversation used memory if any of its turns recalled one."),
    )


def _promises(period: _Period) -> Chart:
    sql = f"""SELECT day, sum(made), sum(kept), sum(late), sum(overdue) FROM (
                SELECT (created_at AT TIME ZONE 'UTC')::date AS day, 1 AS made, 0 AS kept, 0 AS late, 0 AS overdue
                FROM {_table(Commitment)} WHERE created_at >= %(start)s AND created_at < %(end)s
                UNION ALL
                SELECT (closed_at AT TIME ZONE 'UTC')::date, 0, (closed_at <= due_at)::int, (closed_at > due_at)::int, 0
                FROM {_table(Commitment)}
                WHERE status = 'done' AND due_at IS NOT NULL AND closed_at >= %(start)s AND closed_at < %(end)s
                UNION ALL
                SELECT (at AT TIME ZONE 'UTC')::date, 0, 0, 0, 1
                FROM {_table(CommitmentEvent)} WHERE kind = 'overdue' AND at >= %(start)s AND at < %(end)s
            ) happened GROUP BY day"""  # noqa: S608 - constant SQL
    return _daily(
        period,
        sql,
        "promises",
        _("Promises"),
        [_("Made"), _("Kept on time"), _("Kept late"), _("Became overdue")],
        kind="bar",
        note=_("On time: done by the time it was due (an agreed extension moves it)."),
    )


def _model_calls(period: _Period) -> Chart:
    rows = _rows(
        f"""SELECT (created_at AT TIME ZONE 'UTC')::date, model, count(*), count(*) FILTER (WHERE NOT ok)
            FROM {_table(ModelCall)} WHERE created_at >= %(start)s AND created_at < %(end)s GROUP BY 1, 2
            UNION ALL
            SELECT (created_at AT TIME ZONE 'UTC')::date, '', 0, count(*)
            FROM {_table(BreakerOpening)} WHERE created_at >= %(start)s AND created_at < %(end)s GROUP BY 1""",  # noqa: S608
        period.params(),
    )
    index = {day: n for n, day in enumerate(period.dates)}
    series: dict[str, list[float | None]] = defaultdict(lambda: [0] * len(index))
    for day, model, calls, failed in rows:
        if model:
            series[f"{model}: " + str(_("calls"))][index[day]] = calls
            series[f"{model}: " + str(_("errors"))][index[day]] = failed
        else:
            series[str(_("Breaker openings"))][index[day]] = failed
    series.setdefault(str(_("Breaker openings")), [0] * len(index))
    return Chart(
        "model-calls", _("Model calls, errors and breaker openings"), period.labels, dict(sorted(series.items()))
    )


def _model_usage(period: _Period) -> list[Chart]:
    rows = _rows(
        f"""SELECT (created_at AT TIME ZONE 'UTC')::date, model, sum(prompt_tokens + completion_tokens) / 1000.0,
                   sum(cost_usd)
            FROM {_table(ModelCall)} WHERE created_at >= %(start)s AND created_at < %(end)s GROUP BY 1, 2""",  # noqa: S608
        period.params(),
    )
    index = {day: n for n, day in enumerate(period.dates)}
    tokens: dict[str, list[float | None]] = defaultdict(lambda: [0] * len(index))
    cost: dict[str, list[float | None]] = defaultdict(lambda: [0] * len(index))
    for day, model, thousands, dollars in rows:
        tokens[model][index[day]] = _number(thousands)
        cost[model][index[day]] = float(dollars or 0)
    return [
        Chart("model-tokens", _("Model tokens"), period.labels, dict(sorted(tokens.items())), unit=_("thousands")),
        Chart(
            "model-cost",
            _("Model cost"),
            period.labels,
            dict(sorted(cost.items())),
            unit="USD",
            note=_("At the prices configured in LLM_PRICES; the offline model costs nothing."),
        ),
    ]


def _queues() -> dict[str, float | int | None]:
    """The open conflict queue and overdue promises now (one statement)."""
    ((conflicts, oldest_hours, overdue, waiting),) = _rows(
        f"""SELECT (SELECT count(*) FROM {_table(MemoryConflict)} WHERE status = 'open'),
                   (SELECT extract(epoch FROM %(now)s - min(created_at)) / 3600 FROM {_table(MemoryConflict)}
                    WHERE status = 'open'),
                   (SELECT count(*) FROM {_table(Commitment)} WHERE status = 'overdue'),
                   (SELECT count(*) FROM chat_handoff WHERE closed_at IS NULL AND taken_by_id IS NULL)""",  # noqa: S608
        {"now": clock.now()},
    )
    return {
        "open_conflicts": conflicts,
        "oldest_conflict_hours": None if oldest_hours is None else round(float(oldest_hours)),
        "overdue_promises": overdue,
        "waiting_handoffs": waiting,
    }
