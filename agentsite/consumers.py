"""A diagnostic websocket: echoes frames back through the channel layer."""

from __future__ import annotations

import json

from channels.generic.websocket import AsyncWebsocketConsumer


class EchoConsumer(AsyncWebsocketConsumer):
    """Send every text frame to a group and relay the group's messages back.

    Going through the Redis channel layer (rather than answering directly) proves that the
    layer's connections work, including after the socket has been idle for a while.
    """

    async def connect(self) -> None:
        self.group = f"echo.{self.channel_name.replace('!', '_')}"
        await self.channel_layer.group_add(self.group, self.channel_name)
        await self.accept()

    async def disconnect(self, code: int) -> None:
        await self.channel_layer.group_discard(self.group, self.channel_name)

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        await self.channel_layer.group_send(self.group, {"type": "echo.message", "text": text_data or ""})

    async def echo_message(self, event: dict) -> None:
        await self.send(text_data=json.dumps({"type": "echo", "text": event["text"]}))
