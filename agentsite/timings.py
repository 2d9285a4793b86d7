"""Where the time of one unit of work went, by phase: cheap, optional, per thread. ``collect(root)`` opens a
collector for a turn or a run, ``phase(name)`` below it charges its wall and thread-CPU time to ``name``,
exclusive of nested phases; with no collector open it does nothing. The benchmarks read the figures; the
product only fills them. See docs/bench.md.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Iterator
from contextvars import ContextVar
from dataclasses import dataclass
from functools import wraps
from typing import Any, ParamSpec, TypeVar

P = ParamSpec("P")
R = TypeVar("R")


@dataclass(slots=True)
class _Open:
    """A phase being timed: when it started, and what the phases opened inside it spent."""

    name: str
    started: float
    cpu_started: float
    nested: float = 0.0
    nested_cpu: float = 0.0


class Timings:
    """Exclusive seconds per phase for one unit of work: wall time, and this thread's CPU time."""

    def __init__(self, root: str) -> None:
        self.root = root
        self.seconds: dict[str, float] = {}
        self.cpu_seconds: dict[str, float] = {}
        self._stack: list[_Open] = []

    def _enter(self, name: str) -> None:
        self._stack.append(_Open(name, time.perf_counter(), time.thread_time()))

    def _exit(self) -> None:
        done = self._stack.pop()
        spent, cpu = time.perf_counter() - done.started, time.thread_time() - done.cpu_started
        self.seconds[done.name] = self.seconds.get(done.name, 0.0) + spent - done.nested
        self.cpu_seconds[done.name] = self.cpu_seconds.get(done.name, 0.0) + cpu - done.nested_cpu
        if self._stack:
            self._stack[-1].nested += spent
            self._stack[-1].nested_cpu += cpu

    def milliseconds(self) -> dict[str, float]:
        """Wall time so far by phase, in milliseconds."""
        return {name: seconds * 1000 for name, seconds in self.seconds.items()}

    def cpu_milliseconds(self) -> dict[str, float]:
        """This thread's CPU time so far by phase, in milliseconds (not other processes': PostgreSQL, Redis)."""
        return {name: seconds * 1000 for name, seconds in self.cpu_seconds.items()}


_current: ContextVar[Timings | None] = ContextVar("timings", default=None)


@contextlib.contextmanager
def collect(root: str) -> Iterator[Timings]:
    """Collect phase timings inside the block; time no phase claims is charged to ``root``."""
    timings = Timings(root)
    token = _current.set(timings)
    timings._enter(root)
    try:
        yield timings
    finally:
        timings._exit()
        _current.reset(token)


@contextlib.contextmanager
def _phase(timings: Timings, name: str) -> Iterator[None]:
    timings._enter(name)
    try:
        yield
    finally:
        timings._exit()


def phase(name: str) -> contextlib.AbstractContextManager[None]:
    """Charge the time inside the block to ``name`` (nothing happens with no collector open)."""
    timings = _current.get()
    if timings is None:
        return contextlib.nullcontext()
    return _phase(timings, name)


def add_cpu(name: str, seconds: float) -> None:
    """Charge CPU seconds spent for this unit of work in another thread to ``name`` (wall time is not)."""
    timings = _current.get()
    if timings is not None:
        timings.cpu_seconds[name] = timings.cpu_seconds.get(name, 0.0) + seconds


class _TimedContext:
    """A context manager whose entering and leaving (not its block) are charged to one phase."""

    def __init__(self, target: contextlib.AbstractContextManager[Any], name: str) -> None:
        self._target = target
        self._name = name

    def __enter__(self) -> Any:
        with phase(self._name):
            return self._target.__enter__()

    def __exit__(self, *exc_info: Any) -> bool | None:
        with phase(self._name):
            return self._target.__exit__(*exc_info)


class Timed:
    """A proxy that charges every method call of ``target`` to one phase (a returned context
    manager's entering and leaving too: a batch's lock and its flush)."""

    def __init__(self, target: Any, name: str) -> None:
        self._target = target
        self._name = name

    def __getattr__(self, attribute: str) -> Any:
        value = getattr(self._target, attribute)
        if not callable(value):
            return value

        @wraps(value)
        def timed(*args: Any, **kwargs: Any) -> Any:
            with phase(self._name):
                result = value(*args, **kwargs)
            if isinstance(result, contextlib.AbstractContextManager):
                return _TimedContext(result, self._name)
            return result

        return timed


def timed(name: str) -> Callable[[Callable[P, R]], Callable[P, R]]:
    """Decorate a function so that its calls are charged to ``name``."""

    def decorate(function: Callable[P, R]) -> Callable[P, R]:
        @wraps(function)
        def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
            with phase(name):
                return function(*args, **kwargs)

        return wrapper

    return decorate
