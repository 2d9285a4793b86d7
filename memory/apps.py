"""The memory app's configuration: on start-up it registers the tiers' gauges on /metrics (``memory.metrics``);
it stores nothing itself. See docs/operations.md ("Metrics").
"""

from django.apps import AppConfig


class MemoryConfig(AppConfig):
    """The three memory tiers: working, short-term (Redis + durable copy) and long-term (pgvector)."""

    name = "memory"
    verbose_name = "Memory"

    def ready(self) -> None:
        from agentsite import metrics
        from memory.metrics import MemoryCollector

        metrics.register(MemoryCollector())
