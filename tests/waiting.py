"""The suite's one way to wait for a condition: poll a predicate until it holds or a deadline passes.

Tests wait on state (a port answers, a row appears, a process is gone), never for a fixed time.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")


def wait_until(
    predicate: Callable[[], T], what: str | Callable[[], str], timeout: float = 60, *, interval: float = 0.05
) -> T:
    """Return ``predicate()``'s first truthy result; fail with ``what`` once ``timeout`` seconds have passed.

    ``what`` may be a function: it is called only on failure, so the message can carry what was
    seen last (a log's tail, the last state polled).
    """
    deadline = time.monotonic() + timeout
    while True:
        result = predicate()
        if result:
            return result
        if time.monotonic() > deadline:
            described = what() if callable(what) else what
            raise AssertionError(f"still not true after {timeout} s: {described}")
        time.sleep(interval)
