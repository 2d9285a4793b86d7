"""Diagnostic tasks: proof that a worker process is alive and reaches the broker."""

import os

from celery import shared_task


@shared_task(name="agentsite.echo")  # type: ignore[untyped-decorator]  # celery ships no types
def echo(value: object) -> dict[str, object]:
    """Return ``value`` with the pid of the process that ran the task."""
    return {"value": value, "pid": os.getpid()}


@shared_task(name="agentsite.clock_now")  # type: ignore[untyped-decorator]  # celery ships no types
def clock_now() -> str:
    """Return the project clock's now as the worker sees it (ISO 8601)."""
    from agentsite import clock

    return clock.now().isoformat()
