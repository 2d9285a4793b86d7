"""What the staff dashboard charts and nothing else keeps: one row per customer turn, one per takeover. A turn's
row never fails the turn; a takeover's is written in the takeover's own transaction. See docs/dashboard.md.
"""

from __future__ import annotations

import logging
from datetime import datetime
from typing import TYPE_CHECKING
from uuid import UUID

from django.db import DatabaseError

from agentsite import clock
from chat.models import Takeover, TurnStat
from memory.states import AgentState

if TYPE_CHECKING:
    from chat.agent import TurnResult

logger = logging.getLogger(__name__)


def turn_outcome(result: TurnResult | None) -> str:
    """A finished turn's outcome as the dashboard counts it (``None``: the turn raised)."""
    if result is None or result.failed:
        return TurnStat.Outcome.FAILED
    if result.escalated:
        return TurnStat.Outcome.ESCALATED
    if result.message_id is None:
        return TurnStat.Outcome.SILENT
    return TurnStat.Outcome.RESOLVED if result.state == AgentState.RESOLVED else TurnStat.Outcome.ANSWERED


def record_turn(
    conversation_id: UUID | str,
    *,
    outcome: str,
    language: str,
    recall_mode: str,
    vector_queries: int,
    memories_used: int,
    seconds: float,
    at: datetime | None = None,
) -> None:
    """Store one turn's row (``outcome`` from ``turn_outcome``; ``language`` "" if the turn failed first)."""
    try:
        TurnStat.objects.create(
            created_at=at or clock.now(),
            conversation_id=conversation_id,
            language=language,
            recall_mode=recall_mode,
            vector_queries=min(vector_queries, 32767),
            memories_used=min(memories_used, 32767),
            latency_ms=max(0, round(seconds * 1000)),
            outcome=outcome,
        )
    except DatabaseError:
        logger.warning("could not record a turn for the dashboard", exc_info=True)


def record_takeover(escalated_at: datetime, taken_at: datetime) -> None:
    """Store how long a customer handed to staff at ``escalated_at`` waited until ``taken_at``."""
    waited = round((taken_at - escalated_at).total_seconds())
    Takeover.objects.create(created_at=taken_at, waited_seconds=max(0, waited))
