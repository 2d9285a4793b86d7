"""A few weeks of made-up history for the demo, so the staff dashboard has something to draw. It goes through the
product's own writers with past times, belongs to customers of its own who cannot log in, and is random but
seeded, so every demo has the same history; ``seed_demo`` calls ``backfill`` once. See docs/dashboard.md.
"""

from __future__ import annotations

import random
from datetime import UTC, date, datetime, time, timedelta
from decimal import Decimal
from typing import TYPE_CHECKING

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import transaction

from agentsite import clock, llm
from agentsite.models import ModelCall
from chat import records
from chat.models import ConversationRating, TurnStat
from memory import session as short_term
from memory import store_days
from memory.consolidation import record_run
from memory.embeddings import get_embedder
from memory.longterm import Candidate, customer_lock, delete_memory, resolve_conflict, store
from memory.models import LongTermMemory, MemoryConflict, MemoryType, Source

if TYPE_CHECKING:
    import numpy as np
    from django.contrib.auth.models import User
    from numpy.typing import NDArray

    Vectors = dict[str, NDArray[np.float32]]  # each of SAID's sentences, embedded once

DAYS = 42  # growth is against 30 days before: the last 12 days have it
CUSTOMERS = 8
# What the history's customers told the shop, in both languages: (type, source, key, value, content).
SAID = [
    (MemoryType.PREFERENCE, Source.CUSTOMER_STATED, "", "", "Prefers deliveries after 6 pm on weekdays"),
    (MemoryType.PREFERENCE, Source.CUSTOMER_STATED, "", "", "希望快递放在小区门口的丰巢柜"),
    (MemoryType.FACT, Source.CUSTOMER_STATED, "", "", "Buys office supplies for a team of twelve"),
    (MemoryType.FACT, Source.CUSTOMER_STATED, "", "", "家里有一只对羽毛过敏的猫"),
    (MemoryType.EXPERIENCE, Source.SYSTEM_RECORD, "", "", "A refund for a cracked mug was approved and paid"),
    (MemoryType.EXPERIENCE, Source.SYSTEM_RECORD, "", "", "上次换货因为尺码不合适，已经顺利完成"),
    (MemoryType.PREFERENCE, Source.AGENT_INFERRED, "", "", "Seems to prefer short answers with the tracking link"),
    (MemoryType.FACT, Source.CUSTOMER_STATED, "", "", "Works night shifts and sleeps until noon"),
    (MemoryType.PREFERENCE, Source.CUSTOMER_STATED, "", "", "不喜欢电话联系，请发短信"),
    (MemoryType.FACT, Source.CUSTOMER_STATED, "", "", "Is planning a move to Shenzhen next spring"),
    # Keyed values that change or disagree, so that supersessions and conflicts happen as they do.
    (MemoryType.PREFERENCE, Source.CUSTOMER_STATED, "preferred_carrier", "sf_express", "Prefers SF Express"),
    (MemoryType.PREFERENCE, Source.CUSTOMER_STATED, "preferred_carrier", "jd", "更喜欢用京东物流"),
    (MemoryType.PREFERENCE, Source.AGENT_INFERRED, "preferred_carrier", "ems", "Seems to prefer EMS"),
    (MemoryType.FACT, Source.CUSTOMER_STATED, "birthday", "03-15", "Birthday is on March 15"),
    (MemoryType.FACT, Source.AGENT_INFERRED, "birthday", "05-02", "生日可能是五月二日"),
]


def backfill(*, days: int = DAYS, today: date | None = None) -> bool:
    """Write ``days`` days of history ending yesterday, unless some is there; return whether it wrote."""
    today = today or clock.now().date()
    first = datetime.combine(today - timedelta(days=days), time.min, tzinfo=UTC)
    if TurnStat.objects.filter(created_at__lt=first + timedelta(days=days)).exists():
        return False
    rng = random.Random(20261204)
    customers = _customers()
    texts = [content for *_, content in SAID]
    vectors = dict(zip(texts, get_embedder().embed_passages(texts), strict=True))
    for offset in range(days):
        day = first + timedelta(days=offset)
        busy = 1 + 0.5 * (day.weekday() < 5) + offset / days  # busier on weekdays, and growing
        for _ in range(round(rng.uniform(3, 6) * busy)):
            _conversation(rng, day, rng.choice(customers), vectors)
        _model_calls(rng, day, busy)
        if offset == days // 3:  # an afternoon the endpoint was down
            llm.record_opening(settings.LLM_MAIN_MODEL, settings.LLM_BREAKER_THRESHOLD, at=day + timedelta(hours=15))
    store_days.record(days=days + 1, today=today)
    for conflict in MemoryConflict.objects.filter(status=MemoryConflict.Status.OPEN).order_by("pk")[::2]:
        resolve_conflict(conflict.pk, "keep_current", actor="staff:demo")  # half the queue reviewed today
    return True


def _customers() -> list[User]:
    user_model = get_user_model()
    made: list[User] = []
    for n in range(1, CUSTOMERS + 1):
        user, created = user_model.objects.get_or_create(username=f"past-customer-{n:02d}")
        if created:
            user.set_unusable_password()
            user.save()
        made.append(user)
    return made


def _conversation(rng: random.Random, day: datetime, customer: User, vectors: Vectors) -> None:
    at = day + timedelta(hours=rng.uniform(8, 21))
    session = short_term.store().start(customer.pk, now=at)
    language = "zh" if rng.random() < 0.55 else "en"
    used_memory = rng.random() < 0.6
    turns = rng.randint(2, 6)
    ending = rng.choices(["resolved", "escalated", "answered"], weights=[70, 8, 22])[0]
    for turn in range(turns):
        last = turn == turns - 1
        outcome = TurnStat.Outcome.ANSWERED
        if last and ending != "answered":
            outcome = TurnStat.Outcome.RESOLVED if ending == "resolved" else TurnStat.Outcome.ESCALATED
        seconds = rng.lognormvariate(0.2 if language == "en" else 0.35, 0.35)
        records.record_turn(
            session.id,
            outcome=TurnStat.Outcome.FAILED if rng.random() < 0.01 else outcome,
            language=language,
            recall_mode="active",
            vector_queries=1,
            memories_used=rng.randint(1, 3) if used_memory and turn == 0 else 0,
            seconds=seconds,
            at=at,
        )
        at += timedelta(seconds=seconds + rng.uniform(20, 90))
    if ending == "escalated":
        records.record_takeover(at, at + timedelta(minutes=rng.lognormvariate(1.6, 0.6)))
    short_term.store().end(session.id, now=at)
    _consolidate(rng, customer, vectors, at)
    if rng.random() < 0.1:  # "forget that": from the customer's page of what we remember
        memories = list(LongTermMemory.objects.valid(at).filter(customer=customer).order_by("pk"))
        if memories:
            delete_memory(rng.choice(memories), actor="customer", reason="the customer deleted it", now=at)
    if rng.random() < 0.35:
        score = min(5, max(1, round(rng.gauss(4.4 if used_memory else 3.9, 0.8))))
        ConversationRating.objects.create(conversation_id=session.id, score=score, created_at=at)


def _consolidate(rng: random.Random, customer: User, vectors: Vectors, at: datetime) -> None:
    """Store one to three of the things the history's customers say, as a consolidation run would."""
    outcomes: dict[str, int] = {}
    with transaction.atomic():
        customer_lock(customer.pk)
        for kind, source, key, value, content in rng.sample(SAID, rng.randint(1, 3)):
            candidate = Candidate(type=kind, content=content, confidence=0.8, source=source, key=key, value=value)
            outcome = store(customer.pk, candidate, vectors[content], actor="consolidation", now=at)
            outcomes[outcome.action] = outcomes.get(outcome.action, 0) + 1
        record_run(outcomes, int(rng.random() < 0.1), at=at)


def _model_calls(rng: random.Random, day: datetime, busy: float) -> None:
    """The day's calls: replies on the main model, summaries and extraction on the cheap one."""
    calls = []
    for _ in range(round(rng.uniform(40, 60) * busy)):
        main = rng.random() < 0.7
        model = settings.LLM_MAIN_MODEL if main else settings.LLM_CHEAP_MODEL
        prompt, completion = (rng.randint(900, 2400), rng.randint(40, 300)) if main else (rng.randint(400, 1500), 80)
        ok = rng.random() > 0.015
        calls.append(
            ModelCall(
                created_at=day + timedelta(hours=rng.uniform(8, 22)),
                purpose=ModelCall.Purpose.CHAT if main else rng.choice([ModelCall.Purpose.EXTRACT, "summarise"]),
                model=model,
                streamed=main,
                prompt_tokens=prompt if ok else 0,
                completion_tokens=completion if ok else 0,
                latency_ms=rng.randint(300, 2500) if main else rng.randint(150, 900),
                cost_usd=llm.cost_of(model, prompt, completion) if ok else Decimal(0),
                ok=ok,
                error="" if ok else "APITimeoutError: Request timed out.",
            )
        )
    ModelCall.objects.bulk_create(calls)
