"""Three figures of the article's table, simulated through the project's own code on the real stack.

- Store size month by month over a simulated year, forgetting policy on and off: memories arrive
  every day from many customers through ``memory.longterm.store``, customers come back and
  ``memory.recall.recall`` touches what it finds (a few customers often, most rarely), and
  ``memory.forgetting.run_daily`` runs each simulated day with the clock moved by ``agentsite.clock``.
- Tool-result token reduction: long results of the real tools (``chat.tools.run_tool``) on generated
  shop data, and generated policy texts, through working memory's summarising of long tool results
  (``WorkingMemory.append_tool_result`` with the cheap model, ``agentsite.llm.summarise``).
- Tokens of a 300-message session after compression: ``SessionStore.compress`` with the cheap model,
  then the history the agent builds working memory from (``SessionStore.history``).

Everything runs on the database and Redis of Django's settings, for scratch customers, inside a
transaction that is rolled back at the end, so nothing created here survives (Redis keys of the
scratch session are deleted). The forgetting policy works on the whole table, so the store-size
simulation runs on scratch copies of the memory tables (``CREATE TABLE ... (LIKE ... INCLUDING ALL)``
in a schema of its own, first on the transaction's ``search_path``): the policy never sees, let
alone decays or deletes, anyone else's memories. When the settings allow clock offsets
(``CLOCK_ALLOW_OFFSET``), the shared clock is moved day by day and put back at the end; otherwise
the simulated ``now`` is passed explicitly (every policy takes ``now=``).
"""

from __future__ import annotations

import contextlib
import json
import multiprocessing
import queue
import random
import statistics
import time
import uuid
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import asdict, astuple, dataclass, field
from datetime import datetime, timedelta
from decimal import Decimal
from pathlib import Path

import numpy as np
from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.hashers import make_password
from django.db import connection, transaction
from django.db.models import Count, Q

from agentsite import clock, llm
from chat import prompts
from chat import tool_results as results_in_memory
from chat.evaluation import long_facts, spawned
from chat.models import CustomerProfile, Order, OrderItem, Shipment, TrackingEvent
from chat.tools import TOOLS, ToolContext, run_tool, schemas
from memory import forgetting, longterm
from memory.embeddings import get_embedder
from memory.keys import normalise
from memory.models import (
    CompressionSummary,
    Conversation,
    ConversationMessage,
    ForgettingRun,
    LongTermMemory,
    MemoryConflict,
    MemoryEvent,
    StateTransition,
)
from memory.recall import recall
from memory.session import SessionKeys, SessionStore
from memory.tokens import count_tokens
from memory.working import Entry, Role, ToolCall, WorkingMemory

Progress = Callable[[str, int, int], None]

ARTICLE = {
    "store_growth_per_month": "< 20%",
    "tool_result_reduction": -0.85,
    "session_tokens_before": 4000,
    "session_tokens_after": 1200,
}


@dataclass(frozen=True)
class StoreSizeParams:
    """The simulated year: who arrives, how often, with what."""

    days: int = 365
    customers: int = 200
    visits_per_day: float = 12.0  # returning customers a day; each visit recalls once (forgetting on)
    memories_per_visit: float = 1.5  # mean new memories consolidated from a visit (Poisson)
    activity_sigma: float = 1.2  # lognormal spread of how often each customer comes back
    pool_size: int = 240  # distinct memory sentences embedded for real (rows are them plus noise)
    noise: float = 0.008  # Gaussian noise per dimension added to a pooled embedding
    seed: int = 12


@dataclass(frozen=True)
class ToolResultParams:
    per_kind: int = 6  # results of each kind: order lists, tracking histories, order details, policy texts
    seed: int = 12


@dataclass(frozen=True)
class CompressionParams:
    messages: int = 300
    seed: int = 12


@dataclass(frozen=True)
class Params:
    store_size: StoreSizeParams = field(default_factory=StoreSizeParams)
    tool_results: ToolResultParams = field(default_factory=ToolResultParams)
    compression: CompressionParams = field(default_factory=CompressionParams)


def run_all(progress: Progress | None = None, *, params: Params | None = None, side_by_side: bool = False) -> dict:
    """Run the three simulations and return their figures (JSON-serialisable).

    ``side_by_side`` runs the two simulated years of ``store_size`` at once in processes of their own.
    """
    params = params or Params()
    report = progress or (lambda stage, done, total: None)
    started = time.perf_counter()
    results = {
        "store_size": store_size(params.store_size, report, side_by_side=side_by_side),
        "tool_results": tool_results(params.tool_results, report),
        "session_compression": session_compression(params.compression, report),
    }
    results["params"] = asdict(params)
    results["article"] = dict(ARTICLE)
    results["seconds"] = round(time.perf_counter() - started, 1)
    return results


# -- scratch data ----------------------------------------------------------------------------

# Every table the forgetting policy reads or writes (and the ones deleting a conversation cascades to).
POLICY_TABLES = (
    LongTermMemory,
    MemoryEvent,
    MemoryConflict,
    ForgettingRun,
    Conversation,
    ConversationMessage,
    CompressionSummary,
    StateTransition,
)


@contextlib.contextmanager
def scratch(*, own_memory_tables: bool = False) -> Iterator[None]:
    """Run the block in a transaction that is always rolled back; optionally on scratch memory tables."""
    with transaction.atomic():
        if own_memory_tables:
            _use_scratch_tables()
        try:
            yield
        finally:
            transaction.set_rollback(True)


def _use_scratch_tables() -> None:
    """Put empty copies of the policy's tables first on this transaction's search path."""
    schema = f"hsim_{uuid.uuid4().hex[:12]}"
    with connection.cursor() as cursor:
        cursor.execute("SELECT current_schema(), current_setting('search_path')")
        home, path = cursor.fetchone()
        cursor.execute(f'CREATE SCHEMA "{schema}"')
        for model in POLICY_TABLES:
            table = model._meta.db_table
            cursor.execute(f'CREATE TABLE "{schema}"."{table}" (LIKE "{home}"."{table}" INCLUDING ALL)')
            cursor.execute("SELECT reloptions FROM pg_class WHERE oid = %s::regclass", [f'"{home}"."{table}"'])
            options = cursor.fetchone()[0]
            if options:  # fillfactor 70 keeps recall's access bookkeeping a HOT update
                cursor.execute(f'ALTER TABLE "{schema}"."{table}" SET ({", ".join(options)})')
        cursor.execute(f'SET LOCAL search_path TO "{schema}", {path}')
        cursor.execute(
            "SELECT relnamespace::regnamespace::text FROM pg_class WHERE oid = to_regclass(%s)",
            [LongTermMemory._meta.db_table],
        )
        resolved = cursor.fetchone()[0]
    if resolved != schema:
        raise RuntimeError(f"scratch tables not in use: {LongTermMemory._meta.db_table} is in schema {resolved}")


def _make_customers(count: int, tag: str, *, languages: tuple[str, ...] = ()) -> list[int]:
    """Create ``count`` scratch customers (with shop profiles when ``languages`` is given)."""
    user_model = get_user_model()
    prefix = f"hsim-{tag}-{uuid.uuid4().hex[:8]}-"
    user_model.objects.bulk_create(
        [user_model(username=f"{prefix}{i}", password=make_password(None)) for i in range(count)]
    )
    ids = list(user_model.objects.filter(username__startswith=prefix).order_by("pk").values_list("pk", flat=True))
    if languages:
        CustomerProfile.objects.bulk_create(
            CustomerProfile(user_id=pk, display_name=f"Scratch {i}", language=languages[i % len(languages)])
            for i, pk in enumerate(ids)
        )
    return ids


class _SimClock:
    """The simulated now: the shared clock moved (and put back) where allowed, else an explicit offset.

    ``shared=False`` keeps the shared clock still even where it may move (two years simulated at once).
    """

    def __init__(self, shared: bool = True) -> None:
        self.shared = shared and bool(settings.CLOCK_ALLOW_OFFSET)
        self.moved = timedelta(0)

    def advance(self, delta: timedelta) -> None:
        if self.shared:
            clock.advance(delta)
        self.moved += delta

    def now(self) -> datetime:
        return clock.now() if self.shared else clock.now() + self.moved

    def restore(self) -> None:
        if self.shared and self.moved:
            clock.advance(-self.moved)
        self.moved = timedelta(0)


# -- 1. store size over a simulated year ------------------------------------------------------

_MONTHS_EN = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
]
_CITIES = [
    ("上海", "Shanghai"),
    ("北京", "Beijing"),
    ("杭州", "Hangzhou"),
    ("深圳", "Shenzhen"),
    ("成都", "Chengdu"),
    ("武汉", "Wuhan"),
    ("南京", "Nanjing"),
    ("西安", "Xi'an"),
    ("苏州", "Suzhou"),
    ("广州", "Guangzhou"),
]
_PRODUCTS = [
    ("跑鞋", "running shoes"),
    ("雨衣", "rain jacket"),
    ("咖啡研磨机", "coffee grinder"),
    ("无线耳机", "wireless earbuds"),
    ("瑜伽垫", "yoga mat"),
    ("台灯", "desk lamp"),
    ("双肩包", "backpack"),
    ("羽绒服", "down jacket"),
    ("保温杯", "vacuum flask"),
    ("破壁机", "blender"),
    ("羊毛围巾", "wool scarf"),
    ("办公椅", "office chair"),
    ("茶具", "tea set"),
    ("机械键盘", "mechanical keyboard"),
]
_ISSUES = [
    ("到货时有破损", "arrived damaged"),
    ("少了一个配件", "was missing a part"),
    ("尺码发错了", "came in the wrong size"),
    ("晚到了好几天", "was delivered days late"),
    ("一直没有送到", "was never delivered"),
]
_CHANNELS = {
    "email": ("邮件", "email"),
    "phone": ("电话", "phone"),
    "sms": ("短信", "text message"),
    "wechat": ("微信", "WeChat"),
}
_CARRIERS = {
    "sf_express": ("顺丰", "SF Express"),
    "jd": ("京东物流", "JD Logistics"),
    "ems": ("中国邮政", "EMS"),
    "ups": ("UPS", "UPS"),
    "dhl": ("DHL", "DHL"),
}
_LIKES = [
    ("客户对花生过敏，送礼时不要选坚果礼盒", "The customer is allergic to peanuts: no nut gift boxes"),
    ("客户工作日白天上班，下午六点后方便接电话", "The customer works days; calls are fine after 6 pm"),
    ("客户喜欢藏青色和灰色的衣服", "The customer likes navy and grey clothes"),
    ("客户家里有两只猫，关注宠物用品", "The customer has two cats and follows pet supplies"),
    ("客户希望包裹放在小区快递柜", "The customer wants parcels left in the building's parcel locker"),
    ("客户不喜欢过度包装", "The customer dislikes excessive packaging"),
    ("客户在准备马拉松，常买运动装备", "The customer is training for a marathon and buys running gear"),
    ("客户需要开具公司发票", "The customer needs company invoices"),
]
_QUERIES = [
    "我的订单到哪了",
    "上次那个退款处理好了吗",
    "你们还记得我的生日吗",
    "以后怎么联系我",
    "帮我查一下最近的订单",
    "我的收货地址是哪个",
    "我喜欢用哪家快递",
    "通知帮我关掉了吗",
    "之前那个破损的包裹怎么处理的",
    "我上次买的是什么",
    "where is my parcel",
    "did my refund go through",
    "do you remember my birthday",
    "how will you contact me",
    "what did I order last time",
    "which address do you have for me",
    "which carrier do I prefer",
    "are my notifications muted",
    "what happened with the damaged parcel",
    "any news on my order",
]
# (confidence, source, weight): what consolidation, tools and staff store (MEMORY_MIN_CONFIDENCE is 0.7).
_CONFIDENCES = [
    (0.7, "customer_stated", 20),
    (0.8, "agent_inferred", 10),
    (0.9, "customer_stated", 55),
    (0.96, "customer_stated", 10),
    (1.0, "system_record", 5),
]


@dataclass(frozen=True)
class _Pooled:
    type: str
    key: str
    value: str
    content: str


def _memory_pool(size: int, rng: random.Random) -> list[_Pooled]:
    """``size`` distinct memory sentences of the kinds consolidation stores, half of them Chinese."""
    pool: dict[str, _Pooled] = {}
    kinds = ["order"] * 6 + ["experience"] * 4 + ["like"] * 3 + ["channel", "carrier", "notifications"] + ["birthday"]
    while len(pool) < size:
        zh = len(pool) % 2 == 0
        kind = rng.choice(kinds)
        product = rng.choice(_PRODUCTS)[0 if zh else 1]
        number = f"ORD-{rng.choice([2024, 2025])}-{rng.randrange(10000):04d}"
        if kind == "order":
            text = (
                f"客户询问过订单 {number}（{product}）的物流"
                if zh
                else f"The customer asked about order {number} ({product})"
            )
            item = _Pooled("fact", "order_number", number, text)
        elif kind == "experience":
            issue = rng.choice(_ISSUES)[0 if zh else 1]
            amount = rng.randrange(30, 900)
            text = (
                f"订单 {number} 的{product}{issue}，已退款 ¥{amount}"
                if zh
                else f"Order {number} ({product}) {issue}; refunded ¥{amount}"
            )
            item = _Pooled("experience", "", "", text)
        elif kind == "like":
            text = rng.choice(_LIKES)[0 if zh else 1]
            city = rng.choice(_CITIES)[0 if zh else 1]
            text = f"{text}（{city}）" if zh else f"{text} ({city})"
            item = _Pooled("preference", "", "", text)
        elif kind == "channel":
            value = rng.choice(list(_CHANNELS))
            name = _CHANNELS[value][0 if zh else 1]
            text = f"客户希望通过{name}联系" if zh else f"The customer prefers to be contacted by {name}"
            item = _Pooled("preference", "contact_channel", value, text)
        elif kind == "carrier":
            value = rng.choice(list(_CARRIERS))
            name = _CARRIERS[value][0 if zh else 1]
            text = f"客户偏好用{name}发货" if zh else f"The customer prefers {name} for deliveries"
            item = _Pooled("preference", "preferred_carrier", value, text)
        elif kind == "notifications":
            value = rng.choice(["mute", "on"])
            if zh:
                text = "客户希望关闭促销通知（静音）" if value == "mute" else "客户希望开启订单通知"
            else:
                text = (
                    "The customer wants notifications muted"
                    if value == "mute"
                    else "The customer wants notifications on"
                )
            item = _Pooled("preference", "notification_preference", value, text)
        else:
            month, day = rng.randrange(1, 13), rng.randrange(1, 29)
            text = (
                f"客户的生日是{month}月{day}日" if zh else f"The customer's birthday is {_MONTHS_EN[month - 1]} {day}"
            )
            item = _Pooled("fact", "birthday", normalise("birthday", f"{month:02d}-{day:02d}"), text)
        pool.setdefault(item.content, item)
    return list(pool.values())


def _month_ends(days: int) -> list[int]:
    months = max(1, round(days / (365 / 12)))
    return sorted({min(days, round(m * 365 / 12)) for m in range(1, months + 1)} | {days})


def _store_counts(now: datetime) -> dict:
    counts = LongTermMemory.objects.aggregate(
        total=Count("pk"),
        valid=Count(
            "pk",
            filter=Q(invalidated_at__isnull=True, archived_at__isnull=True)
            & (Q(expires_at__isnull=True) | Q(expires_at__gt=now)),
        ),
        archived=Count("pk", filter=Q(archived_at__isnull=False)),
        superseded=Count("pk", filter=Q(invalidated_at__isnull=False, archived_at__isnull=True)),
    )
    # No table sizes in bytes: inside one long transaction nothing is vacuumed, so every decayed or touched
    # row leaves a dead copy behind and the bytes would measure the simulation, not the store.
    return counts


def _growth(previous: int | None, current: int) -> float | None:
    return None if not previous else round((current - previous) / previous, 4)


def _simulate_year(
    p: StoreSizeParams,
    pool: list[_Pooled],
    vectors: np.ndarray,
    *,
    forgetting_on: bool,
    report: Progress,
    shared_clock: bool = True,
) -> dict:
    """One simulated year on scratch tables; the same seed gives both policies the same arrivals and visits."""
    stage = f"store size, forgetting {'on' if forgetting_on else 'off'}"
    rng = random.Random(p.seed)
    noise = np.random.default_rng(p.seed)
    confidences, weights = zip(*[((c, s), w) for c, s, w in _CONFIDENCES], strict=True)
    month_ends = set(_month_ends(p.days))
    months: list[dict] = []
    outcomes: Counter[str] = Counter()
    forgotten = Counter(dict.fromkeys(["decayed", "archived", "deleted"], 0) if forgetting_on else {})
    recalls = 0
    sim = _SimClock(shared=shared_clock)
    started = time.perf_counter()
    with scratch(own_memory_tables=True):
        try:
            customers = _make_customers(p.customers, "year")
            activity = noise.lognormal(0.0, p.activity_sigma, len(customers))
            activity = activity / activity.sum()
            for day in range(1, p.days + 1):
                sim.advance(timedelta(days=1))
                morning = sim.now()
                if forgetting_on:
                    counts = forgetting.run_daily(morning)
                    if counts is not None:
                        forgotten.update(decayed=counts.decayed, archived=counts.archived, deleted=counts.deleted)
                visits = int(noise.poisson(p.visits_per_day))
                for visit in range(visits):
                    customer = customers[int(noise.choice(len(customers), p=activity))]
                    at = morning + timedelta(hours=5 + 16 * visit / max(visits, 1))
                    query = rng.choice(_QUERIES)
                    if forgetting_on:  # access matters only to the policy: without it, recall changes no size
                        recall(customer, query, now=at)
                        recalls += 1
                    for _ in range(int(noise.poisson(p.memories_per_visit))):
                        outcomes[_arrive(customer, pool, vectors, rng, noise, confidences, weights, p.noise, at)] += 1
                if day in month_ends:
                    counts = _store_counts(sim.now())
                    counts["deleted"] = forgotten["deleted"]
                    months.append({"day": day, **counts})
                report(stage, day, p.days)
        finally:
            sim.restore()
    for index, month in enumerate(months):
        previous = months[index - 1] if index else None
        month["growth_total"] = _growth(previous and previous["total"], month["total"])
        month["growth_valid"] = _growth(previous and previous["valid"], month["valid"])
    return {
        "months": months,
        "outcomes": dict(outcomes),
        "forgetting": dict(forgotten),
        "recalls": recalls,
        "clock": "shared offset" if sim.shared else "explicit now",
        "seconds": round(time.perf_counter() - started, 1),
    }


def _arrive(customer, pool, vectors, rng, noise, confidences, weights, sigma, at) -> str:
    """Store one new memory for ``customer`` through long-term memory's own decision rules."""
    index = rng.randrange(len(pool))
    item = pool[index]
    confidence, source = rng.choices(confidences, weights)[0]
    vector = vectors[index] + noise.normal(0.0, sigma, vectors.shape[1]).astype(np.float32)
    vector /= np.linalg.norm(vector)
    candidate = longterm.Candidate(
        type=item.type, content=item.content, confidence=confidence, source=source, key=item.key, value=item.value
    )
    # Already inside the scratch transaction: the lock is held to its end, and no savepoint per memory.
    longterm.customer_lock(customer)
    return longterm.store(customer, candidate, vector, actor="consolidation", now=at).action


def store_size(p: StoreSizeParams | None = None, report: Progress | None = None, *, side_by_side: bool = False) -> dict:
    """Store size month by month over ``p.days`` simulated days, with the forgetting policy on and off.

    The two years are independent (scratch tables of their own, the same seed). ``side_by_side``
    runs them at once, each in a process of its own on the explicit clock (``_years_side_by_side``);
    the processes read the settings from the environment, so it is for the command, not for tests
    that change settings or data in their own transaction.
    """
    p = p or StoreSizeParams()
    report = report or (lambda stage, done, total: None)
    pool = _memory_pool(p.pool_size, random.Random(p.seed))
    started = time.perf_counter()
    vectors = np.asarray(get_embedder().embed_passages([item.content for item in pool]), dtype=np.float32)
    embed_seconds = time.perf_counter() - started
    if side_by_side:
        on, off = _years_side_by_side(p, pool, vectors, report)
    else:
        on = _simulate_year(p, pool, vectors, forgetting_on=True, report=report)
        off = _simulate_year(p, pool, vectors, forgetting_on=False, report=report)
    last_on, last_off = on["months"][-1], off["months"][-1]
    second_half = [m["growth_total"] for m in on["months"][len(on["months"]) // 2 :] if m["growth_total"] is not None]
    return {
        "on": on,
        "off": off,
        "pool_embedded": len(pool),
        "embed_seconds": round(embed_seconds, 1),
        "final_total": {"on": last_on["total"], "off": last_off["total"]},
        "final_valid": {"on": last_on["valid"], "off": last_off["valid"]},
        "final_growth_total": {"on": last_on["growth_total"], "off": last_off["growth_total"]},
        "final_growth_valid": {"on": last_on["growth_valid"], "off": last_off["growth_valid"]},
        "max_growth_second_half": {
            "on": max(second_half, default=None),
            "off": max(
                (m["growth_total"] for m in off["months"][len(off["months"]) // 2 :] if m["growth_total"] is not None),
                default=None,
            ),
        },
        "vector_queries": on["recalls"],  # recall counts these in metrics:vector_queries
    }


def _years_side_by_side(
    p: StoreSizeParams, pool: list[_Pooled], vectors: np.ndarray, report: Progress
) -> tuple[dict, dict]:
    """Simulate the year with forgetting on and the one with it off at once, in two spawned processes.

    Spawned, not forked: this process has embedded, and a forked child of an OpenMP user hangs
    (TRAPS.md). Neither moves the shared clock (each would move it under the other); every policy
    of the year takes the simulated ``now`` explicitly.
    """
    context = multiprocessing.get_context("spawn")
    messages = context.Queue()
    plain_pool = [astuple(item) for item in pool]  # the child unpickles before Django is set up
    processes = {
        on: context.Process(
            target=spawned.simulate_year, args=(asdict(p), plain_pool, vectors, on, messages), daemon=True
        )
        for on in (True, False)
    }
    for process in processes.values():
        process.start()
    years: dict[bool, dict] = {}
    try:
        while len(years) < len(processes):
            try:
                kind, *rest = messages.get(timeout=5)
            except queue.Empty:
                dead = [on for on, process in processes.items() if on not in years and not process.is_alive()]
                if dead:
                    which, code = "on" if dead[0] else "off", processes[dead[0]].exitcode
                    raise RuntimeError(f"the year with forgetting {which} died (exit {code})") from None
                continue
            if kind == "progress":
                report(*rest)
            elif kind == "done":
                years[rest[0]] = rest[1]
            else:
                raise RuntimeError(f"the year with forgetting {'on' if rest[0] else 'off'} failed: {rest[1]}")
    finally:
        for process in processes.values():
            process.join(timeout=30)
            if process.is_alive():
                process.terminate()
                process.join()
    return years[True], years[False]


def simulate_year_in_child(params: dict, pool: list[tuple], vectors: np.ndarray, forgetting_on: bool, messages) -> None:
    """The body of a ``_years_side_by_side`` process (Django is set up): one year, its result on ``messages``."""
    try:
        result = _simulate_year(
            StoreSizeParams(**params),
            [_Pooled(*item) for item in pool],
            vectors,
            forgetting_on=forgetting_on,
            report=lambda stage, done, total: messages.put(("progress", stage, done, total)),
            shared_clock=False,
        )
    except Exception as exc:
        messages.put(("failed", forgetting_on, repr(exc)))
        raise
    messages.put(("done", forgetting_on, result))


# -- scratch shop data (for the tools and the long session) ----------------------------------

_EVENTS_ZH = [
    "快件已由【{a}】揽收",
    "快件已到达【{a}转运中心】",
    "快件已从【{a}转运中心】发出，正在发往【{b}】",
    "快件已到达【{b}营业部】",
    "快件正在派送中，派送员电话 138{n}",
    "快件因天气原因延误，预计晚一天送达",
    "快件已签收，签收人：本人",
]
_EVENTS_EN = [
    "Picked up by courier in {a}",
    "Arrived at {a} sorting centre",
    "Departed {a} sorting centre for {b}",
    "Arrived at {b} delivery station",
    "Out for delivery, courier phone +44 7700 9{n}",
    "Delayed by weather, expected one day later",
    "Delivered, signed by the customer",
]


class _ScratchShop:
    """Orders, items, shipments and tracking events for scratch customers, demo-like and generated."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.year = clock.now().year
        taken = set(Order.objects.filter(number__startswith=f"ORD-{self.year}-").values_list("number", flat=True))
        free = [n for n in range(10000) if f"ORD-{self.year}-{n:04d}" not in taken]
        rng.shuffle(free)
        self._numbers = iter(free)

    def order(self, customer: int, zh: bool, *, items: int, events: int, status: str | None = None) -> Order:
        rng = self.rng
        now = clock.now()
        status = status or (rng.choice(["shipped", "in_transit", "delivered"]) if events else "processing")
        placed = now - timedelta(days=rng.uniform(1, 90))
        chosen = [rng.choice(_PRODUCTS)[0 if zh else 1] for _ in range(items)]
        prices = [Decimal(rng.randrange(900, 90000)) / 100 for _ in range(items)]
        order = Order.objects.create(
            customer_id=customer,
            number=f"ORD-{self.year}-{next(self._numbers):04d}",
            status=status,
            placed_at=placed,
            total=sum(prices, Decimal(0)),
            currency="CNY" if zh else "USD",
        )
        OrderItem.objects.bulk_create(
            OrderItem(
                order=order, name=f"{name} #{rng.randrange(100, 999)}", quantity=rng.randrange(1, 4), unit_price=p
            )
            for name, p in zip(chosen, prices, strict=True)
        )
        if events:
            carrier, prefix = rng.choice(
                [("顺丰速运", "SF"), ("京东物流", "JD"), ("中通快递", "ZT")]
                if zh
                else [("UPS", "1Z"), ("DHL", "JD01"), ("Royal Mail", "RM")]
            )
            shipment = Shipment.objects.create(
                order=order,
                carrier=carrier,
                tracking_number=f"{prefix}{rng.randrange(10**9, 10**10)}",
                status=status,
                eta=(placed + timedelta(days=rng.randrange(3, 8))).date(),
            )
            cities = [c[0 if zh else 1] for c in _CITIES]
            texts = _EVENTS_ZH if zh else _EVENTS_EN
            TrackingEvent.objects.bulk_create(
                TrackingEvent(
                    shipment=shipment,
                    time=placed + timedelta(hours=6 * (i + 1) + rng.randrange(0, 5)),
                    location=rng.choice(cities),
                    description=rng.choice(texts).format(
                        a=rng.choice(cities), b=rng.choice(cities), n=rng.randrange(10**7, 10**8)
                    ),
                )
                for i in range(events)
            )
        return order


# -- 2. tool-result token reduction ------------------------------------------------------------

_POLICY_TOPICS = {
    "zh": [
        (
            "退换货政策",
            [
                "商品签收后七天内可无理由退货，商品需保持完好、配件齐全。",
                "定制商品、贴身衣物和已拆封的食品不支持无理由退货。",
                "质量问题导致的退货，运费由本店承担；非质量问题的退货运费由客户承担。",
                "退货寄回后，仓库会在收到包裹的两个工作日内完成检验。",
                "检验通过后，退款会在三到五个工作日内原路退回。",
                "使用优惠券的订单退货时，优惠券按比例返还，过期的优惠券不再补发。",
                "换货只限同款不同尺码或颜色，换货商品缺货时改为退款。",
                "大件家具类商品退货需预约上门取件，取件费按地区另计。",
            ],
        ),
        (
            "配送说明",
            [
                "江浙沪地区一般次日送达，其他地区二到四天送达，偏远地区五到七天。",
                "默认使用顺丰速运，客户也可以在下单时选择京东物流或中国邮政。",
                "订单满九十九元包邮，未满九十九元收取八元运费。",
                "大促期间发货可能延迟一到两天，请以订单页面显示为准。",
                "包裹签收前请当面检查外包装，如有破损可以拒收并联系客服。",
                "海外订单目前只配送到香港、澳门和新加坡，关税由收件人承担。",
            ],
        ),
        (
            "通知与隐私",
            [
                "订单状态变化时我们会通过短信或微信通知您，您可以在个人中心关闭促销通知。",
                "订单相关的物流通知无法完全关闭，以免错过签收。",
                "我们只在提供服务所必需的范围内保存您的信息，不会向第三方出售。",
                "您可以随时要求查看或删除我们记住的关于您的信息。",
                "客服对话会保存一百八十天，用于改进服务和处理纠纷。",
            ],
        ),
        (
            "保修与售后",
            [
                "电子产品自签收之日起享受一年保修，保修期内非人为损坏免费维修。",
                "维修需要寄回商品和购买凭证，寄回运费由本店承担。",
                "维修周期一般为七到十个工作日，无法维修的商品会换新或退款。",
                "人为损坏、进水和私自拆机不在保修范围内，可以付费维修。",
                "保修期外的维修按配件成本和工时收费，维修前会先报价。",
                "小家电提供三十天只换不修服务，需保留完整包装。",
                "延保服务可以在下单后三十天内购买，延保期限为一到两年。",
            ],
        ),
    ],
    "en": [
        (
            "Returns and refunds",
            [
                "You can return most items within 30 days of delivery for a full refund.",
                "Items must be unused, in their original packaging, with all accessories.",
                "Made-to-order items, underwear and opened food cannot be returned unless faulty.",
                "We pay return shipping when an item is faulty or we sent the wrong one.",
                "Refunds go back to the original payment method within 5 business days of inspection.",
                "Exchanges are limited to a different size or colour of the same product.",
                "Large furniture returns need a collection appointment; a fee may apply.",
            ],
        ),
        (
            "Shipping",
            [
                "Standard delivery takes 3 to 5 business days; express delivery takes 1 to 2.",
                "Orders over $50 ship free; smaller orders pay a flat $4.99.",
                "We ship with UPS by default; DHL is available at checkout for international orders.",
                "During sales events dispatch may take one or two extra days.",
                "Check the parcel on delivery and refuse it if the box is damaged.",
                "International customers pay any import duties and taxes on delivery.",
            ],
        ),
        (
            "Notifications and privacy",
            [
                "We send order and shipping updates by email or text message.",
                "You can mute promotional messages in your account settings at any time.",
                "Shipping updates cannot be fully turned off so that you do not miss a delivery.",
                "We keep chat transcripts for 180 days to improve service and resolve disputes.",
                "You can ask us to show or delete what we remember about you.",
            ],
        ),
        (
            "Warranty and repairs",
            [
                "Electronics carry a one-year warranty from the delivery date covering defects in materials.",
                "To claim, send the item back with its order number; we pay the shipping for warranty repairs.",
                "Repairs usually take 7 to 10 business days; items we cannot repair are replaced or refunded.",
                "Accidental damage, water damage and opened casings are not covered but can be repaired for a fee.",
                "Out-of-warranty repairs are quoted before any work starts, parts and labour included.",
                "Small appliances can be exchanged, not repaired, within 30 days if the packaging is complete.",
                "An extended warranty of one or two years can be bought within 30 days of the order.",
            ],
        ),
    ],
}


def _policy_payload(rng: random.Random, zh: bool) -> dict:
    """A policy search result carrying whole articles (the real tool returns 240-character snippets)."""
    topics = _POLICY_TOPICS["zh" if zh else "en"]
    articles = []
    for number, (title, sentences) in enumerate(rng.sample(topics, k=rng.randrange(3, len(topics) + 1)), start=1):
        body = ("" if zh else " ").join(rng.sample(sentences, k=rng.randrange(len(sentences) - 2, len(sentences) + 1)))
        articles.append({"id": rng.randrange(10, 99) * 10 + number, "title": title, "body": body})
    return {"articles": articles}


def _tool_cases(p: ToolResultParams, shop: _ScratchShop, rng: random.Random) -> list[tuple]:
    """(kind, tool, arguments, customer or None, generated payload or None) for every result to measure."""
    cases: list[tuple] = []
    customers = _make_customers(p.per_kind * 3, "tools", languages=("zh-hans", "en"))
    for i in range(p.per_kind):
        zh = i % 2 == 0
        owner = customers[i]
        for _ in range(rng.randrange(16, 27)):  # list_my_orders shows the latest 20
            shop.order(owner, zh, items=rng.randrange(1, 3), events=rng.choice([0, 3]))
        cases.append(("order list", "list_my_orders", {}, owner, None))
        tracked = shop.order(customers[p.per_kind + i], zh, items=1, events=rng.randrange(12, 31))
        cases.append(
            ("tracking history", "track_shipment", {"order_number": tracked.number}, tracked.customer_id, None)
        )
        detailed = shop.order(
            customers[2 * p.per_kind + i], zh, items=rng.randrange(5, 11), events=rng.randrange(10, 21)
        )
        cases.append(("order details", "lookup_order", {"order_number": detailed.number}, detailed.customer_id, None))
        query = {"query": "退换货和配送政策" if zh else "returns and shipping policy"}
        cases.append(("policy text", "search_policies", query, None, _policy_payload(rng, zh)))
    return cases


def tool_results(p: ToolResultParams | None = None, report: Progress | None = None) -> dict:
    """Tokens of long tool results before and after working memory summarises them."""
    p = p or ToolResultParams()
    report = report or (lambda stage, done, total: None)
    rng = random.Random(p.seed)
    rows = []
    threshold = WorkingMemory.from_settings().summarise_over_tokens
    started = time.perf_counter()
    with scratch():
        cases = _tool_cases(p, _ScratchShop(rng), rng)
        for index, (kind, tool, arguments, customer, payload) in enumerate(cases):
            if payload is not None:
                result, source = payload, "generated"
            else:
                language = CustomerProfile.objects.get(user_id=customer).language
                ctx = ToolContext(customer, uuid.uuid4(), "zh" if language.startswith("zh") else "en")
                result, source = run_tool(ctx, tool, arguments), "tool"
            buffer = WorkingMemory.from_settings()
            call = ToolCall(f"call_{index}", tool, json.dumps(arguments, ensure_ascii=False))
            buffer.append_tool_call([call])
            entry, _ = results_in_memory.append(buffer, call.id, tool, arguments, result, llm.summarise)  # as the agent
            raw_tokens = entry.metadata["raw_tokens"]
            kept, needed = results_in_memory.kept_share(tool, result, entry.content)
            # The floor: the values no shortening may lose, written bare (about as far as any shortening goes).
            floor = count_tokens("; ".join(results_in_memory.must_keep(tool, result)))
            rows.append(
                {
                    "kind": kind,
                    "tool": tool,
                    "source": source,
                    "raw_tokens": raw_tokens,
                    "tokens": entry.tokens,
                    "summarised": bool(entry.metadata["summarised"]),
                    "reduction": round(entry.tokens / raw_tokens - 1, 4),
                    "values_kept": kept,
                    "values_needed": needed,
                    "floor_tokens": floor,
                }
            )
            report("tool results", index + 1, len(cases))
    long = [r for r in rows if r["raw_tokens"] > threshold]
    kinds = sorted({r["kind"] for r in rows})
    return {
        "threshold_tokens": threshold,
        "results": rows,
        "long_results": len(long),
        "summarised": sum(r["summarised"] for r in long),
        "median_reduction": _median([r["reduction"] for r in long]),
        "total_reduction": round(sum(r["tokens"] for r in long) / sum(r["raw_tokens"] for r in long) - 1, 4)
        if long
        else None,
        "values_kept": sum(r["values_kept"] for r in long),
        "values_needed": sum(r["values_needed"] for r in long),
        "floor_median_reduction": _median([r["floor_tokens"] / r["raw_tokens"] - 1 for r in long]),
        "floor_total_reduction": round(sum(r["floor_tokens"] for r in long) / sum(r["raw_tokens"] for r in long) - 1, 4)
        if long
        else None,
        "by_kind": {
            kind: {
                "results": len(group),
                "median_raw_tokens": _median([r["raw_tokens"] for r in group]),
                "median_tokens": _median([r["tokens"] for r in group]),
                "median_reduction": _median([r["reduction"] for r in group]),
                "median_floor_reduction": _median([r["floor_tokens"] / r["raw_tokens"] - 1 for r in group]),
                "values_kept": sum(r["values_kept"] for r in group),
                "values_needed": sum(r["values_needed"] for r in group),
            }
            for kind in kinds
            if (group := [r for r in long if r["kind"] == kind])
        },
        "seconds": round(time.perf_counter() - started, 1),
    }


def _median(values: list[float]) -> float | None:
    return round(float(statistics.median(values)), 4) if values else None


# -- 3. a 300-message session, compressed ------------------------------------------------------

_TALK = {
    "zh": [
        ("在吗？", "在的，请问有什么可以帮您？"),
        ("谢谢你", "不客气，祝您购物愉快！"),
        ("好的，我知道了", "好的，还有其他问题随时找我。"),
        ("运费怎么算？", "订单满九十九元包邮，未满收取八元运费。"),
        ("可以开发票吗？", "可以的，订单完成后在订单页面申请电子发票即可。"),
        ("你们几点下班？", "在线客服全天都在，人工客服每天九点到二十一点。"),
        ("能便宜点吗", "抱歉，价格是统一的，您可以关注店铺的优惠券活动。"),
    ],
    "en": [
        ("hi, are you there?", "Hi! Yes, how can I help you today?"),
        ("thanks!", "You're welcome, happy shopping!"),
        ("ok, got it", "Great, let me know if there's anything else."),
        ("how much is shipping?", "Orders over $50 ship free; smaller orders pay a flat $4.99."),
        ("can I get an invoice?", "Yes, you can download an invoice from the order page once it has shipped."),
        ("when does support close?", "I'm here around the clock; our staff answer from 9 am to 9 pm."),
    ],
}
_ASK = {
    "zh": ["帮我查一下订单 {n} 的状态", "{n} 发货了吗？", "我的快递 {n} 到哪了", "订单 {n} 什么时候能到"],
    "en": ["can you check order {n}?", "has {n} shipped yet?", "where is my parcel {n}?", "when will {n} arrive?"],
}
_ANSWER = {
    "zh": "订单 {n} 当前状态：{s}，由{c}配送，预计 {e} 送达。",
    "en": "Order {n} is {s}; {c} expects to deliver it on {e}.",
}


_NOTED = {"zh": "好的，记下了。", "en": "Thanks, noted."}


def _session_script(
    rng: random.Random, orders: list[Order], messages: int, facts: list[long_facts.PlantedFact] = ()
) -> list[tuple]:
    """Turns of a long customer-service chat, exactly ``messages`` messages, ending with the customer's.

    Each of ``facts`` is stated once (its turn and a short answer), spread over the first three quarters.
    """
    script: list[tuple] = []
    body = messages - 1
    count = 0  # messages so far (a tool step is two: the call and its result)
    due = [(i * body * 3 // 4 // max(1, len(facts)), fact) for i, fact in enumerate(facts)]
    while count < body:
        left = body - count
        if due and due[0][0] <= count and left >= 2 and left % 2 == 0:
            fact = due.pop(0)[1]
            script += [("user", fact.say), ("assistant", _NOTED["zh" if _is_zh(fact.say) else "en"])]
            count += 2
            continue
        zh = rng.random() < 0.6
        lang = "zh" if zh else "en"
        order = rng.choice(orders)
        if left % 2 == 1:  # two messages from the customer in a row, then an answer
            ask, answer = rng.choice(_TALK[lang])
            script += [("user", "在吗" if zh else "hello?"), ("user", ask), ("assistant", answer)]
            count += 3
        elif left >= 4 and rng.random() < 0.2:
            tool = rng.choice(["lookup_order", "track_shipment"])
            shipment = order.shipment
            script += [
                ("user", rng.choice(_ASK[lang]).format(n=order.number)),
                ("tool", tool, {"order_number": order.number}, order.customer_id, lang),
                ("assistant", _ANSWER[lang].format(n=order.number, s=order.status, c=shipment.carrier, e=shipment.eta)),
            ]
            count += 4
        else:
            script += [("user", ask) if i == 0 else ("assistant", ask) for i, ask in enumerate(rng.choice(_TALK[lang]))]
            count += 2
    script.append(("user", "好的，那就这样，谢谢" if rng.random() < 0.6 else "alright, that's all, thanks"))
    return script


def _is_zh(text: str) -> bool:
    return any("\u4e00" <= ch <= "\u9fff" for ch in text)


def _expand(script: list[tuple], call_ids: Iterator[int]) -> Iterator[tuple[Entry, str | None]]:
    """The script's messages as working-memory entries (a tool step becomes a call and its real result)."""
    for step in script:
        if step[0] != "tool":
            yield Entry.create(Role(step[0]), step[1], timestamp=clock.now()), None
            continue
        _, tool, arguments, customer, lang = step
        call = ToolCall(f"call_{next(call_ids)}", tool, json.dumps(arguments))
        yield Entry.create(Role.TOOL_CALL, "", timestamp=clock.now(), tool_calls=[call]), None
        buffer = WorkingMemory.from_settings()
        buffer.append_tool_call([call])
        result = run_tool(ToolContext(customer, uuid.uuid4(), lang), tool, arguments)
        yield results_in_memory.append(buffer, call.id, tool, arguments, result, llm.summarise)


def session_compression(p: CompressionParams | None = None, report: Progress | None = None) -> dict:
    """Tokens of a long session before and after compression, as the agent would load it into working memory."""
    p = p or CompressionParams()
    report = report or (lambda stage, done, total: None)
    rng = random.Random(p.seed)
    store = SessionStore()
    started = time.perf_counter()
    conversation_id = None
    try:
        with scratch():
            customer = _make_customers(1, "session", languages=("zh-hans",))[0]
            shop = _ScratchShop(rng)
            orders = [shop.order(customer, rng.random() < 0.6, items=1, events=2) for _ in range(6)]
            bought = [shop.order(customer, False, items=1, events=2, status="delivered").number for _ in range(25)]
            facts = long_facts.planted_facts("en", bought)
            conversation_id = store.start(customer).id
            script = _session_script(rng, orders, p.messages, facts)
            for appended, (entry, raw) in enumerate(_expand(script, iter(range(1, 10**6))), start=1):
                store.append(conversation_id, entry, raw=raw)
                # After every message, as tests/memory/test_compression.py does (the turn queues it as a task).
                store.compress(conversation_id)
                report("session compression", appended, p.messages)
            rows = ConversationMessage.objects.filter(conversation_id=conversation_id).order_by("seq")
            everything = [
                Entry(
                    Role(m.role),
                    m.content,
                    m.created_at,
                    m.token_count,
                    tool_calls=_calls(m.metadata),
                    tool_call_id=m.metadata.get("tool_call_id"),
                )
                for m in rows
            ]
            history = store.history(conversation_id)
            summaries = list(CompressionSummary.objects.filter(conversation_id=conversation_id))
            system = prompts.system_prompt("zh", clock.now(), "Scratch")
            before = _working_tokens(system, everything, budget=10**9)
            after = _working_tokens(system, history, budget=settings.MEMORY_WORKING_BUDGET_TOKENS)
            answered = [_answered_at_end(system, history, fact) for fact in facts]
            result = {
                "facts_asked": len(facts),
                "facts_answered": sum(answered),
                "facts_missed": [fact.question for fact, ok in zip(facts, answered, strict=True) if not ok],
                "messages": len(everything),
                "tokens_before": sum(e.tokens for e in everything),
                "tokens_after": sum(e.tokens for e in history),
                "working_memory_before": before,
                "working_memory_after": after,
                "summaries": len(summaries),
                "summarised_messages": sum(s.last_seq - s.first_seq + 1 for s in summaries),
                "summaries_tokens_before": sum(s.tokens_before for s in summaries),
                "summaries_tokens_after": sum(s.tokens_after for s in summaries),
                "verbatim_messages": len(history) - (1 if summaries else 0),
                "system_prompt_tokens": count_tokens(system),
            }
    finally:
        if conversation_id is not None:
            store.redis.delete(*SessionKeys.of(conversation_id).all())
    result["reduction"] = round(result["tokens_after"] / result["tokens_before"] - 1, 4)
    result["seconds"] = round(time.perf_counter() - started, 1)
    return result


def _answered_at_end(system: str, history: list[Entry], fact: long_facts.PlantedFact) -> bool:
    """Ask the model for ``fact`` at the end of the session, with the history the agent would send.

    The question is asked on its own (not appended to the session); a tool call naming the value
    (``lookup_order`` with the right number) counts as knowing it.
    """
    buffer = WorkingMemory.from_settings()
    buffer.set_system(system)
    buffer.extend(history)
    buffer.append_user(fact.question)
    completion = llm.chat(buffer.to_messages(), schemas([n for n in TOOLS if n != "recall_memory"]))
    said = completion.content + " ".join(json.dumps(c.arguments, ensure_ascii=False) for c in completion.tool_calls)
    return fact.expect in said


def _calls(metadata: dict) -> tuple[ToolCall, ...]:
    return tuple(ToolCall(**call) for call in metadata.get("tool_calls", ()))


def _working_tokens(system: str, history: list[Entry], *, budget: int) -> int:
    """Tokens of working memory built as the agent builds it: system prompt, history, the latest message."""
    buffer = WorkingMemory(budget)
    buffer.set_system(system)
    buffer.extend(history[:-1])
    buffer.append_user(history[-1].content)
    return buffer.usage().used


# -- the report ------------------------------------------------------------------------------


def _pct(value: float | None) -> str:
    return "–" if value is None else f"{value * 100:+.1f}%"


def markdown(results: dict) -> str:
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
        f"{ARTICLE['store_growth_per_month']} | "
        f"{_pct(size['final_growth_valid']['on'])} / {_pct(size['final_growth_valid']['off'])} |",
        f"| growth of all rows (archived included) over the last month, on / off | "
        f"{ARTICLE['store_growth_per_month']} | "
        f"{_pct(size['final_growth_total']['on'])} / {_pct(size['final_growth_total']['off'])} |",
        f"| valid memories / all rows after {on['months'][-1]['day']} days, on | – | "
        f"{size['final_valid']['on']:,} / {size['final_total']['on']:,} |",
        f"| valid memories / all rows after {off['months'][-1]['day']} days, off | – | "
        f"{size['final_valid']['off']:,} / {size['final_total']['off']:,} |",
        f"| tool-result tokens after summarising (median of {tools['long_results']} long results) | "
        f"{_pct(ARTICLE['tool_result_reduction'])} | {_pct(tools['median_reduction'])} |",
        f"| tool-result tokens, all long results together (values a later step needs kept) | "
        f"{_pct(ARTICLE['tool_result_reduction'])} | {_pct(tools['total_reduction'])} "
        f"({tools['values_kept']} of {tools['values_needed']}) |",
        f"| the same, if only the values a later step needs were kept, written bare (the floor) | – | "
        f"median {_pct(tools['floor_median_reduction'])}, all {_pct(tools['floor_total_reduction'])} |",
        f"| tokens of a {session['messages']}-message session, before → after compression | "
        f"{ARTICLE['session_tokens_before']:,} → ~{ARTICLE['session_tokens_after']:,} | "
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


def _out_of_reach(tools: dict) -> str:
    """A sentence when the floor itself is short of the article's reduction over all long results."""
    floor, article = tools["floor_total_reduction"], ARTICLE["tool_result_reduction"]
    if floor is None or floor <= article:
        return ""
    kind, row = max(tools["by_kind"].items(), key=lambda pair: pair[1]["median_floor_reduction"])
    return (
        f" Over all long results together the article's {_pct(article)} is out of reach of any shortening "
        f"that keeps those values: their floor is {_pct(floor)}, held back by the {kind}s (their values alone: "
        f"{_pct(row['median_floor_reduction'])} against the raw result, median)."
    )


def _store_params_line(results: dict) -> str:
    p = results.get("params", {}).get("store_size", {})
    if not p:
        return ""
    return (
        f"{p['customers']} customers, about {p['visits_per_day']:g} visits a day (lognormal activity, "
        f"sigma {p['activity_sigma']:g}: a few customers come back often, most rarely), about "
        f"{p['visits_per_day'] * p['memories_per_visit']:g} new memories a day, confidences 0.7–1.0; "
        f"{results['store_size']['pool_embedded']} sentences embedded for real, rows are them plus noise."
    )


def charts(results: dict, outdir: Path) -> list[Path]:
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
    for policy, measure, style in (("off", "total", "o-"), ("on", "total", "o-"), ("on", "valid", "s--")):
        months = [m for m in size[policy]["months"] if m[f"growth_{measure}"] is not None]
        growth_axis.plot(
            [m["day"] for m in months],
            [m[f"growth_{measure}"] * 100 for m in months],
            style,
            label=f"{'rows' if measure == 'total' else 'valid'}, forgetting {policy}",
        )
    growth_axis.axhline(20, color="grey", linestyle=":", label="article: < 20% a month")
    growth_axis.set(xlabel="simulated day", ylabel="growth over the month (%)", title="Monthly growth of the store")
    growth_axis.legend()
    paths.append(_save(figure, outdir / "eval-store-size.png", plt))

    figure, axis = plt.subplots(figsize=(7, 4))
    kinds = list(tools["by_kind"])
    raw = [tools["by_kind"][k]["median_raw_tokens"] for k in kinds]
    kept = [tools["by_kind"][k]["median_tokens"] for k in kinds]
    positions = np.arange(len(kinds))
    axis.bar(positions - 0.2, raw, 0.4, label="raw result")
    axis.bar(positions + 0.2, kept, 0.4, label="in working memory")
    axis.set_xticks(positions, kinds)
    axis.set(
        ylabel="tokens (median)",
        title=f"Tool results: median {_pct(tools['median_reduction'])} "
        f"(article {_pct(ARTICLE['tool_result_reduction'])})",
    )
    axis.legend()
    paths.append(_save(figure, outdir / "eval-tool-results.png", plt))

    figure, axis = plt.subplots(figsize=(6, 4))
    labels = ["article", "measured"]
    axis.bar([0 - 0.2, 1 - 0.2], [ARTICLE["session_tokens_before"], session["tokens_before"]], 0.4, label="before")
    axis.bar([0 + 0.2, 1 + 0.2], [ARTICLE["session_tokens_after"], session["tokens_after"]], 0.4, label="after")
    axis.set_xticks([0, 1], labels)
    axis.set(ylabel="tokens", title=f"A {session['messages']}-message session, compressed")
    axis.legend()
    paths.append(_save(figure, outdir / "eval-session-compression.png", plt))
    return paths


def _save(figure, path: Path, plt) -> Path:
    figure.tight_layout()
    figure.savefig(path, dpi=110)
    plt.close(figure)
    return path
