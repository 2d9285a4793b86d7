"""Every kind of row the system keeps about one customer, each carrying a marker the attack tests look for."""

from __future__ import annotations

from dataclasses import dataclass

from django.db import transaction

from agentsite import clock
from chat.models import ConversationRating, Handoff, Order, PendingAction, Refund
from memory.embeddings import get_embedder
from memory.longterm import Candidate, insert
from memory.models import LongTermMemory, MemoryConflict
from memory.session import SessionStore
from memory.working import Entry, Role


@dataclass
class Footprint:
    """Every kind of row the system keeps about one customer, each carrying ``text``."""

    user: object
    order: Order
    memory: LongTermMemory
    conversation_id: str
    conflict: MemoryConflict
    rating: ConversationRating
    handoff: Handoff


def leave_footprint(user, order: Order, text: str, *, birthday: str = "03-15") -> Footprint:
    """Give ``user`` a memory, a transcript, a rating, a conflict, a handoff, a refund and a pending change."""
    store = SessionStore()
    now = clock.now()
    content = f"The customer's birthday is {birthday}; {text}"
    with transaction.atomic():
        memory = insert(
            user.pk,
            Candidate(type="fact", content=content, confidence=0.9, key="birthday", value=birthday),
            get_embedder().embed_passages([content])[0],
            actor="test",
            now=now,
        )
    session = store.start(user.pk)
    for role, said in [(Role.USER, f"My order {order.number}: {text}"), (Role.ASSISTANT, f"Noted: {text}")]:
        store.append(session.id, Entry.create(role, said, timestamp=now))
    conflict = MemoryConflict.objects.create(
        customer=user,
        existing=memory,
        key="birthday",
        incoming_value=birthday,
        incoming_content=f"Incoming: {text}",
        incoming_source="customer_stated",
        incoming_confidence=0.9,
    )
    rating = ConversationRating.objects.create(conversation_id=session.id, score=2, comment=f"Rated: {text}")
    escalated = store.start(user.pk)
    store.append(escalated.id, Entry.create(Role.USER, f"A person please: {text}", timestamp=now))
    store.transition(escalated.id, "escalated", "the customer asked for a person")
    handoff = Handoff.objects.create(
        conversation_id=escalated.id,
        packet={
            "issue": f"Issue: {text}",
            "tried": [{"tool": "lookup_order", "arguments": {"order_number": order.number}, "result": text}],
            "facts": [{"content": content, "key": "birthday", "value": birthday, "source": "customer_stated"}],
            "open_promises": [{"kind": "refund requested", "summary": text}],
            "states": [{"from": "processing", "to": "escalated", "reason": text, "at": now.isoformat()}],
        },
    )
    Refund.objects.create(order=order, amount=order.total, reason=f"Refund: {text}", conversation_id=session.id)
    PendingAction.objects.create(
        conversation_id=session.id,
        customer=user,
        tool="update_shipping_address",
        arguments={"address": text},
        summary=f"change the shipping address to {text}"[:300],
    )
    return Footprint(user, order, memory, str(session.id), conflict, rating, handoff)
