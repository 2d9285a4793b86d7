"""Fixed-window counters in Redis: how often one customer may do one thing per window. Every budget of the site
is one call here, with its own key and its limit from settings; windows follow the project's clock, and with
Redis unreachable the call allows, because the limits protect the service and must not take it down with
Redis. See docs/operations.md.
"""

from __future__ import annotations

import logging

from agentsite import clock

logger = logging.getLogger(__name__)


def allow(name: str, subject: int | str, limit: int, window_seconds: int) -> bool:
    """Count one use of ``name`` by ``subject``; whether it is within ``limit`` uses in the current window."""
    from django_redis import get_redis_connection

    window = int(clock.now().timestamp() // window_seconds)
    key = f"rate:{subject}:{name}:{window}"  # rate:<customer>:* is what erasure deletes (chat/privacy.py)
    count: int
    try:
        pipe = get_redis_connection("default").pipeline()
        pipe.incr(key)
        pipe.expire(key, 2 * window_seconds)
        count, _ = pipe.execute()
    except Exception:
        logger.warning("rate limit %s unavailable (Redis down): allowed", name)
        return True
    return count <= limit
