"""The scratch setup the evaluation's figures share: a transaction that is always rolled back, scratch
memory tables in a schema of their own for the forgetting policy, scratch customers, a scratch shop
(orders, items, shipments, tracking events), and the simulated clock that moves the shared one only
where the settings allow. How the figures use it: docs/eval.md.
"""

from __future__ import annotations

import contextlib
import random
import uuid
from collections.abc import Callable, Iterator
from datetime import datetime, timedelta
from decimal import Decimal
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.hashers import make_password
from django.db import connection, transaction
from django.db.backends.utils import CursorWrapper

from agentsite import clock
from chat.models import CustomerProfile, Order, OrderItem, Shipment, TrackingEvent
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

Progress = Callable[[str, int, int], None]  # (stage, done, total)


def quiet(stage: str, done: int, total: int) -> None:
    """Report no progress (the default of every figure)."""


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


def _fetch_one(cursor: CursorWrapper) -> tuple[Any, ...]:
    row: tuple[Any, ...] | None = cursor.fetchone()
    if row is None:
        raise RuntimeError("the query returned no row")
    return row


def _use_scratch_tables() -> None:
    """Put empty copies of the policy's tables first on this transaction's search path."""
    schema = f"hsim_{uuid.uuid4().hex[:12]}"
    with connection.cursor() as cursor:
        cursor.execute("SELECT current_schema(), current_setting('search_path')")
        home, path = _fetch_one(cursor)
        cursor.execute(f'CREATE SCHEMA "{schema}"')
        for model in POLICY_TABLES:
            table = model._meta.db_table
            cursor.execute(f'CREATE TABLE "{schema}"."{table}" (LIKE "{home}"."{table}" INCLUDING ALL)')
            cursor.execute("SELECT reloptions FROM pg_class WHERE oid = %s::regclass", [f'"{home}"."{table}"'])
            options = _fetch_one(cursor)[0]
            if options:  # fillfactor 70 keeps recall's access bookkeeping a HOT update
                cursor.execute(f'ALTER TABLE "{schema}"."{table}" SET ({", ".join(options)})')
        cursor.execute(f'SET LOCAL search_path TO "{schema}", {path}')
        cursor.execute(
            "SELECT relnamespace::regnamespace::text FROM pg_class WHERE oid = to_regclass(%s)",
            [LongTermMemory._meta.db_table],
        )
        resolved = _fetch_one(cursor)[0]
    if resolved != schema:
        raise RuntimeError(f"scratch tables not in use: {LongTermMemory._meta.db_table} is in schema {resolved}")


def make_customers(count: int, tag: str, *, languages: tuple[str, ...] = ()) -> list[int]:
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


class SimClock:
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


# (Chinese, English) pairs: the memories of the simulated year and the scratch shop's orders use them.
CITIES = [
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
PRODUCTS = [
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


class ScratchShop:
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
        chosen = [rng.choice(PRODUCTS)[0 if zh else 1] for _ in range(items)]
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
            cities = [c[0 if zh else 1] for c in CITIES]
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
