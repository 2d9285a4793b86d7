"""Which conversation a customer's socket is on, its history frame, and the checks a socket makes.

Blocking helpers the consumer runs in its thread pool.
"""

from __future__ import annotations

import logging
from uuid import UUID

from django.conf import settings
from django.contrib.auth import HASH_SESSION_KEY, SESSION_KEY, get_user_model
from django.contrib.sessions.models import Session
from django.utils import timezone

from agentsite import clock
from memory import session as short_term
from memory.models import Conversation
from memory.working import Role

logger = logging.getLogger(__name__)


def open_for(customer_id: int, wanted: str | None = None) -> UUID:
    """The customer's conversation to resume: the one asked for if it is theirs, else the latest open one."""
    mine = Conversation.objects.filter(customer_id=customer_id, ended_at__isnull=True)
    if wanted:
        try:
            found = mine.filter(pk=UUID(wanted)).values_list("pk", flat=True).first()
        except ValueError:
            found = None
        if found:
            return found
    latest = mine.order_by("-updated_at").values_list("pk", flat=True).first()
    return latest or short_term.store().start(customer_id).id


def start_new(customer_id: int, previous: UUID | str | None) -> UUID:
    """End the previous conversation (queueing its final consolidation) and start an empty one."""
    if previous and Conversation.objects.filter(pk=previous, customer_id=customer_id, ended_at__isnull=True).exists():
        short_term.store().end(previous)
        from memory.tasks import consolidate_conversation

        try:
            consolidate_conversation.delay(str(previous), final=True)
        except Exception:  # the sweep will pick it up
            logger.warning("could not queue the final consolidation of %s", previous)
    return short_term.store().start(customer_id).id


def history_frame(customer_id: int, conversation_id: UUID | str) -> dict:
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


def within_rate_limit(customer_id: int) -> bool:
    """Count one message against the customer's per-minute budget (allowed when Redis is unreachable)."""
    from django_redis import get_redis_connection

    key = f"rate:{customer_id}:{int(clock.now().timestamp() // 60)}"
    try:
        redis = get_redis_connection("default")
        pipe = redis.pipeline()
        pipe.incr(key)
        pipe.expire(key, 120)
        count, _ = pipe.execute()
    except Exception:
        logger.warning("rate limit unavailable (Redis down); message allowed")
        return True
    return count <= settings.AGENT_RATE_LIMIT_PER_MINUTE


def session_alive(session_key: str | None, customer_id: int) -> bool:
    """Whether the login behind the socket still holds: not logged out, expired or password-changed."""
    if not session_key:
        return False
    # Django dates sessions by the real time, not the project's (movable) policy clock.
    row = Session.objects.filter(session_key=session_key, expire_date__gt=timezone.now()).first()
    if row is None:
        return False
    data = row.get_decoded()
    if str(data.get(SESSION_KEY)) != str(customer_id):
        return False
    user = get_user_model().objects.filter(pk=customer_id, is_active=True).first()
    return user is not None and data.get(HASH_SESSION_KEY) == user.get_session_auth_hash()
