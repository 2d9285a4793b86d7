"""Events for a conversation's open sockets, sent over the channel layer (``conversation.<id>`` group)."""

from __future__ import annotations

import logging
from uuid import UUID

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer

logger = logging.getLogger(__name__)


def push(conversation_id: UUID | str, event: dict) -> None:
    """Send ``event`` to the conversation's open sockets. What it says is stored already, so with the layer
    down a socket reads it from the history on its next load."""
    try:
        async_to_sync(get_channel_layer().group_send)(f"conversation.{conversation_id}", event)
    except Exception:  # noqa: BLE001 - stored anyway: the customer sees it in the history on reconnect
        logger.warning("channel layer unavailable; a %s event not pushed live", event["type"])
