"""Events for open sockets over the channel layer: a conversation's (``conversation.<id>``) and the staff inbox's
(``staff.inbox``). See docs/protocol.md.
"""

from __future__ import annotations

import logging
from typing import Any
from uuid import UUID

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer

logger = logging.getLogger(__name__)


INBOX_GROUP = "staff.inbox"

# A channel-layer message to the sockets of a group: {"type": the handler's name, ...}.
Event = dict[str, Any]


def push(conversation_id: UUID | str, event: Event) -> None:
    """Send ``event`` to the conversation's open sockets. What it says is stored already, so with the layer
    down a socket reads it from the history on its next load."""
    _send(f"conversation.{conversation_id}", event)


def inbox_changed() -> None:
    """Tell the open staff inboxes that an escalation was opened, taken, handed back or closed."""
    _send(INBOX_GROUP, {"type": "inbox.changed"})


def _send(group: str, event: Event) -> None:
    try:
        async_to_sync(get_channel_layer().group_send)(group, event)
    except Exception:  # noqa: BLE001 - stored anyway: sockets see it on their next load
        logger.warning("channel layer unavailable; a %s event not pushed live", event["type"])
