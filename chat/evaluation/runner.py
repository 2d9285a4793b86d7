"""Play scenario files through the real agent turn, with memory off or on, and record what happened.

Every customer of a file becomes a real customer with real orders; every session is a real
conversation; every turn is ``chat.agent.run_turn`` with ``MEMORY_RECALL_MODE`` set to the mode
under test. Between sessions the conversation is ended, consolidated (memory on only) by whatever
``consolidate`` does — by default a task on the broker, awaited, so a real Celery worker does it —
and the shared clock (``agentsite.clock``) moves by the session's ``days_after``. The customers are
deleted again afterwards, so a file runs in several modes on one database.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from datetime import timedelta
from decimal import Decimal

from django.contrib.auth import get_user_model
from django.db.models import Max, Q
from django.test.utils import override_settings

from agentsite import clock
from agentsite.models import ModelCall
from chat.agent import run_turn
from chat.evaluation.scenarios import Check, Customer, ScenarioFile
from chat.models import CustomerProfile, Order, OrderItem, Shipment, TrackingEvent
from memory import session as short_term
from memory.models import ConversationMessage, LongTermMemory, MemoryConflict
from memory.recall import vector_queries
from memory.tokens import count_tokens

MODES = ("off", "active", "deferred", "tool")
USERNAME_PREFIX = "eval-"

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
    vector_queries: int
    after: list[CheckResult]


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

    def to_json(self) -> dict:
        data = asdict(self)
        for turn, raw in zip(self.turns, data["turns"], strict=True):
            raw["passed"] = turn.passed
        return data


def consolidate_on_worker(conversation_id: str, timeout: float = 300) -> None:
    """Final consolidation of one conversation by a Celery worker, awaited."""
    from memory.tasks import consolidate_conversation

    consolidate_conversation.delay(conversation_id, final=True).get(timeout=timeout)


def delete_customers(prefix: str = USERNAME_PREFIX) -> int:
    """Remove the evaluation's customers (and by cascade their orders, conversations and memories)."""
    deleted, _ = get_user_model().objects.filter(username__startswith=prefix).delete()
    return deleted


def create_customer(customer: Customer, mode: str):
    """A shop customer with the scenario's orders, shipments and tracking events, dated from now."""
    now = clock.now()
    user = get_user_model().objects.create_user(username=f"{USERNAME_PREFIX}{mode}-{customer.id}"[:150])
    CustomerProfile.objects.create(
        user=user, display_name=customer.name, language="zh-hans" if customer.language == "zh" else "en"
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


def _session_checks(checks: tuple[Check, ...], user, vector_count: int) -> list[CheckResult]:
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


def _model_time(after_id: int) -> tuple[float, int]:
    """Latency of the chat and summary calls a turn made (consolidation's extractions excluded)."""
    calls = ModelCall.objects.filter(id__gt=after_id, purpose__in=[ModelCall.Purpose.CHAT, ModelCall.Purpose.SUMMARISE])
    rows = list(calls.values_list("latency_ms", flat=True))
    return float(sum(rows)), len(rows)


def _last_model_call() -> int:
    return ModelCall.objects.aggregate(last=Max("id"))["last"] or 0


def _customer_record(file: str, customer: Customer, user, planted: dict[tuple[str, str], str]) -> CustomerRecord:
    valid = LongTermMemory.objects.valid().filter(customer=user)
    stored = matching = 0
    for key, value in planted:
        rows = valid.filter(key=key, **({"value__iexact": value} if key == "order_number" else {})).count()
        matching += rows
        stored += rows > 0
    raw_tokens = kept_tokens = summarised = results = 0
    for content, metadata in ConversationMessage.objects.filter(
        conversation__customer=user, role="tool_result"
    ).values_list("content", "metadata"):
        raw = (metadata or {}).get("raw") or content
        results += 1
        if raw != content:
            summarised += 1
            raw_tokens += count_tokens(raw)
            kept_tokens += count_tokens(content)
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
    )


def run_customer(
    scenario: ScenarioFile,
    customer: Customer,
    mode: str,
    run: Run,
    *,
    consolidate: Callable[[str], None] = consolidate_on_worker,
    progress: Callable[[int], None] = lambda turns: None,
) -> None:
    """Play one customer's sessions in ``mode`` and append the records to ``run``."""
    file = scenario.path.name
    store = short_term.store()
    user = create_customer(customer, mode)
    planted: dict[tuple[str, str], str] = {}  # (key, value or "") -> the session it was first given in
    given_before: set[str] = set()  # keys the customer gave in an earlier session
    with override_settings(MEMORY_RECALL_MODE=mode):
        for s, session in enumerate(customer.sessions):
            if session.days_after:
                clock.advance(timedelta(days=session.days_after))
            conversation = store.start(user.pk).id
            given_now: set[str] = set()
            session_vectors = 0
            working_last = 0
            for t, turn in enumerate(session.turns):
                frames: list[dict] = []
                before_vectors, before_call = vector_queries.value, _last_model_call()
                before_seq = store.load(conversation, recent=1).last_seq
                started = time.perf_counter()
                result = run_turn(user.pk, conversation, turn.say, emit=frames.append)
                wall_ms = (time.perf_counter() - started) * 1000
                model_ms, calls = _model_time(before_call)
                vectors = vector_queries.value - before_vectors
                session_vectors += vectors
                working = next((f["working"]["used"] for f in frames if f.get("type") == "memory"), 0)
                working_last = working or working_last
                asked = asked_for(result.reply)
                tool_results = ConversationMessage.objects.filter(
                    conversation_id=conversation, seq__gt=before_seq, role="tool_result"
                ).count()
                run.turns.append(
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
                        asked_for=asked,
                        repeated=[k for k in asked if k in given_before and k not in given_now],
                        vector_queries=vectors,
                        recalled=len(result.recalled),
                        wall_ms=round(wall_ms, 2),
                        model_ms=model_ms,
                        model_calls=calls,
                        tool_results=tool_results,
                        working_tokens=working,
                    )
                )
                for key, value in turn.plants.items():
                    given_now.add(key)
                    planted.setdefault((key, value if key == "order_number" else ""), str(s))
                progress(1)
            store.end(conversation)
            if mode != "off":
                consolidate(str(conversation))
            given_before |= given_now
            messages = ConversationMessage.objects.filter(conversation_id=conversation).exclude(content="")
            run.sessions.append(
                SessionRecord(
                    file=file,
                    customer=customer.id,
                    session=s,
                    turns=len(session.turns),
                    messages=messages.filter(Q(role="user") | Q(role="assistant")).count(),
                    history_tokens=sum(count_tokens(c) for c in messages.values_list("content", flat=True)),
                    working_tokens_last=working_last,
                    vector_queries=session_vectors,
                    after=_session_checks(session.after, user, session_vectors) if mode != "off" else [],
                )
            )
    run.customers.append(_customer_record(file, customer, user, planted))


def run_mode(
    scenarios: list[ScenarioFile],
    mode: str,
    *,
    consolidate: Callable[[str], None] = consolidate_on_worker,
    progress: Callable[[int], None] = lambda turns: None,
) -> Run:
    """Run every scenario file in one mode; the customers are created, played and deleted again."""
    if mode not in MODES:
        raise ValueError(f"unknown mode {mode!r} (one of {', '.join(MODES)})")
    run = Run(mode=mode)
    started, first_call = time.perf_counter(), _last_model_call()
    delete_customers()
    for scenario in scenarios:
        for customer in scenario.customers:
            run_customer(scenario, customer, mode, run, consolidate=consolidate, progress=progress)
        delete_customers()
    totals = ModelCall.objects.filter(id__gt=first_call).totals()
    run.prompt_tokens = totals["prompt_tokens"] or 0
    run.completion_tokens = totals["completion_tokens"] or 0
    run.cost_usd = float(totals["cost_usd"] or 0)
    run.model_calls = totals["calls"] or 0
    run.seconds = round(time.perf_counter() - started, 1)
    return run
