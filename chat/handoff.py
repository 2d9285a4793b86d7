"""Human takeover: the handoff packet, and staff taking, answering, closing or handing back a conversation. An
escalated conversation gets the packet a person needs to continue without asking the customer again; while
staff hold it the bot stays silent. See README.md ("Staff: conflicts and takeover") and docs/protocol.md.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Sequence
from datetime import datetime
from typing import TYPE_CHECKING, TypedDict
from uuid import UUID

from django.conf import settings
from django.db import transaction
from django.db.models import QuerySet

from agentsite import clock, llm
from agentsite.redaction import redact, redact_json
from chat import commitments, live, records
from chat.models import Commitment, CustomerProfile, Handoff, Order, PendingAction
from chat.tool_results import JSONObject
from memory import recaps
from memory import session as short_term
from memory.embeddings import get_embedder
from memory.keys import SHOP_OWNED
from memory.longterm import Candidate, customer_lock, store
from memory.models import Conversation, LongTermMemory, StateTransition, tag_of
from memory.states import AgentState
from memory.working import Entry, Role

if TYPE_CHECKING:
    from django.contrib.auth.models import User

logger = logging.getLogger(__name__)


class HandoffError(Exception):
    """The handoff cannot do that now (taken by someone else, not escalated …)."""


class Line(TypedDict):
    """One message of the transcript staff read."""

    who: str  # customer, agent or staff
    text: str
    at: datetime


class Step(TypedDict):
    """One tool the agent called, as staff read it."""

    tool: str
    order: str
    outcome: str


class Packet(TypedDict):
    """The handoff packet (``build_packet``); every value shown as text, dates in ISO format."""

    issue: str
    tried: list[Step]
    records: dict[str, str]
    facts: list[dict[str, str]]
    open_promises: list[dict[str, str]]
    orders: list[dict[str, str]]
    states: list[dict[str, str]]


def transcript(conversation_id: UUID | str) -> tuple[list[Line], str]:
    """The conversation as staff read it (its last ``AGENT_HANDOFF_MESSAGES`` messages), and its state."""
    session = short_term.store().load(conversation_id, recent=settings.AGENT_HANDOFF_MESSAGES)
    lines: list[Line] = [
        {
            "who": "staff" if m.metadata.get("by_staff") else ("customer" if m.role is Role.USER else "agent"),
            "text": m.content,
            "at": m.created_at,
        }
        for m in session.messages
        if m.content and m.role in (Role.USER, Role.ASSISTANT)  # tool steps are in the packet, in words
    ]
    return lines, session.state


def build_packet(conversation_id: UUID | str) -> Packet:
    """What a person needs: the issue in a few sentences, what the agent tried, the customer's values on
    record, memories with their provenance, the shop's promises, recent orders, the states."""
    conversation = Conversation.objects.get(pk=conversation_id)
    session = short_term.store().load(conversation_id, recent=settings.AGENT_HANDOFF_MESSAGES)
    spoken = [
        ("customer" if m.role is Role.USER else "agent", m.content)
        for m in session.messages
        if m.role in (Role.USER, Role.ASSISTANT) and m.content
    ]
    facts = LongTermMemory.objects.valid().filter(customer_id=conversation.customer_id).order_by("-confidence")
    pending = PendingAction.objects.filter(conversation_id=conversation_id, status=PendingAction.Status.PENDING)
    states = StateTransition.objects.filter(conversation_id=conversation_id).order_by("id")
    profile = CustomerProfile.objects.filter(user_id=conversation.customer_id).first()
    orders = Order.objects.filter(customer_id=conversation.customer_id).order_by("-placed_at")[:5]
    return {
        "issue": _issue(conversation, spoken),
        "tried": tried(session.messages),
        # The shop's values first: for these keys a memory is what was asked for, never the value (its tag says so).
        "records": {key: getattr(profile, field) for key, field in SHOP_OWNED.items()} if profile else {},
        "facts": [
            {
                "content": m.content,
                "key": m.key,
                "value": m.value,
                "source": m.source,
                "tag": tag_of(m.source, m.confidence, key=m.key).value,
            }
            for m in facts[:20]
        ],
        "open_promises": [{"kind": "pending change", "summary": a.summary} for a in pending]
        + [
            {
                "kind": p.kind,
                "summary": commitments.record_line(p, "en"),
                "due": p.due_at.isoformat() if p.due_at else "",
            }
            for p in commitments.for_turn(conversation.customer_id)
            if p.status in commitments.OPEN
        ],
        "orders": [
            {
                "number": o.number,
                "status": o.status,
                "total": f"{o.total} {o.currency}",
                "placed": f"{o.placed_at:%Y-%m-%d}",
            }
            for o in orders
        ],
        "states": [
            {"from": t.from_state, "to": t.to_state, "reason": t.reason, "at": t.created_at.isoformat()} for t in states
        ],
    }


def _issue(conversation: Conversation, spoken: list[tuple[str, str]]) -> str:
    """The cheap model's recap of the conversation so far, as for a finished one (``memory.recaps``); the
    customer's last words if the model cannot write it now."""
    if not spoken:
        return ""
    lines = ["Ended: escalated", *(f"{who}: {' '.join(text.split())}" for who, text in spoken)]
    try:
        written = llm.summarise_conversation(
            "\n".join(lines),
            language=recaps.language_of(spoken),
            max_tokens=settings.MEMORY_SUMMARY_MAX_TOKENS,
            conversation_id=str(conversation.pk),
        )
    except llm.LLMError:
        return next((text for who, text in reversed(spoken) if who == "customer"), "")
    return recaps.within(recaps.cleaned(written), settings.MEMORY_SUMMARY_MAX_TOKENS)


def tried(messages: Sequence[short_term.StoredMessage]) -> list[Step]:
    """Each tool the agent called, as staff read it: the tool, the order, what came of it (never JSON)."""
    calls: dict[str, Step] = {}
    out: list[Step] = []
    for message in messages:
        if message.role is Role.TOOL_CALL:
            for call in message.metadata.get("tool_calls", []):
                arguments = _json(call.get("arguments"))
                step = Step(tool=call.get("name", ""), order=str(arguments.get("order_number", "")), outcome="")
                calls[call.get("id", "")] = step
                out.append(step)
        elif message.role is Role.TOOL_RESULT:
            called = calls.get(message.metadata.get("tool_call_id", ""))
            if called is not None:
                called["outcome"] = _outcome(message.metadata.get("raw") or message.content)
    return out


def _json(text: object) -> JSONObject:
    """``text`` parsed if it is JSON text; ``{}`` unless it is (or holds) a JSON object."""
    try:
        value = json.loads(text) if isinstance(text, str) else text
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def _outcome(result: str) -> str:
    """A tool result in a few words: refused and why, proposed or done and what, else the status found."""
    data = _json(result)
    if not data:
        return " ".join(result.split())[:160]
    if data.get("error"):
        return f"refused: {data['error']}"[:160]
    status = str(data.get("status", ""))
    if status in ("pending_confirmation", "queued", "done", "escalated") and data.get("summary"):
        said = {"pending_confirmation": "proposed", "queued": "queued"}.get(status, status)
        return f"{said}: {data['summary']}"[:160]
    if isinstance(data.get("orders"), list):
        return f"{len(data['orders'])} orders listed"
    if isinstance(data.get("articles"), list):
        return "policy: " + ", ".join(str(a.get("title", "")) for a in data["articles"][:3] if isinstance(a, dict))
    if isinstance(data.get("memories"), list):
        return f"{len(data['memories'])} memories found"
    found = [f"{k} {data[k]}" for k in ("status", "carrier", "tracking_number", "eta") if data.get(k)]
    return ", ".join(found)[:160] or "answered"


def open_handoff(conversation_id: UUID | str) -> Handoff:
    """Queue an escalated conversation for staff with its packet (once per escalation), and record the
    promise the customer was given: a colleague gets back to them within ``COMMITMENT_CALLBACK_HOURS``."""
    customer_id = Conversation.objects.values_list("customer_id", flat=True).get(pk=conversation_id)
    due = commitments.callback_due()  # the promise the customer was given: made first, so the packet shows it
    commitments.make(customer_id, Commitment.Kind.CALLBACK, due_at=due, conversation_id=conversation_id)
    packet = json.loads(redact_json(json.dumps(build_packet(conversation_id))))  # staff read it: no secret
    handoff, created = Handoff.objects.get_or_create(conversation_id=conversation_id, defaults={"packet": packet})
    if not created:
        handoff.packet, handoff.created_at, handoff.taken_by, handoff.taken_at, handoff.closed_at = (
            packet,
            clock.now(),
            None,
            None,
            None,
        )
        handoff.save()
    live.inbox_changed()
    return handoff


def waiting() -> QuerySet[Handoff]:
    """Escalated conversations nobody has taken, oldest first."""
    return Handoff.objects.filter(closed_at__isnull=True, taken_by__isnull=True).order_by("created_at")


def take(conversation_id: UUID | str, staff: User) -> Handoff:
    """Give the conversation to ``staff``; a second taker is refused."""
    with transaction.atomic():
        handoff = Handoff.objects.select_for_update().get(conversation_id=conversation_id, closed_at__isnull=True)
        if handoff.taken_by_id is not None:
            raise HandoffError(f"already taken by {handoff.taken_by}")
        handoff.taken_by, handoff.taken_at = staff, clock.now()
        handoff.save(update_fields=["taken_by", "taken_at"])
        records.record_takeover(handoff.created_at, handoff.taken_at)
        commitments.close_callbacks(conversation_id, f"staff:{staff.get_username()}")
    _transition(conversation_id, AgentState.HUMAN, f"taken over by {staff.get_username()}")
    live.inbox_changed()
    return handoff


MAX_REPLY_CHARS = 4000  # a staff reply, as a customer's message is limited by AGENT_MAX_FRAME_CHARS


def reply(conversation_id: UUID | str, staff: User, text: str) -> None:
    """Store a staff member's reply and push it to the customer's open sockets."""
    handoff = Handoff.objects.get(conversation_id=conversation_id, closed_at__isnull=True)
    if handoff.taken_by_id != staff.pk:
        raise HandoffError("take the conversation over before replying")
    text = text.strip()
    if not text:
        raise HandoffError("an empty reply")
    if len(text) > MAX_REPLY_CHARS:
        raise HandoffError(f"a reply is limited to {MAX_REPLY_CHARS} characters")
    name = staff.get_full_name() or staff.get_username()
    entry = Entry.create(Role.ASSISTANT, text, timestamp=clock.now(), metadata={"staff_name": name})
    short_term.store().append(conversation_id, entry, by_staff=True)
    live.push(conversation_id, {"type": "staff.message", "text": text, "staff_name": name})


def close(conversation_id: UUID | str, staff: User, resolution: str = "") -> None:
    """The person solved it: the conversation is resolved; their resolution can become a memory.

    A non-empty ``resolution`` is stored as an ``experience`` memory of the customer, recorded by
    the system (confidence 1.0), so the agent knows next time how this was settled.
    """
    _finish(conversation_id, staff, AgentState.RESOLVED, "closed by staff")
    resolution = redact(" ".join(resolution.split()))  # before the cut below, which could halve a card number
    if resolution:
        customer_id = Conversation.objects.values_list("customer_id", flat=True).get(pk=conversation_id)
        candidate = Candidate(
            type="experience",
            content=resolution[:500],
            confidence=1.0,
            source="system_record",
            conversation_id=conversation_id,
        )
        with transaction.atomic():
            customer_lock(customer_id)
            store(
                customer_id,
                candidate,
                get_embedder().embed_passages([candidate.content])[0],
                actor=f"staff:{staff.get_username()}",
            )


def hand_back(conversation_id: UUID | str, staff: User) -> None:
    """Give the conversation back to the bot."""
    _finish(conversation_id, staff, AgentState.COLLECTING_INFO, "handed back to the bot")


def _finish(conversation_id: UUID | str, staff: User, to: AgentState, reason: str) -> None:
    with transaction.atomic():
        handoff = Handoff.objects.select_for_update().get(conversation_id=conversation_id, closed_at__isnull=True)
        if handoff.taken_by_id != staff.pk:
            raise HandoffError("only the staff member who took it can close or hand it back")
        handoff.closed_at = clock.now()
        handoff.save(update_fields=["closed_at"])
    _transition(conversation_id, to, f"{reason} ({staff.get_username()})")
    live.inbox_changed()


def _transition(conversation_id: UUID | str, to: AgentState, reason: str) -> None:
    result = short_term.store().transition(conversation_id, to, reason)
    for step in result.recorded:
        live.push(conversation_id, {"type": "state.changed", "from": step.from_state, "to": step.to_state})
