"""The web process's pool threads run at a lower CPU priority than its event loop.

daphne serves every socket from one event-loop thread; turns, socket opening and active recall run
in thread pools beside it. Under load those threads and the loop compete for the CPU, and the loop
then answers every socket late, its pings included. Raising the pool threads' niceness (Linux sets
it per thread; raising it needs no privilege) lets the scheduler run the loop first whenever it is
ready: under 200 customers arriving at once its worst lag fell to less than half (docs/bench.md,
"Per core"). ``AGENT_POOL_NICENESS`` 0 turns it off.
"""

from __future__ import annotations

import contextlib
import os
import threading

from django.conf import settings


def lower_priority() -> None:
    """Give the calling thread ``AGENT_POOL_NICENESS`` (a pool's ``initializer``); a no-op where unsupported."""
    niceness = settings.AGENT_POOL_NICENESS
    if niceness > 0 and hasattr(os, "setpriority"):
        with contextlib.suppress(OSError):
            os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), niceness)
