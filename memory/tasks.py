"""Celery tasks of the memory app: thin wrappers that load ids and call the memory functions. They keep nothing;
the work and its storage belong to the modules they call. See docs/operations.md.
"""

from __future__ import annotations

import logging
import os
from typing import TypedDict
from uuid import UUID

from celery import Task
from django.conf import settings
from django.db import InterfaceError, OperationalError

from agentsite import ratelimit, timings
from agentsite.tasks import typed_task
from memory.consolidation import ConsolidationDeferred

logger = logging.getLogger(__name__)


class ProbeResult(TypedDict):
    """Which worker process embedded the probe, and the vector it got."""

    pid: int
    vector: list[float]


class ConsolidationResult(TypedDict):
    """What a consolidation run reports: its messages, outcomes and time by phase."""

    messages: int
    outcomes: dict[str, int]
    rejected: int
    skipped: str
    timings: dict[str, float]
    cpu_timings: dict[str, float]


@typed_task(name="memory.embed_probe")
def embed_probe(text: str) -> ProbeResult:
    """Embed ``text`` as a query in this worker process (proves embedding works after a fork)."""
    from memory.embeddings import get_embedder

    vector = get_embedder().embed_queries([text])[0]
    return {"pid": os.getpid(), "vector": [float(x) for x in vector]}


@typed_task(
    name="memory.consolidate_conversation",
    autoretry_for=(ConsolidationDeferred, OperationalError, InterfaceError),
    retry_backoff=5,
    retry_backoff_max=300,
    max_retries=5,
)
def consolidate_conversation(conversation_id: str, final: bool = False) -> ConsolidationResult:
    """Consolidate one conversation into long-term memory (safe to run twice or concurrently)."""
    from agentsite.logs import log_context
    from memory.consolidation import consolidate

    # The run's milliseconds by phase: the model (extraction, summary), embedding, the rest (reads, decisions).
    with timings.collect("decisions") as spent, log_context(conversation_id=conversation_id, task="consolidate"):
        report = consolidate(conversation_id, final=final)
    return {
        "messages": report.messages,
        "outcomes": report.outcomes,
        "rejected": len(report.rejected),
        "skipped": report.skipped_reason,
        "timings": spent.milliseconds(),
        "cpu_timings": spent.cpu_milliseconds(),
    }


def enqueue(task: Task, *args: object, **kwargs: object) -> bool:
    """Queue ``task`` once the caller's transaction commits (at once outside one); whether it was handed over.

    Follow-up work is queued here and nowhere else. Queueing never fails the caller: with the broker
    down the work is not lost, only late (the beat sweep consolidates what was not queued; the next
    turn asks for compression again).
    """
    try:
        task.delay_on_commit(*args, **kwargs)
    except Exception:  # broker down (Redis outage)
        logger.warning("could not queue %s for %s; it will be asked for again", task.name, args[0] if args else "")
        return False
    return True


def queue_consolidation(conversation_id: UUID | str, customer_id: int, *, final: bool = False) -> bool:
    """Queue a consolidation run within the customer's hourly budget; whether it was queued.

    A run not queued (budget spent, broker down) loses nothing: its messages stay above the
    conversation's watermark and the beat sweep consolidates them once the conversation is quiet.
    """
    if not ratelimit.allow("consolidation", customer_id, settings.MEMORY_CONSOLIDATIONS_PER_HOUR, 3600):
        logger.info(
            "consolidation of %s not queued: the customer's hourly budget is spent; the sweep will", conversation_id
        )
        return False
    return enqueue(consolidate_conversation, str(conversation_id), final=final)


@typed_task(
    name="memory.compress_conversation",
    autoretry_for=(OperationalError, InterfaceError),
    retry_backoff=5,
    max_retries=3,
)
def compress_conversation(conversation_id: str) -> int:
    """Digest the chunks of a long conversation that are due; return how many (safe to run twice)."""
    from agentsite.logs import log_context
    from memory import session as short_term

    with log_context(conversation_id=conversation_id, task="compress"):
        return len(short_term.store().compress(conversation_id))


@typed_task(name="memory.sweep_consolidation")
def sweep_consolidation() -> int:
    """Queue consolidation for every quiet conversation with unconsolidated messages; return how many."""
    from memory.consolidation import due_for_consolidation

    due = due_for_consolidation()
    for conversation_id in due:
        enqueue(consolidate_conversation, conversation_id)
    return len(due)


@typed_task(name="memory.run_forgetting")
def run_forgetting() -> dict[str, int] | None:
    """The daily forgetting run; ``None`` when another beat already ran it today."""
    from dataclasses import asdict

    from memory.forgetting import run_daily

    counts = run_daily()
    return asdict(counts) if counts is not None else None


@typed_task(name="memory.index_large_customers")
def index_large_customers() -> dict[str, list[int] | bool]:
    """Build, recount and drop the vector indexes of customers with many memories (``memory.large_customers``)."""
    from dataclasses import asdict

    from memory.large_customers import refresh

    return asdict(refresh())


@typed_task(name="memory.record_store_days")
def record_store_days() -> list[str]:
    """Count the long-term store for each day not counted yet, up to yesterday (``memory.store_days``)."""
    from memory import store_days

    return [day.isoformat() for day in store_days.record()]
