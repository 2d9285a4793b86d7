"""The customer's websocket: validate frames, hand each message to the agent turn, send JSON frames. The consumer
makes no ORM, cache or model call of its own; blocking work runs in bounded thread pools of its own (turns in
one, opening sockets in another) rather than Channels' single shared sync thread, so a customer arriving while
turns are queued does not wait behind them. See docs/protocol.md and docs/operations.md.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from typing import TYPE_CHECKING, TypeVar, TypeVarTuple
from uuid import UUID

from channels.generic.websocket import AsyncWebsocketConsumer
from django.conf import settings
from django.db import InterfaceError, OperationalError, close_old_connections
from django.utils import translation
from django.utils.translation import gettext_lazy as _

from agentsite import metrics, threads
from agentsite.logs import log_context, run_in_context
from chat import conversations, records
from chat.agent import Emit, NotYourConversation, TurnResult, run_turn
from chat.conversations import Frame
from chat.live import Event
from memory.recall import vector_queries

if TYPE_CHECKING:
    from django_stubs_ext import StrOrPromise

logger = logging.getLogger(__name__)
R = TypeVar("R")
Ts = TypeVarTuple("Ts")
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")

# Application close codes (daphne sends only 1000 or 3000-4999): 4401 nobody is logged in; 4503 (after HTTP 503)
# the server could not open the socket in time (busy, or its database unavailable): try again later.
CLOSE_LOGGED_OUT = 4401
CLOSE_TRY_AGAIN_LATER = 4503

# What a frame that could not be served because the database is down is answered with (error "unavailable").
UNAVAILABLE = {
    "message": _("we could not take your message just now; please send it again in a moment"),
    "new_conversation": _("we could not start a new conversation just now; please try again in a moment"),
    "history": _("we could not load the conversation just now; please try again in a moment"),
}

_pools: dict[str, ThreadPoolExecutor] = {}


class FrameBudget:
    """How many frames of any kind one socket may send a minute: counted on the event loop, no I/O.

    The per-customer budgets by frame type live in Redis (``conversations.admit_frame``); this one also
    bounds frames that are never served (broken JSON, unknown types) before they cost anything more.
    """

    def __init__(self, per_minute: int) -> None:
        self.per_minute = per_minute
        self.window_started = time.monotonic()
        self.count = 0

    def take(self) -> bool:
        now = time.monotonic()
        if now - self.window_started >= 60:
            self.window_started, self.count = now, 0
        self.count += 1
        return self.count <= self.per_minute


def pool(kind: str = "turn") -> ThreadPoolExecutor:
    """The process's bounded pool for blocking work of one kind: ``turn`` or ``connect``."""
    if kind not in _pools:
        workers = {"turn": settings.AGENT_TURN_WORKERS, "connect": settings.AGENT_CONNECT_WORKERS}[kind]
        _pools[kind] = ThreadPoolExecutor(
            max_workers=workers, thread_name_prefix=kind, initializer=threads.lower_priority
        )
    return _pools[kind]


def _with_fresh_connections(fn: Callable[[*Ts], R], *args: *Ts) -> R:
    close_old_connections()
    try:
        return fn(*args)
    finally:
        close_old_connections()


async def run_blocking(fn: Callable[[*Ts], R], *args: *Ts, kind: str = "turn") -> R:
    """Run ``fn`` in the pool of that kind, in the caller's context (its log fields), and await its result."""
    loop = asyncio.get_running_loop()
    return await loop.run_in_executor(pool(kind), run_in_context(partial(_with_fresh_connections, fn, *args)))


def observed_turn(
    customer_id: int, conversation_id: UUID | str, text: str, emit: Emit = lambda frame: None
) -> TurnResult:
    """Run one turn (in the pool), count it with its latency in the shared metrics, and record it for the
    staff dashboard (``chat.records``); a message to somebody else's conversation is not a turn."""
    started = time.perf_counter()
    queries_before = vector_queries.in_this_thread
    result = None
    outcome, theirs = "error", False
    try:
        result = run_turn(customer_id, conversation_id, text, emit)
        outcome = (
            "failed"
            if result.failed
            else "escalated"
            if result.escalated
            else "silent"
            if result.message_id is None
            else "ok"
        )
        return result
    except NotYourConversation:
        theirs = True
        raise
    finally:
        seconds = time.perf_counter() - started
        metrics.record_turn(seconds, outcome)
        logger.info("turn %s in %.0f ms", outcome, seconds * 1000)
        if not theirs:
            records.record_turn(
                conversation_id,
                outcome=records.turn_outcome(result),
                language=result.language if result is not None else "",
                recall_mode=settings.MEMORY_RECALL_MODE,
                vector_queries=vector_queries.in_this_thread - queries_before,
                memories_used=len(result.recalled) if result is not None else 0,
                seconds=seconds,
            )


class ChatConsumer(AsyncWebsocketConsumer):  # type: ignore[misc]  # Channels ships no types
    """One customer's chat socket on one conversation at a time."""

    logged_out = False

    async def connect(self) -> None:
        # Accept first, then authenticate and load. daphne drops a handshake not accepted within its connect
        # timeout (5 s), and a burst of customers' session and user lookups, queued on one thread, can outlast
        # it for every socket of the burst (docs/bench.md). Accepting costs the event loop alone; the
        # blocking work then runs in the connect pool, bounded by AGENT_CONNECT_TIMEOUT_SECONDS, and a socket
        # that cannot be opened is closed with a code the page acts on. Channels dispatches this socket's
        # frames only after connect() returns, so none is handled before the socket is open.
        await self.accept()
        session_key = getattr(self.scope.get("session"), "session_key", None)
        if not session_key:
            await self.close(code=CLOSE_LOGGED_OUT)
            return
        self.session_key: str = session_key
        try:
            history = await asyncio.wait_for(self._open(), settings.AGENT_CONNECT_TIMEOUT_SECONDS)
        except TimeoutError:  # work still queued is cancelled; work already running finishes unheard
            logger.warning(
                "socket not opened within %s s: closed with %s",
                settings.AGENT_CONNECT_TIMEOUT_SECONDS,
                CLOSE_TRY_AGAIN_LATER,
            )
            await self._error("busy", _("the chat is busy; reconnecting in a moment"))
            await self.close(code=CLOSE_TRY_AGAIN_LATER)
            return
        except conversations.TooManySockets:
            await self._error("rate_limited", _("too many connections this minute; reconnecting in a moment"))
            await self.close(code=CLOSE_TRY_AGAIN_LATER)
            return
        except (OperationalError, InterfaceError) as error:
            logger.warning("socket not opened: database unavailable (%s)", str(error).strip()[:200])
            await self._error("unavailable", _("the chat is unavailable just now; reconnecting in a moment"))
            await self.close(code=CLOSE_TRY_AGAIN_LATER)
            return
        if history is None:
            await self.close(code=CLOSE_LOGGED_OUT)
            return
        self.inbox: asyncio.Queue[str] = asyncio.Queue()
        self.frames = FrameBudget(settings.AGENT_SOCKET_FRAMES_PER_MINUTE)
        self.worker = asyncio.create_task(self._work())
        await self._send(history)

    async def _open(self) -> Frame | None:
        """Authenticate, pick the conversation, join its group; return its history frame (``None``: not logged in).

        One blocking call per socket, not one per step: the pool runs calls in arrival order, and with
        a step per call a burst's sockets would all wait for the last one's first step before any got its
        history (docs/bench.md, "Connect bursts"), and a deadline would
        then turn away all of them rather than the last arrivals. The group is joined after the history
        was read: a turn another tab finishes in between is not signalled to this one (a window of one
        Redis call).
        """
        opened = await run_blocking(
            conversations.open_socket, self.session_key, self._query_param("conversation"), kind="connect"
        )
        if opened is None:
            return None
        self.customer_id, self.conversation_id, history = opened.customer_id, opened.conversation_id, opened.history
        await self._join()
        await self._group_call("group_add", conversations.login_group(self.session_key))
        return history

    async def disconnect(self, code: int) -> None:
        worker = getattr(self, "worker", None)
        if worker is not None:
            worker.cancel()
        await self._leave()
        if getattr(self, "customer_id", None) is not None:
            await self._group_call("group_discard", conversations.login_group(self.session_key))

    # -- frames from the customer -------------------------------------------------------

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        if getattr(self, "worker", None) is None or self.logged_out:  # closed; frames sent before the close
            return
        if not self.frames.take():
            await self._error("rate_limited", _("too many frames; please wait a minute"))
            return
        if text_data is None:
            await self._error("bad_frame", _("send JSON text frames"))
            return
        if len(text_data) > settings.AGENT_MAX_FRAME_CHARS:
            await self._error(
                "too_large", _("frames are limited to %(limit)d characters"), {"limit": settings.AGENT_MAX_FRAME_CHARS}
            )
            return
        try:
            frame = json.loads(text_data)
        except (ValueError, RecursionError):  # RecursionError: nesting ~1,000 deep fits in one frame
            await self._error("bad_json", _("the frame is not valid JSON"))
            return
        if not isinstance(frame, dict) or not isinstance(frame.get("type"), str):
            await self._error("bad_frame", _('a frame is a JSON object with a "type"'))
            return
        handler = {"message": self._on_message, "new_conversation": self._on_new, "history": self._on_history}.get(
            frame["type"]
        )
        if handler is None:
            await self._error("unknown_type", _("unknown frame type %(type)r"), {"type": frame["type"][:40]})
            return
        try:
            refused = await run_blocking(
                conversations.admit_frame, self.session_key, self.customer_id, frame["type"], kind="connect"
            )
        except (
            OperationalError,
            InterfaceError,
        ) as error:  # the login cannot be checked: serve nothing, keep the socket
            logger.warning("frame refused: database unavailable (%s)", str(error).strip()[:200])
            await self._error("unavailable", UNAVAILABLE[frame["type"]])
            return
        if refused == "logged_out":
            await self._logged_out()
        elif refused == "rate_limited":
            await self._error("rate_limited", _("too many requests of this kind; please wait a minute"))
        else:
            await handler(frame)

    async def _on_message(self, frame: Frame) -> None:
        text = frame.get("text")
        if not isinstance(text, str) or not text.strip():
            await self._error("bad_message", _("a message needs non-empty text"))
            return
        if "\x00" in text or _LONE_SURROGATE.search(text):  # PostgreSQL stores neither: the turn would fail
            await self._error("bad_message", _("the text holds a NUL or an unpaired surrogate"))
            return
        await self.inbox.put(text.strip())

    async def _on_new(self, frame: Frame) -> None:
        await self._leave()
        self.conversation_id = await run_blocking(conversations.start_new, self.customer_id, self.conversation_id)
        await self._join()
        await self._send_history()

    async def _on_history(self, frame: Frame) -> None:
        await self._send_history()

    # -- turns, one at a time ---------------------------------------------------------------

    async def _work(self) -> None:
        while True:
            text = await self.inbox.get()
            with log_context(conversation_id=self.conversation_id, customer_id=self.customer_id):
                try:
                    await self._turn(text)
                except (OperationalError, InterfaceError) as error:  # PostgreSQL down or restarting
                    logger.warning(
                        "turn refused in conversation %s: database unavailable (%s)",
                        self.conversation_id,
                        str(error).strip()[:200],
                    )
                    await self._error("unavailable", UNAVAILABLE["message"])
                except Exception:
                    logger.exception("turn failed in conversation %s", self.conversation_id)
                    await self._error("turn_failed", _("something went wrong; your message was kept"))

    async def _turn(self, text: str) -> None:
        if not await self._still_logged_in():  # logged out while the message waited for an earlier turn
            return
        loop = asyncio.get_running_loop()
        outgoing: asyncio.Queue[Frame | None] = asyncio.Queue()

        def emit(frame: Frame) -> None:  # called from the pool thread
            loop.call_soon_threadsafe(outgoing.put_nowait, frame)

        async def forward() -> None:
            while (frame := await outgoing.get()) is not None:
                await self.send(text_data=json.dumps(frame, ensure_ascii=False))

        sender = asyncio.create_task(forward())
        try:
            result = await run_blocking(observed_turn, self.customer_id, self.conversation_id, text, emit)
        except NotYourConversation:
            result = None
        finally:
            loop.call_soon_threadsafe(outgoing.put_nowait, None)
            await sender
        if result is None:
            await self._error("not_found", _("no such conversation"))
            return
        # Every accepted message ends with one reply_done, the bot's reply stored or not (handover, staff's turn).
        await self._send({"type": "reply_done", "message_id": result.message_id, "state": result.state})
        await self._broadcast({"type": "conversation.changed", "origin": self.channel_name})

    # -- the conversation's group: staff replies and other tabs ------------------------------------

    @property
    def group(self) -> str:
        return f"conversation.{self.conversation_id}"

    async def _join(self) -> None:
        await self._group_call("group_add", self.group)

    async def _leave(self) -> None:
        if getattr(self, "conversation_id", None) is not None:
            await self._group_call("group_discard", self.group)

    async def _broadcast(self, event: Event) -> None:
        try:
            await self.channel_layer.group_send(self.group, event)
        except Exception:
            logger.warning("channel layer unavailable; other tabs of %s not told", self.conversation_id)

    async def conversation_changed(self, event: Event) -> None:
        """Another socket on this conversation finished a turn: refresh this one's history."""
        if event.get("origin") != self.channel_name and await self._may_push():
            await self._send_history()

    async def staff_message(self, event: Event) -> None:
        if await self._may_push():
            await self._send({"type": "staff_message", "text": event["text"], "staff_name": event["staff_name"]})

    async def state_changed(self, event: Event) -> None:
        if await self._may_push():
            await self._send({"type": "state", "from": event["from"], "to": event["to"]})

    async def login_ended(self, event: Event) -> None:
        """The login behind this socket was logged out over HTTP (``chat.signals``): close at once."""
        await self._logged_out()

    async def _group_call(self, method: str, group: str) -> None:
        """Join or leave a group. Without the channel layer chat still works; live pushes (staff replies, other
        tabs, a logout elsewhere) do not, and a logout is seen at the socket's next frame instead."""
        try:
            await getattr(self.channel_layer, method)(group, self.channel_name)
        except Exception:
            logger.warning("channel layer unavailable: %s %s failed", method, group)

    # -- the login behind the socket -----------------------------------------------------------

    async def _still_logged_in(self) -> bool:
        """Whether the login still holds; if not, the socket is told and closed (a database error propagates)."""
        if await run_blocking(conversations.session_alive, self.session_key, self.customer_id, kind="connect"):
            return True
        await self._logged_out()
        return False

    async def _may_push(self) -> bool:
        """Whether something may be pushed to this socket unasked: only while its login holds. When that cannot be
        checked (the database is down), nothing is pushed; it is in the history the next time it is loaded."""
        try:
            return await self._still_logged_in()
        except (OperationalError, InterfaceError):
            logger.warning("login of a socket not checked (database unavailable): nothing pushed")
            return False

    async def _logged_out(self) -> None:
        if self.logged_out:
            return
        self.logged_out = True
        await self._error("logged_out", _("you have been logged out"))
        await self.close(code=CLOSE_LOGGED_OUT)

    # -- sending ---------------------------------------------------------------------------------

    async def _send_history(self) -> None:
        await self._send(await run_blocking(conversations.history_frame, self.customer_id, self.conversation_id))

    async def _send(self, frame: Frame) -> None:
        await self.send(text_data=json.dumps(frame, ensure_ascii=False))

    async def _error(self, code: str, message: StrOrPromise, values: dict[str, object] | None = None) -> None:
        """An error frame, its message in the page's language (``conversations.page_language``)."""
        with translation.override(conversations.page_language(self.scope)):
            text = str(message) % values if values else str(message)
        await self._send({"type": "error", "code": code, "message": text})

    def _query_param(self, name: str) -> str | None:
        from urllib.parse import parse_qs

        values = parse_qs(self.scope.get("query_string", b"").decode()).get(name)
        return values[0] if values else None
