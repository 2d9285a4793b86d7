"""The chat's Celery tasks: thin wrappers around ``chat.commitments``."""

from __future__ import annotations

from agentsite.tasks import typed_task


@typed_task(name="chat.mark_overdue_commitments")
def mark_overdue_commitments() -> int:
    """Mark promises past their due time overdue (beat, every ``COMMITMENT_OVERDUE_CHECK_SECONDS``)."""
    from chat import commitments

    return len(commitments.mark_overdue())
