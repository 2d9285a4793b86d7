"""The site's Celery tasks, typed: ``typed_task`` (``shared_task`` with the type of the function it wraps, for
every app's tasks), and diagnostic tasks that prove a worker process is alive and reaches the broker.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import TYPE_CHECKING, ParamSpec, Protocol, TypeVar

from celery import shared_task

if TYPE_CHECKING:
    from celery.result import AsyncResult

_P = ParamSpec("_P")
_R = TypeVar("_R")
_R_co = TypeVar("_R_co", covariant=True)


class TypedTask(Protocol[_P, _R_co]):
    """What callers use of a Celery task, typed by the function it runs (Celery ships no types)."""

    name: str

    def __call__(self, *args: _P.args, **kwargs: _P.kwargs) -> _R_co: ...

    def delay(self, *args: _P.args, **kwargs: _P.kwargs) -> AsyncResult: ...

    def delay_on_commit(self, *args: _P.args, **kwargs: _P.kwargs) -> None: ...


def typed_task(**options: object) -> Callable[[Callable[_P, _R]], TypedTask[_P, _R]]:
    """``shared_task(**options)``, with the type of the task it makes."""
    decorator: Callable[[Callable[_P, _R]], TypedTask[_P, _R]] = shared_task(**options)
    return decorator


@typed_task(name="agentsite.echo")
def echo(value: object) -> dict[str, object]:
    """Return ``value`` with the pid of the process that ran the task."""
    return {"value": value, "pid": os.getpid()}


@typed_task(name="agentsite.clock_now")
def clock_now() -> str:
    """Return the project clock's now as the worker sees it (ISO 8601)."""
    from agentsite import clock

    return clock.now().isoformat()
