"""The staff inbox's websocket: live escalations, the open conversation's messages, takeover and replies. Staff
only; actions go through ``chat.handoff``, whose lock decides a race to take a conversation. See
docs/protocol.md ("Staff socket").
"""

from __future__ import annotations

import json
import logging

from channels.generic.websocket import AsyncWebsocketConsumer
from django.conf import settings
from django.db import InterfaceError, OperationalError

from chat import conversations, inbox, live
from chat.consumers import CLOSE_LOGGED_OUT, FrameBudget, run_blocking
from chat.conversations import Frame
from chat.live import Event

logger = logging.getLogger(__name__)

CLOSE_NOT_STAFF = 4403


class StaffConsumer(AsyncWebsocketConsumer):  # type: ignore[misc]  # Channels ships no types
    """One staff member's inbox socket, with at most one conversation open in it."""

    staff_id: int | None = None
    open_conversation: str | None = None

    async def connect(self) -> None:
        await self.accept()
        session_key = getattr(self.scope.get("session"), "session_key", None)
        try:
            staff = await run_blocking(inbox.staff_for, session_key, kind="connect")
        except (OperationalError, InterfaceError):
            await self.close(code=4503)
            return
        if staff is None or not session_key:  # no staff member without a session
            logged_in = await run_blocking(conversations.logged_in_customer, session_key, kind="connect")
            await self.close(code=CLOSE_NOT_STAFF if logged_in else CLOSE_LOGGED_OUT)
            return
        self.session_key: str = session_key
        self.staff_id = staff.pk
        self.frames = FrameBudget(settings.AGENT_SOCKET_FRAMES_PER_MINUTE)
        await self._group("group_add", live.INBOX_GROUP)
        await self._group("group_add", conversations.login_group(self.session_key))
        await self._send(await run_blocking(inbox.snapshot, kind="connect"))

    async def disconnect(self, code: int) -> None:
        if self.staff_id is None:
            return
        await self._group("group_discard", live.INBOX_GROUP)
        await self._group("group_discard", conversations.login_group(self.session_key))
        if self.open_conversation:
            await self._group("group_discard", f"conversation.{self.open_conversation}")

    # -- frames from staff ------------------------------------------------------------------------

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        if self.staff_id is None:
            return
        if not self.frames.take():
            await self._error("rate_limited", "too many frames; please wait a minute")
            return
        try:
            frame = json.loads(text_data or "")
        except (ValueError, RecursionError):
            await self._error("bad_json", "the frame is not valid JSON")
            return
        kind = frame.get("type") if isinstance(frame, dict) else None
        conversation_id = frame.get("conversation_id") if isinstance(frame, dict) else None
        if kind not in ("open", *inbox.ACTIONS) or not isinstance(conversation_id, str):
            await self._error("bad_frame", 'a frame is {"type": open|take|reply|hand_back|close, "conversation_id"}')
            return
        if not await run_blocking(inbox.still_staff, self.session_key, self.staff_id, kind="connect"):
            await self.close(code=CLOSE_LOGGED_OUT)
            return
        if kind == "open":
            await self._open(conversation_id)
            return
        refused = await run_blocking(inbox.act, self.staff_id, kind, conversation_id, frame)
        if refused:
            await self._error("refused", refused)
        elif conversation_id == self.open_conversation:
            await self._send_conversation()

    async def _open(self, conversation_id: str) -> None:
        found = (
            await run_blocking(inbox.conversation, conversation_id) if conversations.is_uuid(conversation_id) else None
        )
        if found is None:
            await self._error("not_found", "no such escalated conversation")
            return
        if self.open_conversation and self.open_conversation != conversation_id:
            await self._group("group_discard", f"conversation.{self.open_conversation}")
        self.open_conversation = conversation_id
        await self._group("group_add", f"conversation.{conversation_id}")
        await self._send(found)

    async def _send_conversation(self) -> None:
        if self.open_conversation is None:
            return
        found = await run_blocking(inbox.conversation, self.open_conversation)
        if found is not None:
            await self._send(found)

    # -- events from the groups ---------------------------------------------------------------------

    async def inbox_changed(self, event: Event) -> None:
        await self._send(await run_blocking(inbox.snapshot, kind="connect"))

    async def conversation_changed(self, event: Event) -> None:
        """The customer's socket finished a turn (a message stored while staff hold it, too)."""
        await self._send_conversation()

    async def staff_message(self, event: Event) -> None:
        await self._send_conversation()

    async def state_changed(self, event: Event) -> None:
        await self._send_conversation()

    async def login_ended(self, event: Event) -> None:
        await self._error("logged_out", "you have been logged out")
        await self.close(code=CLOSE_LOGGED_OUT)

    # -- plumbing ---------------------------------------------------------------------------------------

    async def _group(self, method: str, group: str) -> None:
        try:
            await getattr(self.channel_layer, method)(group, self.channel_name)
        except Exception:  # noqa: BLE001 - without the layer the console still works by reloading
            logger.warning("channel layer unavailable: %s %s failed", method, group)

    async def _send(self, frame: Frame) -> None:
        await self.send(text_data=json.dumps(frame, ensure_ascii=False, default=str))

    async def _error(self, code: str, message: str) -> None:
        await self._send({"type": "error", "code": code, "message": message})
