"""Human takeover: the handoff packet, and staff taking, answering, closing or handing back a conversation.

Escalation (the ``escalate_to_human`` tool, loop detection, a customer asking for a person) leaves the
conversation ``escalated``; ``open_handoff`` builds the packet a person needs to continue without
asking the customer again. Staff then ``take`` it (``human``: the bot stays silent), ``reply`` (the
customer's socket gets a ``staff_message`` live through the channel layer), and ``close``
(``resolved``) or ``hand_back`` (``collecting_info``: the bot answers again).
"""

from __future__ import annotations

import json
import logging
from uuid import UUID

from django.conf import settings
from django.db import transaction

from agentsite import clock, llm
from agentsite.redaction import redact, redact_json
from chat import commitments, live
from chat.models import Commitment, CustomerProfile, Handoff, PendingAction, Refund
from memory import session as short_term
from memory.embeddings import get_embedder
from memory.keys import SHOP_OWNED
from memory.longterm import Candidate, customer_lock, store
from memory.models import Conversation, LongTermMemory, StateTransition, tag_of
from memory.states import AgentState
from memory.working import Entry, Role

logger = logging.getLogger(__name__)


class HandoffError(Exception):
    """The handoff cannot do that now (taken by someone else, not escalated …)."""


def transcript(conversation_id: UUID | str) -> tuple[list[dict], str]:
    """The conversation as staff read it (its last ``AGENT_HANDOFF_MESSAGES`` messages), and its state."""
    session = short_term.store().load(conversation_id, recent=settings.AGENT_HANDOFF_MESSAGES)
    lines = [
        {
            "who": "staff" if m.metadata.get("by_staff") else ("customer" if m.role is Role.USER else m.role.value),
            "text": m.content,
            "at": m.created_at,
        }
        for m in session.messages
        if m.content
    ]
    return lines, session.state


def build_packet(conversation_id: UUID | str) -> dict:
    """What a person needs: the issue, what the agent tried, the customer's facts, open promises, states."""
    conversation = Conversation.objects.get(pk=conversation_id)
    session = short_term.store().load(conversation_id, recent=settings.AGENT_HANDOFF_MESSAGES)
    spoken = [
        (m.role.value, m.content) for m in session.messages if m.role in (Role.USER, Role.ASSISTANT) and m.content
    ]
    transcript = "\n".join(f"{'customer' if role == 'user' else 'agent'}: {text}" for role, text in spoken)
    try:
        issue = llm.summarise(transcript, conversation_id=str(conversation_id)) if transcript else ""
    except llm.LLMError:
        issue = next((text for role, text in reversed(spoken) if role == "user"), "")
    tried = []
    for message in session.messages:
        if message.role is Role.TOOL_CALL:
            tried.extend(
                {"tool": c["name"], "arguments": c["arguments"]} for c in message.metadata.get("tool_calls", [])
            )
        elif message.role is Role.TOOL_RESULT and tried:
            tried[-1].setdefault("result", message.content[:500])
    facts = LongTermMemory.objects.valid().filter(customer_id=conversation.customer_id).order_by("-confidence")
    promises = [
        {"kind": "pending change", "summary": a.summary}
        for a in PendingAction.objects.filter(conversation_id=conversation_id, status=PendingAction.Status.PENDING)
    ] + [
        {"kind": "refund requested", "summary": f"{r.amount} for {r.order.number} ({r.reason})"}
        for r in Refund.objects.filter(order__customer_id=conversation.customer_id, status=Refund.Status.REQUESTED)
    ]
    states = StateTransition.objects.filter(conversation_id=conversation_id).order_by("id")
    profile = CustomerProfile.objects.filter(user_id=conversation.customer_id).first()
    return {
        "issue": issue,
        "tried": tried,
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
        ],  # fmt: skip
        "open_promises": promises,
        "states": [
            {"from": t.from_state, "to": t.to_state, "reason": t.reason, "at": t.created_at.isoformat()} for t in states
        ],
    }


def open_handoff(conversation_id: UUID | str) -> Handoff:
    """Queue an escalated conversation for staff with its packet (once per escalation), and record the
    promise the customer was given: a colleague gets back to them within ``COMMITMENT_CALLBACK_HOURS``."""
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
    customer_id = Conversation.objects.values_list("customer_id", flat=True).get(pk=conversation_id)
    due = commitments.callback_due()
    commitments.make(customer_id, Commitment.Kind.CALLBACK, due_at=due, conversation_id=conversation_id)
    return handoff


def waiting():
    """Escalated conversations nobody has taken, oldest first."""
    return Handoff.objects.filter(closed_at__isnull=True, taken_by__isnull=True).order_by("created_at")


def take(conversation_id: UUID | str, staff) -> Handoff:
    """Give the conversation to ``staff``; a second taker is refused."""
    with transaction.atomic():
        handoff = Handoff.objects.select_for_update().get(conversation_id=conversation_id, closed_at__isnull=True)
        if handoff.taken_by_id is not None:
            raise HandoffError(f"already taken by {handoff.taken_by}")
        handoff.taken_by, handoff.taken_at = staff, clock.now()
        handoff.save(update_fields=["taken_by", "taken_at"])
        commitments.close_callbacks(conversation_id, f"staff:{staff.get_username()}")
    _transition(conversation_id, AgentState.HUMAN, f"taken over by {staff.get_username()}")
    return handoff


MAX_REPLY_CHARS = 4000  # a staff reply, as a customer's message is limited by AGENT_MAX_FRAME_CHARS


def reply(conversation_id: UUID | str, staff, text: str) -> None:
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


def close(conversation_id: UUID | str, staff, resolution: str = "") -> None:
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


def hand_back(conversation_id: UUID | str, staff) -> None:
    """Give the conversation back to the bot."""
    _finish(conversation_id, staff, AgentState.COLLECTING_INFO, "handed back to the bot")


def _finish(conversation_id, staff, to: AgentState, reason: str) -> None:
    with transaction.atomic():
        handoff = Handoff.objects.select_for_update().get(conversation_id=conversation_id, closed_at__isnull=True)
        if handoff.taken_by_id != staff.pk:
            raise HandoffError("only the staff member who took it can close or hand it back")
        handoff.closed_at = clock.now()
        handoff.save(update_fields=["closed_at"])
    _transition(conversation_id, to, f"{reason} ({staff.get_username()})")


def _transition(conversation_id, to: AgentState, reason: str) -> None:
    result = short_term.store().transition(conversation_id, to, reason)
    for step in result.recorded:
        live.push(conversation_id, {"type": "state.changed", "from": step.from_state, "to": step.to_state})
