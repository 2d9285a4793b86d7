"""The staff inbox as data: who a staff socket belongs to, the escalated conversations with their waiting time
and holder, one conversation with its transcript and packet, and the staff's actions on it. Blocking helpers
the staff consumer runs in its thread pool; the console's pages show the same data without JavaScript. See
docs/protocol.md ("Staff socket").
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import TYPE_CHECKING, TypedDict
from uuid import UUID

from django.contrib.auth import get_user_model
from django.utils import timezone

from agentsite import clock
from chat import conversations, handoff
from chat.conversations import Frame, is_uuid
from chat.models import Handoff

if TYPE_CHECKING:
    from django.contrib.auth.models import User


class InboxItem(TypedDict):
    """One open escalation as the inbox frame lists it."""

    conversation_id: str
    customer: str
    since: str
    waiting_seconds: int
    issue: str
    taken_by: str


def staff_for(session_key: str | None) -> User | None:
    """The active staff member the session logs in, or ``None`` (nobody, or a customer)."""
    user_id = conversations.logged_in_customer(session_key)
    if user_id is None:
        return None
    return get_user_model().objects.filter(pk=user_id, is_staff=True, is_active=True).first()


def still_staff(session_key: str | None, staff_id: int) -> bool:
    found = staff_for(session_key)
    return found is not None and found.pk == staff_id


def _item(item: Handoff, now: datetime) -> InboxItem:
    return {
        "conversation_id": str(item.conversation_id),
        "customer": str(item.conversation.customer),
        "since": timezone.localtime(item.created_at).isoformat(),
        "waiting_seconds": int((now - item.created_at).total_seconds()),
        "issue": (item.packet or {}).get("issue", "")[:200],
        "taken_by": item.taken_by.get_username() if item.taken_by else "",
    }


def snapshot() -> Frame:
    """Every open escalation: waiting ones oldest first, then those taken, with who holds each."""
    now = clock.now()
    open_items = Handoff.objects.filter(closed_at__isnull=True).select_related("conversation__customer", "taken_by")
    waiting = [_item(h, now) for h in open_items.filter(taken_by__isnull=True).order_by("created_at")]
    taken = [_item(h, now) for h in open_items.filter(taken_by__isnull=False).order_by("taken_at")]
    return {"type": "inbox", "waiting": waiting, "taken": taken}


def conversation(conversation_id: UUID | str) -> Frame | None:
    """One escalated conversation as the staff view shows it; ``None`` if it was never escalated."""
    item = Handoff.objects.filter(conversation_id=conversation_id).select_related("taken_by").first()
    if item is None:
        return None
    lines, state = handoff.transcript(conversation_id)
    return {
        "type": "conversation",
        "conversation_id": str(conversation_id),
        "state": str(state),
        "taken_by": item.taken_by.get_username() if item.taken_by else "",
        "closed": item.closed_at is not None,
        "transcript": [{"who": m["who"], "text": m["text"], "at": m["at"].isoformat()} for m in lines],
        "packet": item.packet,
    }


# What each action of the staff socket does: (conversation id, staff member, frame) -> anything.
ACTIONS: dict[str, Callable[[str, User, Frame], object]] = {
    "take": lambda conversation_id, staff, frame: handoff.take(conversation_id, staff),
    "reply": lambda conversation_id, staff, frame: handoff.reply(conversation_id, staff, str(frame.get("text", ""))),
    "hand_back": lambda conversation_id, staff, frame: handoff.hand_back(conversation_id, staff),
    "close": lambda conversation_id, staff, frame: handoff.close(
        conversation_id, staff, str(frame.get("resolution", ""))
    ),
}


def act(staff_id: int, action: str, conversation_id: str, frame: Frame) -> str | None:
    """Do ``action`` as the staff member; return why it was refused, or ``None`` when it was done."""
    staff = get_user_model().objects.get(pk=staff_id)
    if not is_uuid(conversation_id):
        return "no such conversation"
    try:
        ACTIONS[action](conversation_id, staff, frame)
    except handoff.HandoffError as exc:
        return str(exc)
    except Handoff.DoesNotExist:
        return "no open escalation for that conversation"
    return None
