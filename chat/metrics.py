"""The chat's gauges on /metrics, read from PostgreSQL at scrape time (registered in ChatConfig.ready). See
docs/operations.md.
"""

from __future__ import annotations

from collections.abc import Iterator

from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric

from chat.models import Commitment, CommitmentEvent, Handoff


class ChatCollector:
    """Escalated conversations not closed, waiting for staff or taken; the shop's promises."""

    def collect(self) -> Iterator[Metric]:
        handoffs = Handoff.objects.filter(closed_at__isnull=True)
        escalations = GaugeMetricFamily(
            "agent_escalations", "Escalated conversations not closed, by whether staff took them.", labels=["status"]
        )
        escalations.add_metric(["waiting"], float(handoffs.filter(taken_by__isnull=True).count()))
        escalations.add_metric(["taken"], float(handoffs.filter(taken_by__isnull=False).count()))
        yield escalations
        promises = GaugeMetricFamily(
            "agent_commitments", "The shop's promises not closed, by status.", labels=["status"]
        )
        for status in (Commitment.Status.OPEN, Commitment.Status.OVERDUE):
            promises.add_metric([status], float(Commitment.objects.filter(status=status).count()))
        yield promises
        overdue = CounterMetricFamily(
            "agent_commitments_overdue", "Promises marked overdue by beat (each once; an erased customer's leave)."
        )
        overdue.add_metric([], float(CommitmentEvent.objects.filter(kind="overdue").count()))
        yield overdue
