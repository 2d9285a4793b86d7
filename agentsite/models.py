"""Records kept by the infrastructure: one row per call to a language model. See docs/dashboard.md."""

from __future__ import annotations

from decimal import Decimal
from typing import TypedDict

from django.db import models


class CallTotals(TypedDict):
    """Sums over some model calls; the sums are None when there were no calls."""

    calls: int
    prompt_tokens: int | None
    completion_tokens: int | None
    cost_usd: Decimal | None


class ModelCallQuerySet(models.QuerySet["ModelCall"]):
    def totals(self) -> CallTotals:
        """Sum tokens and cost over the calls in this queryset."""
        sums = self.aggregate(
            calls=models.Count("id"),
            prompt_tokens=models.Sum("prompt_tokens"),
            completion_tokens=models.Sum("completion_tokens"),
            cost_usd=models.Sum("cost_usd"),
        )
        return CallTotals(
            calls=sums["calls"],
            prompt_tokens=sums["prompt_tokens"],
            completion_tokens=sums["completion_tokens"],
            cost_usd=sums["cost_usd"],
        )


class ModelCall(models.Model):
    """One request to the model endpoint: what for, which model, tokens, latency, cost, outcome."""

    class Purpose(models.TextChoices):
        CHAT = "chat"
        SUMMARISE = "summarise"
        EXTRACT = "extract"

    created_at = models.DateTimeField(db_index=True)
    purpose = models.CharField(max_length=20, choices=Purpose.choices)
    model = models.CharField(max_length=100)
    streamed = models.BooleanField(default=False)
    prompt_tokens = models.PositiveIntegerField(default=0)
    completion_tokens = models.PositiveIntegerField(default=0)
    latency_ms = models.PositiveIntegerField(default=0)
    cost_usd = models.DecimalField(max_digits=12, decimal_places=6, default=0)
    ok = models.BooleanField(default=True)
    error = models.CharField(max_length=300, blank=True)
    conversation_id = models.UUIDField(null=True, blank=True, db_index=True)

    objects = ModelCallQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        outcome = "ok" if self.ok else f"failed: {self.error}"
        return f"{self.purpose} on {self.model} ({self.prompt_tokens}+{self.completion_tokens} tokens, {outcome})"


class BreakerOpening(models.Model):
    """One time a process's circuit breaker stopped calling the model endpoint (the staff dashboard charts them).

    The breaker's live state is in the metrics (``agentsite.metrics.publish_breaker``); this is its history.
    """

    created_at = models.DateTimeField(db_index=True)
    model = models.CharField(max_length=100)
    failures = models.PositiveIntegerField()

    def __str__(self) -> str:
        return f"breaker opened for {self.model} after {self.failures} failures"
