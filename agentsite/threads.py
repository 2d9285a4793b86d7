"""The web process's pool threads run at a lower CPU priority than its event loop, so that under load the
scheduler runs the loop first whenever it is ready and every socket, its pings included, is answered on time
(``AGENT_POOL_NICENESS``; 0 turns it off). See docs/bench.md ("Per core").
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
