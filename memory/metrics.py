"""The memory tiers' gauges on /metrics, read from PostgreSQL at scrape time and kept nowhere (registered in
MemoryConfig.ready). See docs/operations.md ("Metrics").
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime

from django.db import connection
from prometheus_client.core import GaugeMetricFamily, Metric

from agentsite import clock
from memory.models import Conversation, ConversationMessage, MemoryConflict


class MemoryCollector:
    """Consolidation lag and backlog, and the conflicts waiting for staff."""

    def collect(self) -> Iterator[Metric]:
        lag_seconds, pending = consolidation_lag(clock.now())
        lag = GaugeMetricFamily(
            "agent_consolidation_lag_seconds", "Age of the oldest message not yet consolidated into long-term memory."
        )
        lag.add_metric([], lag_seconds)
        yield lag
        waiting = GaugeMetricFamily("agent_conversations_unconsolidated", "Conversations with unconsolidated messages.")
        waiting.add_metric([], float(pending))
        yield waiting
        conflicts = GaugeMetricFamily("agent_memory_conflicts_open", "Memory conflicts waiting for staff.")
        conflicts.add_metric([], float(MemoryConflict.objects.filter(status=MemoryConflict.Status.OPEN).count()))
        yield conflicts


def consolidation_lag(now: datetime) -> tuple[float, int]:
    """Seconds since the oldest unconsolidated message was written, and how many conversations have one."""
    conversations, messages = Conversation._meta.db_table, ConversationMessage._meta.db_table
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT min(m.created_at), count(*) FROM {conversations} c JOIN {messages} m "  # noqa: S608
            "ON m.conversation_id = c.id AND m.seq = c.consolidated_seq + 1 WHERE c.last_seq > c.consolidated_seq"
        )
        oldest, count = cursor.fetchone()
    return (max((now - oldest).total_seconds(), 0.0) if oldest else 0.0), count
