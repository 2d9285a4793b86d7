"""The process's bounded thread pools for blocking work, and running a piece of a turn beside it.

Three pools, each sized by a setting and created on first use: ``turn`` runs the agent's turns
(``AGENT_TURN_WORKERS``), ``connect`` opens sockets (``AGENT_CONNECT_WORKERS``), and ``aside`` runs the
pieces of a turn that wait on PostgreSQL while the turn's own thread waits on something else (one per
turn thread). Every task checks its thread's database connection before and closes it after when
due, as Django does around a request: pool threads serve no requests, so nothing else would.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

from django.conf import settings
from django.db import close_old_connections

from agentsite import timings
from agentsite.logs import run_in_context

_pools: dict[str, ThreadPoolExecutor] = {}
_pools_lock = threading.Lock()


def pool(kind: str = "turn") -> ThreadPoolExecutor:
    """The process's bounded pool for blocking work of one kind: ``turn``, ``connect`` or ``aside``."""
    with _pools_lock:
        if kind not in _pools:
            workers = {"turn": settings.AGENT_TURN_WORKERS, "connect": settings.AGENT_CONNECT_WORKERS,
                       "aside": settings.AGENT_TURN_WORKERS}[kind]  # fmt: skip
            _pools[kind] = ThreadPoolExecutor(max_workers=workers, thread_name_prefix=kind)
        return _pools[kind]


def with_fresh_connections(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """Call ``fn`` between two ``close_old_connections``: a pool thread's task is its request."""
    close_old_connections()
    try:
        return fn(*args, **kwargs)
    finally:
        close_old_connections()


@contextlib.contextmanager
def aside(fn: Callable[..., Any], *args: Any, phase: str) -> Iterator[Future]:
    """Run ``fn(*args)`` in the ``aside`` pool, on a database connection of its own, while the block runs.

    The block's end waits for it, whatever happened in the block, so nothing it does outlives the
    caller's locks; yields a future that holds its result (or its exception) once the block is over.
    The wait at the end and ``fn``'s CPU are charged to ``phase`` of the caller's timings. ``fn`` runs in
    a copy of the caller's context (its log fields, the transitions a turn observes), outside the
    caller's timing collector, which belongs to the caller's thread.
    """
    work = run_in_context(timings.apart(with_fresh_connections))
    submitted = pool("aside").submit(work, fn, *args)
    outcome: Future = Future()
    try:
        yield outcome
    finally:
        with timings.phase(phase):
            try:
                value, cpu_seconds = submitted.result()
            except BaseException as error:  # noqa: BLE001 - handed over through ``outcome``
                outcome.set_exception(error)
            else:
                timings.add_cpu(phase, cpu_seconds)
                outcome.set_result(value)
