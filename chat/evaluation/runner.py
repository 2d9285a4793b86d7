"""Play scenario files through the real agent turn (``chat.agent.run_turn``) in one recall mode and record
what happened: every customer becomes a real one with real orders, every session a real conversation,
consolidated between sessions by a Celery worker (memory on only) while the shared clock moves to each
day on which some session starts; the customers are deleted again afterwards. The timeline and every
record: docs/eval.md.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from datetime import timedelta
from decimal import Decimal
from typing import Any
from uuid import UUID

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import User
from django.db import connection
from django.db.models import Max, Q
from django.test.utils import override_settings

from agentsite import clock
from agentsite.models import ModelCall
from chat.agent import run_turn
from chat.evaluation.language_mix import foreign_runs
from chat.evaluation.scenarios import Check, Customer, ScenarioFile
from chat.models import CustomerProfile, Order, OrderItem, Shipment, TrackingEvent
from memory import session as short_term
from memory.models import ConversationMessage, LongTermMemory, MemoryConflict
from memory.recall import vector_queries
from memory.tokens import count_tokens

MODES = ("off", "active", "deferred", "tool")
USERNAME_PREFIX = "eval-"
ACCOUNT_PHONE = "13900000000"  # on every evaluation customer's account, as on most shop customers'

# What "the agent asked the customer for a value" looks like in a reply, per key (docs/eval.md).
# The phrases are the offline model's requests and its "not sure" answers, plus generic wordings
# that a hosted model would use.
ASKS: dict[str, tuple[str, ...]] = {
    "order_number": (
        "请提供您的订单号",
        "请提供订单号，我来帮您查询",
        "请提供您要退款的订单号",
        "我不确定您上次询问的是哪个订单",
        "give me your order number",
        "give me the order number",
        "what is your order number",
        "what's your order number",
        "which order you asked about last time",
    ),
    "shipping_address": (
        "请提供新的收货地址",
        "我不确定您的收货地址",
        "shipping address (number",
        "not sure about your shipping address",
    ),
    "notification_preference": (
        "您希望开启还是关闭",
        "我不确定您的通知设置",
        "muted or turned on?",
        "not sure about your notification setting",
    ),
    "contact_channel": (
        "您希望我们通过哪种方式联系您",
        "我不确定您希望的联系方式",
        "how would you like us to contact you",
        "not sure about how you'd like to be contacted",
    ),
    "birthday": ("我不确定您的生日", "not sure about your birthday", "what is your birthday", "when is your birthday"),
    "preferred_carrier": ("我不确定您偏好的快递公司", "not sure about your preferred carrier"),
    "phone_number": ("我不确定您的电话号码", "not sure about your phone number"),
    "email": ("我不确定您的邮箱", "not sure about your email"),
    "name": ("我不确定您的名字", "not sure about your name"),
}


# Phases of ``TurnResult.timings`` that are not the memory layer (chat/agent.py ``_timed_turn``).
NOT_MEMORY_LAYER = frozenset({"model", "tools"})


def asked_for(reply: str) -> list[str]:
    """The keys whose value ``reply`` asks the customer for (or says it does not know)."""
    text = reply.lower()
    return sorted(key for key, phrases in ASKS.items() if any(p.lower() in text for p in phrases))


@dataclass
class CheckResult:
    kind: str
    passed: bool
    detail: str


@dataclass
class TurnRecord:
    file: str
    customer: str
    language: str
    session: int
    turn: int
    say: str
    reply: str
    question: str
    needs_memory: bool
    checks: list[CheckResult]
    asked_for: list[str]
    repeated: list[str]  # asked for a value the customer gave in an EARLIER session
    vector_queries: int
    recalled: int
    wall_ms: float
    model_ms: float
    model_calls: int
    tool_results: int
    working_tokens: int
    history_tokens: int  # of working_tokens, the conversation's (no system prompt, no memory block)
    # Words of the other language in the reply that are not data (chat.evaluation.language_mix).
    other_language: list[str] = field(default_factory=list)
    phases: dict[str, float] = field(default_factory=dict)  # wall ms by phase (agentsite.timings, TurnResult)
    cpu_phases: dict[str, float] = field(default_factory=dict)  # this thread's CPU ms by phase

    @property
    def memory_ms(self) -> float:
        """Wall time of the memory layer in this turn: every phase but the model's and the tools'."""
        return sum(ms for name, ms in self.phases.items() if name not in NOT_MEMORY_LAYER)

    @property
    def memory_cpu_ms(self) -> float:
        """This thread's CPU time in the memory layer (PostgreSQL's and Redis's own CPU not included)."""
        return sum(ms for name, ms in self.cpu_phases.items() if name not in NOT_MEMORY_LAYER)

    @property
    def passed(self) -> bool | None:
        return all(c.passed for c in self.checks) if self.checks else None


@dataclass
class SessionRecord:
    file: str
    customer: str
    session: int
    turns: int
    messages: int
    history_tokens: int  # every stored message of the session, uncompressed
    working_tokens_last: int  # what the last turn sent to the model
    history_tokens_last: int  # of that, the conversation's (no system prompt, no memory block)
    facts_asked: int  # questions about facts planted earlier in this session (long sessions, docs/eval.md)
    facts_answered: int
    vector_queries: int
    after: list[CheckResult]
    consolidation_ms: dict[str, float] = field(default_factory=dict)  # the worker's run, by phase


@dataclass
class CustomerRecord:
    file: str
    customer: str
    facts: int  # distinct planted facts (a key; each order number on its own)
    stored: int  # of those, how many have at least one valid memory
    memories: int  # valid memories matching a planted fact
    valid_memories: int  # everything valid in the customer's store
    conflicts: int
    tool_raw_tokens: int
    tool_kept_tokens: int
    tool_summarised: int
    tool_results: int
    tool_long: int = 0  # results longer than the summary threshold (the article's "long tool results")
    tool_long_raw_tokens: int = 0
    tool_long_kept_tokens: int = 0


@dataclass
class Run:
    mode: str
    turns: list[TurnRecord] = field(default_factory=list)
    sessions: list[SessionRecord] = field(default_factory=list)
    customers: list[CustomerRecord] = field(default_factory=list)
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float = 0.0
    model_calls: int = 0
    seconds: float = 0.0
    threads: int = 1  # customers played side by side (their turns' wall times include each other)

    def to_json(self) -> dict[str, Any]:
        """The run as eval.json keeps it (``asdict``, with each turn's verdict and memory-layer time)."""
        data = asdict(self)
        for turn, raw in zip(self.turns, data["turns"], strict=True):
            raw["passed"] = turn.passed
            raw["memory_ms"] = round(turn.memory_ms, 3)
        return data


# The consolidation task's report as its JSON result (``memory.tasks.consolidate_conversation``).
Consolidated = dict[str, Any]


def consolidate_on_worker(conversation_id: str, timeout: float = 300) -> Callable[[], Consolidated]:
    """Queue the final consolidation of one conversation on a Celery worker; return a function awaiting it."""
    from memory.tasks import consolidate_conversation

    queued = consolidate_conversation.delay(conversation_id, final=True)
    return lambda: queued.get(timeout=timeout) or {}


def delete_customers(prefix: str = USERNAME_PREFIX) -> int:
    """Remove the evaluation's customers (and by cascade their orders, conversations and memories)."""
    deleted, _ = get_user_model().objects.filter(username__startswith=prefix).delete()
    return deleted


def create_customer(customer: Customer, mode: str) -> User:
    """A shop customer with the scenario's orders, shipments and tracking events, dated from now."""
    now = clock.now()
    user = get_user_model().objects.create_user(username=f"{USERNAME_PREFIX}{mode}-{customer.id}"[:150])
    CustomerProfile.objects.create(
        user=user,
        display_name=customer.name,
        language="zh-hans" if customer.language == "zh" else "en",
        phone=ACCOUNT_PHONE,  # the shop calls or texts only a customer with a number on the account
    )
    for spec in customer.orders:
        order = Order.objects.create(
            customer=user,
            number=spec.number,
            status=spec.status,
            placed_at=now - timedelta(days=spec.days_ago),
            total=Decimal(spec.total),
            currency="CNY" if customer.language == "zh" else "USD",
        )
        for name, quantity, price in spec.items:
            OrderItem.objects.create(order=order, name=name, quantity=quantity, unit_price=Decimal(price))
        if spec.carrier:
            shipment = Shipment.objects.create(
                order=order,
                carrier=spec.carrier,
                tracking_number=spec.tracking or f"T{spec.number[-4:]}",
                status=spec.status,
                eta=(now + timedelta(days=2)).date(),
            )
            TrackingEvent.objects.bulk_create(
                TrackingEvent(shipment=shipment, time=now - timedelta(days=d), location=loc, description=desc)
                for d, loc, desc in spec.events
            )
    return user


def shop_data(customer: Customer) -> list[str]:
    """The values of the customer's shop rows, which a reply may quote in any language."""
    data = [customer.name]
    for order in customer.orders:
        data += [order.number, order.carrier, order.tracking, *(name for name, _, _ in order.items)]
        data += [text for _, location, description in order.events for text in (location, description)]
    return data


def _turn_checks(checks: tuple[Check, ...], reply: str, vector_count: int) -> list[CheckResult]:
    results = []
    for check in checks:
        if check.kind == "reply_contains":
            missing = [x for x in check.arg if x.lower() not in reply.lower()]
            results.append(CheckResult(check.kind, not missing, f"missing {missing}" if missing else ""))
        elif check.kind == "reply_contains_any":
            ok = any(x.lower() in reply.lower() for x in check.arg)
            results.append(CheckResult(check.kind, ok, "" if ok else f"none of {list(check.arg)}"))
        elif check.kind == "reply_lacks":
            found = [x for x in check.arg if x.lower() in reply.lower()]
            results.append(CheckResult(check.kind, not found, f"contains {found}" if found else ""))
        elif check.kind == "max_vector_queries":
            ok = vector_count <= check.arg
            results.append(CheckResult(check.kind, ok, f"{vector_count} vector queries (max {check.arg})"))
    return results


def _session_checks(checks: tuple[Check, ...], user: User, vector_count: int) -> list[CheckResult]:
    valid = LongTermMemory.objects.valid().filter(customer=user)
    results = []
    for check in checks:
        if check.kind in {"memory", "no_memory"}:
            key, value = check.arg
            exists = valid.filter(key=key, value__iexact=value).exists()
            ok = exists if check.kind == "memory" else not exists
            results.append(CheckResult(check.kind, ok, f"{key}={value} {'found' if exists else 'not found'}"))
        elif check.kind == "memory_count":
            key, value, most = check.arg
            rows = valid.filter(key=key, **({"value__iexact": value} if value else {})).count()
            results.append(CheckResult(check.kind, rows <= most, f"{rows} valid memories with key {key} (max {most})"))
        elif check.kind == "conflict":
            n = MemoryConflict.objects.filter(customer=user, key=check.arg).count()
            results.append(CheckResult(check.kind, n > 0, f"{n} conflicts recorded for {check.arg}"))
        elif check.kind == "max_vector_queries":
            ok = vector_count <= check.arg
            results.append(
                CheckResult(check.kind, ok, f"{vector_count} vector queries in the session (max {check.arg})")
            )
    return results


def _chat_calls(conversation: UUID | str, after_id: int) -> int:
    """Chat-model calls of this conversation since ``after_id`` (summaries of tool results carry no conversation)."""
    return ModelCall.objects.filter(
        id__gt=after_id, conversation_id=conversation, purpose=ModelCall.Purpose.CHAT
    ).count()


def _last_model_call() -> int:
    return ModelCall.objects.aggregate(last=Max("id"))["last"] or 0


def _customer_record(file: str, customer: Customer, user: User, planted: dict[tuple[str, str], str]) -> CustomerRecord:
    valid = LongTermMemory.objects.valid().filter(customer=user)
    stored = matching = 0
    for key, value in planted:
        rows = valid.filter(key=key, **({"value__iexact": value} if key == "order_number" else {})).count()
        matching += rows
        stored += rows > 0
    raw_tokens = kept_tokens = summarised = results = 0
    long = [0, 0, 0]  # results, raw tokens, kept tokens
    for content, metadata in ConversationMessage.objects.filter(
        conversation__customer=user, role="tool_result"
    ).values_list("content", "metadata"):
        raw = (metadata or {}).get("raw") or content
        results += 1
        if raw != content:
            summarised += 1
            raw_tokens += count_tokens(raw)
            kept_tokens += count_tokens(content)
        if (raw_count := count_tokens(raw)) > settings.MEMORY_TOOL_RESULT_SUMMARY_TOKENS:
            long = [long[0] + 1, long[1] + raw_count, long[2] + count_tokens(content)]
    return CustomerRecord(
        file=file,
        customer=customer.id,
        facts=len(planted),
        stored=stored,
        memories=matching,
        valid_memories=valid.count(),
        conflicts=MemoryConflict.objects.filter(customer=user).count(),
        tool_raw_tokens=raw_tokens,
        tool_kept_tokens=kept_tokens,
        tool_summarised=summarised,
        tool_results=results,
        tool_long=long[0],
        tool_long_raw_tokens=long[1],
        tool_long_kept_tokens=long[2],
    )


def stratified_sample(customers: tuple[Customer, ...], every: int) -> tuple[Customer, ...]:
    """Every ``every``-th customer of each stratum (language and tags), in file order; a fixed sample.

    Strata smaller than ``every`` still give their first customer, so a hand-written customer of a
    kind of its own is always in.
    """
    if every <= 1:
        return customers
    seen: dict[tuple[str, tuple[str, ...]], int] = {}
    chosen = []
    for customer in customers:
        stratum = (customer.language, tuple(sorted(customer.tags)))
        position = seen.get(stratum, 0)
        seen[stratum] = position + 1
        if position % every == 0:
            chosen.append(customer)
    return tuple(chosen)


def _nothing() -> Consolidated:
    return {}


@dataclass
class _Player:
    """One customer being played: who, and what they have said so far."""

    customer: Customer
    user: User
    planted: dict[tuple[str, str], str] = field(default_factory=dict)  # (key, order number or "") -> session
    given_before: set[str] = field(default_factory=set)  # keys the customer gave in an earlier session


def cohorts(customers: tuple[Customer, ...]) -> list[list[Customer]]:
    """Customers whose sessions are the same number of days apart, in file order: their sessions share days."""
    groups: dict[tuple[float, ...], list[Customer]] = {}
    for customer in customers:
        groups.setdefault(tuple(s.days_after for s in customer.sessions), []).append(customer)
    return list(groups.values())


def _play_session(player: _Player, s: int, file: str, progress: Callable[[int], None]) -> tuple[str, list[TurnRecord]]:
    """Play session ``s`` of one customer, turn by turn, and end it; return the conversation and its turns.

    Safe to call for several customers at once from threads: every per-turn figure is this thread's
    (the timings of ``TurnResult``, ``vector_queries.in_this_thread``, model calls of this conversation).
    """
    store = short_term.store()
    customer, session = player.customer, player.customer.sessions[s]
    conversation = store.start(player.user.pk).id
    given_now: set[str] = set()
    records: list[TurnRecord] = []
    data, said = shop_data(customer), [turn.say for turn in session.turns]  # what the customer typed is data too
    for t, turn in enumerate(session.turns):
        frames: list[dict[str, Any]] = []  # what the turn sends the browser (JSON)
        before_vectors, before_call = vector_queries.in_this_thread, _last_model_call()
        before_seq = store.load(conversation, recent=1).last_seq
        started = time.perf_counter()
        result = run_turn(player.user.pk, conversation, turn.say, emit=frames.append)
        wall_ms = (time.perf_counter() - started) * 1000
        vectors = vector_queries.in_this_thread - before_vectors
        budget: dict[str, int] = next((f["working"] for f in frames if f.get("type") == "memory"), {})
        asked = asked_for(result.reply)
        tool_results = ConversationMessage.objects.filter(
            conversation_id=conversation, seq__gt=before_seq, role="tool_result"
        ).count()
        records.append(
            TurnRecord(
                file=file,
                customer=customer.id,
                language=customer.language,
                session=s,
                turn=t,
                say=turn.say,
                reply=result.reply,
                question=turn.question,
                needs_memory=turn.needs_memory,
                checks=_turn_checks(turn.checks, result.reply, vectors),
                other_language=foreign_runs(result.reply, customer.language, [*data, *said]),
                asked_for=asked,
                repeated=[k for k in asked if k in player.given_before and k not in given_now],
                vector_queries=vectors,
                recalled=len(result.recalled),
                wall_ms=round(wall_ms, 2),
                model_ms=round(result.timings.get("model", 0.0), 2),
                model_calls=_chat_calls(conversation, before_call),
                tool_results=tool_results,
                working_tokens=budget.get("used", 0),
                history_tokens=budget.get("history", 0),
                phases={k: round(v, 3) for k, v in result.timings.items()},
                cpu_phases={k: round(v, 3) for k, v in result.cpu_timings.items()},
            )
        )
        for key, value in turn.plants.items():
            given_now.add(key)
            player.planted.setdefault((key, value if key == "order_number" else ""), str(s))
        progress(1)
    store.end(conversation)
    player.given_before |= given_now
    return str(conversation), records


def _session_record(
    player: _Player,
    s: int,
    file: str,
    conversation: str,
    turns: list[TurnRecord],
    mode: str,
    consolidated: Consolidated,
) -> SessionRecord:
    messages = ConversationMessage.objects.filter(conversation_id=conversation).exclude(content="")
    last = next((t for t in reversed(turns) if t.working_tokens), None)
    planted = {key for turn in player.customer.sessions[s].turns[:-1] for key in turn.plants}
    asked = [t for t in turns if t.question in planted and not t.needs_memory]
    vectors = sum(t.vector_queries for t in turns)
    return SessionRecord(
        file=file,
        customer=player.customer.id,
        session=s,
        turns=len(turns),
        messages=messages.filter(Q(role="user") | Q(role="assistant")).count(),
        history_tokens=sum(count_tokens(c) for c in messages.values_list("content", flat=True)),
        working_tokens_last=last.working_tokens if last else 0,
        history_tokens_last=last.history_tokens if last else 0,
        facts_asked=len(asked),
        facts_answered=sum(t.passed is True for t in asked),
        vector_queries=vectors,
        after=_session_checks(player.customer.sessions[s].after, player.user, vectors) if mode != "off" else [],
        consolidation_ms={k: round(v, 1) for k, v in (consolidated.get("timings") or {}).items()},
    )


Slot = tuple[int, int, int]  # (file, customer, session) indexes


def timeline(scenarios: list[ScenarioFile]) -> list[tuple[float, list[Slot]]]:
    """The days on which sessions start, counted from the moment every customer is created, in order.

    Each customer keeps exactly its scenario's days between sessions; customers of all files share
    the one clock, which only moves forward. Within a day the longest sessions come first, so a long
    session does not start last and hold up the day alone.
    """
    days: dict[float, list[Slot]] = {}
    for f, scenario in enumerate(scenarios):
        for c, customer in enumerate(scenario.customers):
            day = 0.0
            for s, session in enumerate(customer.sessions):
                day += session.days_after
                days.setdefault(day, []).append((f, c, s))

    def turns(slot: Slot) -> int:
        return -len(scenarios[slot[0]].customers[slot[1]].sessions[slot[2]].turns)

    return [(day, sorted(slots, key=turns)) for day, slots in sorted(days.items())]


def _record_order(scenarios: list[ScenarioFile]) -> dict[tuple[int, int], tuple[int, int, int]]:
    """(file, customer) -> (file, cohort, place in it): the order in which records are listed."""
    order = {}
    for f, scenario in enumerate(scenarios):
        position = {customer.id: c for c, customer in enumerate(scenario.customers)}
        for k, cohort in enumerate(cohorts(scenario.customers)):
            for place, customer in enumerate(cohort):
                order[(f, position[customer.id])] = (f, k, place)
    return order


def _run_timeline(
    scenarios: list[ScenarioFile],
    mode: str,
    run: Run,
    consolidate: Callable[[str], Callable[[], Consolidated]],
    progress: Callable[[int], None],
    pool: ThreadPoolExecutor | None,
) -> None:
    """Play every session on its day (``timeline``); a day's sessions side by side in the ``pool``'s threads.

    Each ended session is queued for consolidation at once, so the worker works on it while the
    day's other sessions play; all are awaited before the clock moves on (memory must be
    consolidated before a later session can recall it, and consolidation stamps memories with the
    clock's day) and before the session checks. Turns of one conversation never play side by side.
    """
    players = {
        (f, c): _Player(customer, create_customer(customer, mode))
        for f, scenario in enumerate(scenarios)
        for c, customer in enumerate(scenario.customers)
    }
    order = _record_order(scenarios)

    def play(slot: Slot) -> tuple[str, list[TurnRecord], Callable[[], Consolidated]]:
        f, c, s = slot
        try:
            conversation, turns = _play_session(players[(f, c)], s, scenarios[f].path.name, progress)
            return conversation, turns, consolidate(conversation) if mode != "off" else _nothing
        finally:
            if pool is not None:
                connection.close()  # this thread's connection; the pool's threads outlive the day

    sessions: list[tuple[tuple[int, ...], SessionRecord, list[TurnRecord]]] = []  # (where it is listed, ...)
    with override_settings(MEMORY_RECALL_MODE=mode):
        today = 0.0
        for day, slots in timeline(scenarios):
            if day > today:
                clock.advance(timedelta(days=day - today))
                today = day
            played = [play(slot) for slot in slots] if pool is None else list(pool.map(play, slots))
            for (f, c, s), (conversation, turns, wait) in zip(slots, played, strict=True):
                record = _session_record(players[(f, c)], s, scenarios[f].path.name, conversation, turns, mode, wait())
                sessions.append((order[(f, c)][:2] + (s,) + order[(f, c)][2:], record, turns))
    # Listed as they were when each cohort played on its own: by file, cohort, session, customer.
    for _, record, turns in sorted(sessions, key=lambda item: item[0]):
        run.turns.extend(turns)
        run.sessions.append(record)
    for f, c in sorted(players, key=order.__getitem__):
        player = players[(f, c)]
        run.customers.append(_customer_record(scenarios[f].path.name, player.customer, player.user, player.planted))


def run_mode(
    scenarios: list[ScenarioFile],
    mode: str,
    *,
    consolidate: Callable[[str], Callable[[], Consolidated]] = consolidate_on_worker,
    progress: Callable[[int], None] = lambda turns: None,
    threads: int = 1,
) -> Run:
    """Run every scenario file in one mode; the customers are created, played and deleted again.

    ``threads`` > 1 plays that many sessions of a day side by side (``_run_timeline``).
    """
    if mode not in MODES:
        raise ValueError(f"unknown mode {mode!r} (one of {', '.join(MODES)})")
    run = Run(mode=mode, threads=threads)
    started, first_call = time.perf_counter(), _last_model_call()
    delete_customers()
    pool = ThreadPoolExecutor(threads, thread_name_prefix="eval") if threads > 1 else None
    try:
        _run_timeline(scenarios, mode, run, consolidate, progress, pool)
        delete_customers()
    finally:
        if pool is not None:
            pool.shutdown()
    totals = ModelCall.objects.filter(id__gt=first_call).totals()
    run.prompt_tokens = totals["prompt_tokens"] or 0
    run.completion_tokens = totals["completion_tokens"] or 0
    run.cost_usd = float(totals["cost_usd"] or 0)
    run.model_calls = totals["calls"] or 0
    run.seconds = round(time.perf_counter() - started, 1)
    return run
