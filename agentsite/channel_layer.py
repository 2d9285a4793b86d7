"""The Channels layer: channels_redis, made to outlive a Redis outage. Stock channels_redis lets a Redis error
escape ``receive`` and daphne then closes every chat socket of the process; here the receive loop logs, waits
and tries again, and joins the groups again when Redis answers, so sockets stay open and turns keep running
from PostgreSQL meanwhile. See docs/operations.md ("During an outage").
"""

from __future__ import annotations

import asyncio
import logging
from collections import defaultdict
from typing import Any

from channels_redis.core import RedisChannelLayer
from redis.exceptions import RedisError

logger = logging.getLogger(__name__)


class ResilientRedisChannelLayer(RedisChannelLayer):  # type: ignore[misc]  # channels_redis ships no types
    """A ``RedisChannelLayer`` whose receive loop waits out Redis failures and re-joins its groups."""

    def __init__(self, *args: Any, retry_seconds: float = 1.0, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.retry_seconds = retry_seconds
        self.redis_down = False
        self._members: dict[str, set[str]] = defaultdict(set)  # group -> this process's channels in it

    async def group_add(self, group: str, channel: str) -> None:
        self._members[group].add(channel)  # remembered first: re-joined after an outage even if this fails
        await super().group_add(group, channel)

    async def group_discard(self, group: str, channel: str) -> None:
        members = self._members.get(group)
        if members is not None:
            members.discard(channel)
            if not members:
                del self._members[group]
        await super().group_discard(group, channel)

    async def _brpop_with_clean(self, index: int, channel: str, timeout: float) -> bytes | None:
        # The one blocking read behind every socket's receive (channels_redis loops while it returns None).
        try:
            member: bytes | None = await super()._brpop_with_clean(index, channel, timeout)
        except (RedisError, OSError) as error:
            if not self.redis_down:
                logger.warning("channel layer lost Redis (%s): sockets stay open, live pushes wait", error)
            self.redis_down = True
            await asyncio.sleep(self.retry_seconds)
            return None
        if self.redis_down:
            self.redis_down = False
            await self._rejoin()
        return member

    async def _rejoin(self) -> None:
        joined = 0
        for group, channels in list(self._members.items()):
            for channel in list(channels):
                try:
                    await super().group_add(group, channel)
                    joined += 1
                except (RedisError, OSError):
                    self.redis_down = True  # gone again: the next failed read retries the rest
                    return
        logger.warning("channel layer has Redis again: re-joined %s group memberships", joined)
