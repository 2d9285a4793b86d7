"""Fixed-window counters in Redis: how often one customer may do one thing per window.

Every budget of the site (messages, new conversations and history frames per minute, consolidations
per hour) is one call here, with its own key and its limit from settings (docs/operations.md lists
them). A window is counted by the project's clock, so tests move it instead of waiting. With Redis
unreachable the call allows: the limits protect the service, they must not take it down with Redis.
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
    try:
        pipe = get_redis_connection("default").pipeline()
        pipe.incr(key)
        pipe.expire(key, 2 * window_seconds)
        count, _ = pipe.execute()
    except Exception:
        logger.warning("rate limit %s unavailable (Redis down): allowed", name)
        return True
    return count <= limit
