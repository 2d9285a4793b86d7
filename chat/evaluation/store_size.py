"""The store's size month by month over a simulated year, with the forgetting policy on and off: memories
arrive every day from many customers through ``memory.longterm.store``, returning customers' recalls touch
what they find, and ``memory.forgetting.run_daily`` runs each simulated day, all on scratch memory tables
so the policy never sees anyone else's memories. The parameters and how to read the figure: docs/eval.md.
"""

from __future__ import annotations

import multiprocessing
import multiprocessing.queues
import queue
import random
import time
from collections import Counter
from dataclasses import asdict, dataclass
from datetime import datetime, timedelta
from typing import Generic, TypedDict, TypeVar

import numpy as np
import numpy.typing as npt
from django.db.models import Count, Q

from chat.evaluation import spawned
from chat.evaluation.generator import MONTHS_EN
from chat.evaluation.scratch import CITIES, PRODUCTS, Progress, SimClock, make_customers, quiet, scratch
from memory import forgetting, longterm
from memory.embeddings import get_embedder
from memory.keys import normalise
from memory.models import LongTermMemory
from memory.recall import recall

ARTICLE_GROWTH = "< 20%"  # the article's store growth a month, with forgetting

Vectors = npt.NDArray[np.float32]


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


class Month(TypedDict):
    """The store at the end of a simulated month."""

    day: int
    total: int
    valid: int
    archived: int
    superseded: int
    deleted: int  # by the policy since the first day
    growth_total: float | None
    growth_valid: float | None


class Year(TypedDict):
    """One simulated year under one policy."""

    months: list[Month]
    outcomes: dict[str, int]  # what storing did: created, merged, ...
    forgetting: dict[str, int]  # decayed, archived, deleted (empty with the policy off)
    recalls: int
    clock: str
    seconds: float


T = TypeVar("T")


class OnOff(TypedDict, Generic[T]):
    on: T
    off: T


class StoreSize(TypedDict):
    """The figure: both years and what the report reads off them."""

    on: Year
    off: Year
    pool_embedded: int
    embed_seconds: float
    final_total: OnOff[int]
    final_valid: OnOff[int]
    final_growth_total: OnOff[float | None]
    final_growth_valid: OnOff[float | None]
    max_growth_second_half: OnOff[float | None]
    vector_queries: int


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

    def plain(self) -> tuple[str, str, str, str]:
        """As plain strings, for a process that has not set Django up yet."""
        return (self.type, self.key, self.value, self.content)


def _memory_pool(size: int, rng: random.Random) -> list[_Pooled]:
    """``size`` distinct memory sentences of the kinds consolidation stores, half of them Chinese."""
    pool: dict[str, _Pooled] = {}
    kinds = ["order"] * 6 + ["experience"] * 4 + ["like"] * 3 + ["channel", "carrier", "notifications"] + ["birthday"]
    while len(pool) < size:
        zh = len(pool) % 2 == 0
        kind = rng.choice(kinds)
        product = rng.choice(PRODUCTS)[0 if zh else 1]
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
            city = rng.choice(CITIES)[0 if zh else 1]
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
            text = f"客户的生日是{month}月{day}日" if zh else f"The customer's birthday is {MONTHS_EN[month - 1]} {day}"
            item = _Pooled("fact", "birthday", normalise("birthday", f"{month:02d}-{day:02d}"), text)
        pool.setdefault(item.content, item)
    return list(pool.values())


def _month_ends(days: int) -> list[int]:
    months = max(1, round(days / (365 / 12)))
    return sorted({min(days, round(m * 365 / 12)) for m in range(1, months + 1)} | {days})


class _Counts(TypedDict):
    total: int
    valid: int
    archived: int
    superseded: int


def _store_counts(now: datetime) -> _Counts:
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
    return _Counts(
        total=counts["total"], valid=counts["valid"], archived=counts["archived"], superseded=counts["superseded"]
    )


def _growth(previous: int | None, current: int) -> float | None:
    return None if not previous else round((current - previous) / previous, 4)


def _months(ends: list[tuple[int, _Counts, int]]) -> list[Month]:
    """Each month's counts (day, counts, deleted so far) with its growth over the month before."""
    months: list[Month] = []
    for day, counts, deleted in ends:
        previous = months[-1] if months else None
        months.append(
            Month(
                day=day,
                **counts,
                deleted=deleted,
                growth_total=_growth(previous and previous["total"], counts["total"]),
                growth_valid=_growth(previous and previous["valid"], counts["valid"]),
            )
        )
    return months


@dataclass(frozen=True)
class _Arrivals:
    """What a new memory is drawn from: the pool, its vectors, the confidences stored and the noise."""

    pool: list[_Pooled]
    vectors: Vectors
    confidences: tuple[tuple[float, str], ...]
    weights: tuple[int, ...]
    sigma: float


def _simulate_year(
    p: StoreSizeParams,
    pool: list[_Pooled],
    vectors: Vectors,
    *,
    forgetting_on: bool,
    report: Progress,
    shared_clock: bool = True,
) -> Year:
    """One simulated year on scratch tables; the same seed gives both policies the same arrivals and visits."""
    stage = f"store size, forgetting {'on' if forgetting_on else 'off'}"
    rng = random.Random(p.seed)
    noise = np.random.default_rng(p.seed)
    arrivals = _Arrivals(
        pool,
        vectors,
        confidences=tuple((c, s) for c, s, _ in _CONFIDENCES),
        weights=tuple(w for _, _, w in _CONFIDENCES),
        sigma=p.noise,
    )
    month_ends = set(_month_ends(p.days))
    ends: list[tuple[int, _Counts, int]] = []
    outcomes: Counter[str] = Counter()
    forgotten: Counter[str] = Counter(dict.fromkeys(["decayed", "archived", "deleted"], 0) if forgetting_on else {})
    recalls = 0
    sim = SimClock(shared=shared_clock)
    started = time.perf_counter()
    with scratch(own_memory_tables=True):
        try:
            customers = make_customers(p.customers, "year")
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
                        outcomes[_arrive(customer, arrivals, rng, noise, at)] += 1
                if day in month_ends:
                    ends.append((day, _store_counts(sim.now()), forgotten["deleted"]))
                report(stage, day, p.days)
        finally:
            sim.restore()
    return Year(
        months=_months(ends),
        outcomes=dict(outcomes),
        forgetting=dict(forgotten),
        recalls=recalls,
        clock="shared offset" if sim.shared else "explicit now",
        seconds=round(time.perf_counter() - started, 1),
    )


def _arrive(customer: int, arrivals: _Arrivals, rng: random.Random, noise: np.random.Generator, at: datetime) -> str:
    """Store one new memory for ``customer`` through long-term memory's own decision rules."""
    index = rng.randrange(len(arrivals.pool))
    item = arrivals.pool[index]
    confidence, source = rng.choices(arrivals.confidences, arrivals.weights)[0]
    vector = arrivals.vectors[index] + noise.normal(0.0, arrivals.sigma, int(arrivals.vectors.shape[1])).astype(
        np.float32
    )
    vector /= np.linalg.norm(vector)
    candidate = longterm.Candidate(
        type=item.type, content=item.content, confidence=confidence, source=source, key=item.key, value=item.value
    )
    # Already inside the scratch transaction: the lock is held to its end, and no savepoint per memory.
    longterm.customer_lock(customer)
    return longterm.store(customer, candidate, vector, actor="consolidation", now=at).action


def store_size(p: StoreSizeParams | None = None, report: Progress = quiet, *, side_by_side: bool = False) -> StoreSize:
    """Store size month by month over ``p.days`` simulated days, with the forgetting policy on and off.

    The two years are independent (scratch tables of their own, the same seed). ``side_by_side``
    runs them at once, each in a process of its own on the explicit clock (``_years_side_by_side``);
    the processes read the settings from the environment, so it is for the command, not for tests
    that change settings or data in their own transaction.
    """
    p = p or StoreSizeParams()
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
    return StoreSize(
        on=on,
        off=off,
        pool_embedded=len(pool),
        embed_seconds=round(embed_seconds, 1),
        final_total=OnOff(on=last_on["total"], off=last_off["total"]),
        final_valid=OnOff(on=last_on["valid"], off=last_off["valid"]),
        final_growth_total=OnOff(on=last_on["growth_total"], off=last_off["growth_total"]),
        final_growth_valid=OnOff(on=last_on["growth_valid"], off=last_off["growth_valid"]),
        max_growth_second_half=OnOff(on=_max_growth_second_half(on), off=_max_growth_second_half(off)),
        vector_queries=on["recalls"],  # recall counts these in metrics:vector_queries
    )


def _max_growth_second_half(year: Year) -> float | None:
    months = year["months"]
    return max((m["growth_total"] for m in months[len(months) // 2 :] if m["growth_total"] is not None), default=None)


# What a year's process tells the parent, through a queue: progress, then its year or its failure.
@dataclass(frozen=True)
class YearProgress:
    stage: str
    done: int
    total: int


@dataclass(frozen=True)
class YearDone:
    forgetting_on: bool
    year: Year


@dataclass(frozen=True)
class YearFailed:
    forgetting_on: bool
    error: str


YearMessage = YearProgress | YearDone | YearFailed


def _years_side_by_side(
    p: StoreSizeParams, pool: list[_Pooled], vectors: Vectors, report: Progress
) -> tuple[Year, Year]:
    """Simulate the year with forgetting on and the one with it off at once, in two spawned processes.

    Spawned, not forked: this process has embedded, and a forked child of an OpenMP user hangs
    (TRAPS.md). Neither moves the shared clock (each would move it under the other); every policy
    of the year takes the simulated ``now`` explicitly.
    """
    context = multiprocessing.get_context("spawn")
    messages: multiprocessing.queues.Queue[YearMessage] = context.Queue()
    plain_pool = [item.plain() for item in pool]  # the child unpickles before Django is set up
    processes = {
        on: context.Process(
            target=spawned.simulate_year, args=(asdict(p), plain_pool, vectors, on, messages), daemon=True
        )
        for on in (True, False)
    }
    for process in processes.values():
        process.start()
    years: dict[bool, Year] = {}
    try:
        while len(years) < len(processes):
            try:
                message = messages.get(timeout=5)
            except queue.Empty:
                dead = [on for on, process in processes.items() if on not in years and not process.is_alive()]
                if dead:
                    which, code = "on" if dead[0] else "off", processes[dead[0]].exitcode
                    raise RuntimeError(f"the year with forgetting {which} died (exit {code})") from None
                continue
            if isinstance(message, YearProgress):
                report(message.stage, message.done, message.total)
            elif isinstance(message, YearDone):
                years[message.forgetting_on] = message.year
            else:
                which = "on" if message.forgetting_on else "off"
                raise RuntimeError(f"the year with forgetting {which} failed: {message.error}")
    finally:
        for process in processes.values():
            process.join(timeout=30)
            if process.is_alive():
                process.terminate()
                process.join()
    return years[True], years[False]


def simulate_year_in_child(
    params: dict[str, float],
    pool: list[tuple[str, str, str, str]],
    vectors: Vectors,
    forgetting_on: bool,
    messages: multiprocessing.queues.Queue[YearMessage],
) -> None:
    """The body of a ``_years_side_by_side`` process (Django is set up): one year, its result on ``messages``."""

    def progress(stage: str, done: int, total: int) -> None:
        messages.put(YearProgress(stage, done, total))

    try:
        year = _simulate_year(
            StoreSizeParams(**params),  # type: ignore[arg-type]  # asdict() of StoreSizeParams: its own fields
            [_Pooled(*item) for item in pool],
            vectors,
            forgetting_on=forgetting_on,
            report=progress,
            shared_clock=False,
        )
    except Exception as exc:
        messages.put(YearFailed(forgetting_on, repr(exc)))
        raise
    messages.put(YearDone(forgetting_on, year))
