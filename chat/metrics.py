"""The chat's gauges on /metrics, read from PostgreSQL at scrape time (registered in ChatConfig.ready)."""

from __future__ import annotations

from collections.abc import Iterator

from prometheus_client.core import GaugeMetricFamily, Metric

from chat.models import Handoff


class ChatCollector:
    """Escalated conversations not closed, waiting for staff or taken."""

    def collect(self) -> Iterator[Metric]:
        handoffs = Handoff.objects.filter(closed_at__isnull=True)
        escalations = GaugeMetricFamily(
            "agent_escalations", "Escalated conversations not closed, by whether staff took them.", labels=["status"]
        )
        escalations.add_metric(["waiting"], float(handoffs.filter(taken_by__isnull=True).count()))
        escalations.add_metric(["taken"], float(handoffs.filter(taken_by__isnull=False).count()))
        yield escalations
