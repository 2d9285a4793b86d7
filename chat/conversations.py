"""Who is behind a customer's socket, which conversation it is on, its history frame and the checks it makes:
blocking helpers the consumer runs in its thread pools. See docs/protocol.md.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Mapping
from dataclasses import dataclass
from importlib import import_module
from typing import Any
from uuid import UUID

from django.conf import settings
from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY, get_user_model, load_backend
from django.utils import translation
from django.utils.crypto import constant_time_compare
from django.utils.translation import trans_real

from agentsite import ratelimit
from memory import session as short_term
from memory.models import Conversation
from memory.working import Role

logger = logging.getLogger(__name__)

# A frame of the socket protocol (docs/protocol.md): a JSON object, sent or received.
Frame = dict[str, Any]


@dataclass(frozen=True)
class Opened:
    """A new socket's customer, its conversation and that conversation's history frame."""

    customer_id: int
    conversation_id: UUID
    history: Frame


class TooManySockets(Exception):
    """The customer opened more sockets this minute than ``AGENT_SOCKETS_PER_MINUTE``."""


def is_uuid(value: str) -> bool:
    """Whether ``value`` is a UUID's text (a conversation's or a pending action's id)."""
    try:
        UUID(str(value))
    except ValueError:
        return False
    return True


def open_socket(session_key: str, wanted: str | None = None) -> Opened | None:
    """Authenticate a new socket and load its conversation (``None``: nobody is logged in by the session).

    The session and user lookups Channels' ``AuthMiddleware`` would make on its single sync thread,
    the choice of conversation and its history frame, in one blocking call (one database connection).
    """
    customer_id = logged_in_customer(session_key)
    if customer_id is None:
        return None
    # Each socket opens with the whole history: without a budget, reconnecting would get around the history
    # frames' budget (and the socket's own).
    if not ratelimit.allow("socket", customer_id, settings.AGENT_SOCKETS_PER_MINUTE, 60):
        raise TooManySockets
    conversation_id = open_for(customer_id, wanted)
    report_back(customer_id, conversation_id)
    return Opened(customer_id, conversation_id, history_frame(customer_id, conversation_id))


def open_for(customer_id: int, wanted: str | None = None) -> UUID:
    """The customer's conversation to resume: the one asked for if it is theirs, else the latest open one."""
    mine = Conversation.objects.filter(customer_id=customer_id, ended_at__isnull=True)
    if wanted:
        try:
            asked: UUID | None = UUID(wanted)
        except ValueError:
            asked = None
        found: UUID | None = mine.filter(pk=asked).values_list("pk", flat=True).first() if asked else None
        if found:
            return found
    latest: UUID | None = mine.order_by("-updated_at").values_list("pk", flat=True).first()
    return latest or short_term.store().start(customer_id).id


def start_new(customer_id: int, previous: UUID | str | None) -> UUID:
    """End the previous conversation (queueing its final consolidation if it holds anything new) and start an
    empty one."""
    ending = (
        Conversation.objects.filter(pk=previous, customer_id=customer_id, ended_at__isnull=True).first()
        if previous is not None
        else None
    )
    if ending is not None:
        short_term.store().end(ending.pk)
        if ending.last_seq > ending.consolidated_seq:
            from memory.tasks import queue_consolidation

            queue_consolidation(ending.pk, customer_id, final=True)
    started = short_term.store().start(customer_id).id
    report_back(customer_id, started)
    return started


def report_back(customer_id: int, conversation_id: UUID) -> None:
    """What happened to the shop's promises since the customer last heard, said first (``chat.commitments``):
    stored in the conversation before its history frame is read, each outcome once."""
    from chat import commitments
    from chat.models import CustomerProfile

    language = CustomerProfile.objects.filter(user_id=customer_id).values_list("language", flat=True).first()
    commitments.report_back(customer_id, conversation_id, language or "zh-hans")


def history_frame(customer_id: int, conversation_id: UUID | str) -> Frame:
    """The conversation so far as the customer sees it: their messages, the agent's and staff's replies."""
    session = short_term.store().load(conversation_id, recent=settings.MEMORY_SESSION_MAX_MESSAGES)
    if session.customer_id != customer_id:
        return {"type": "error", "code": "not_found", "message": "no such conversation"}
    visible = {Role.USER: "customer", Role.ASSISTANT: "agent"}
    messages = [
        {
            "seq": m.seq,
            "role": "staff" if m.metadata.get("by_staff") else visible[m.role],
            "text": m.content,
            "at": m.created_at.isoformat(),
            **({"staff_name": m.metadata.get("staff_name", "")} if m.metadata.get("by_staff") else {}),
        }
        for m in session.messages
        if m.role in visible and m.content
    ]
    return {"type": "history", "conversation_id": str(conversation_id), "state": session.state, "messages": messages}


def frame_budget(kind: str) -> int:
    """Frames of ``kind`` one customer may send a minute, over all their sockets (settings)."""
    return {
        "message": settings.AGENT_RATE_LIMIT_PER_MINUTE,
        "new_conversation": settings.AGENT_NEW_CONVERSATIONS_PER_MINUTE,
        "history": settings.AGENT_HISTORY_FRAMES_PER_MINUTE,
    }[kind]


def admit_frame(session_key: str | None, customer_id: int, kind: str) -> str | None:
    """Check a frame before it is served: ``"logged_out"``, ``"rate_limited"``, or ``None`` to serve it.

    Every frame type is checked, not only messages: a socket outlives neither its login (a logout
    in another tab, a password change, a deactivation) nor its customer's budget for that type.
    """
    if not session_alive(session_key, customer_id):
        return "logged_out"
    if not ratelimit.allow(kind, customer_id, frame_budget(kind), 60):
        return "rate_limited"
    return None


def logged_in_customer(session_key: str | None) -> int | None:
    """The id of the active user the session logs in, or ``None``: no such session, expired, logged out, or
    signed with a password since changed.

    Django's ``get_user`` without its side effects: a socket cannot send a cookie back, so it neither
    flushes nor cycles the session (a session signed under a ``SECRET_KEY_FALLBACKS`` key is accepted
    and left for the next HTTP request to re-sign).
    """
    if not session_key:
        return None
    # The configured engine's store: expired sessions load empty (Django dates them by the real time,
    # not the project's movable policy clock).
    data = import_module(settings.SESSION_ENGINE).SessionStore(session_key).load()
    backend_path = data.get(BACKEND_SESSION_KEY)
    if SESSION_KEY not in data or backend_path not in settings.AUTHENTICATION_BACKENDS:
        return None
    user_id = get_user_model()._meta.pk.to_python(data[SESSION_KEY])
    user = load_backend(backend_path).get_user(user_id)  # None for an inactive user (ModelBackend)
    if user is None:
        return None
    session_hash = data.get(HASH_SESSION_KEY)
    if not session_hash:
        return None
    hashes = [user.get_session_auth_hash(), *user.get_session_auth_fallback_hash()]
    return user.pk if any(constant_time_compare(session_hash, h) for h in hashes) else None


def login_group(session_key: str) -> str:
    """The channel-layer group of every socket opened with one login (a hash: the key itself is a credential)."""
    return "login." + hashlib.sha256(session_key.encode()).hexdigest()[:40]


def session_alive(session_key: str | None, customer_id: int) -> bool:
    """Whether the login behind the socket still holds: not logged out, expired or password-changed."""
    found = logged_in_customer(session_key)
    return found is not None and found == customer_id


def page_language(scope: Mapping[str, Any]) -> str:
    """The language the customer's page is in: the language cookie, else the browser's, else the site's."""
    cookie = (scope.get("cookies") or {}).get(settings.LANGUAGE_COOKIE_NAME)
    header = dict(scope.get("headers") or []).get(b"accept-language", b"").decode("latin-1")
    wanted = [cookie] if cookie else []
    wanted += [code for code, _ in trans_real.parse_accept_lang_header(header)[:5]]
    for code in wanted:
        try:
            return translation.get_supported_language_variant(code)
        except LookupError:
            continue
    return settings.LANGUAGE_CODE
