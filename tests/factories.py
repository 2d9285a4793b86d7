"""Builders for what tests start from: working-memory entries and long-term memories.

One place, so a test names only the values it cares about and the rest stay the same suite-wide.
"""

from __future__ import annotations

from datetime import UTC, datetime

from django.db import transaction

from agentsite import clock
from memory.embeddings import get_embedder
from memory.longterm import Candidate, insert
from memory.models import LongTermMemory
from memory.working import Entry, Role, ToolCall


def entry(role: Role | str, content: str = "", **kwargs) -> Entry:
    """Build a working-memory entry stamped now (real time: entries carry no policy)."""
    return Entry.create(role, content, timestamp=datetime.now(UTC), **kwargs)


def tool_call(call_id: str, name: str = "lookup_order", arguments: str = '{"order_number": "ORD-2025-0001"}') -> Entry:
    return entry(Role.TOOL_CALL, tool_calls=[ToolCall(call_id, name, arguments)])


def tool_result(call_id: str, content: str) -> Entry:
    return entry(Role.TOOL_RESULT, content, tool_call_id=call_id)


def remember(
    customer,
    content: str,
    *,
    key: str = "",
    value: str = "",
    confidence: float = 0.9,
    source: str = "customer_stated",
    type: str = "fact",
) -> LongTermMemory:
    """Insert one memory for ``customer`` as it is (no dedup, no conflict check), embedded for real."""
    candidate = Candidate(type=type, content=content, confidence=confidence, key=key, value=value, source=source)
    with transaction.atomic():
        return insert(
            customer.pk, candidate, get_embedder().embed_passages([content])[0], actor="test", now=clock.now()
        )
