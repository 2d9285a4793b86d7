"""Why we remember something: the customer's own message a long-term memory was taken from, quoted from
short-term memory's durable copy (PostgreSQL) at display time and never stored again, so a quote shows no more
than the redacted transcript and goes when the conversation is erased. See docs/longterm.md ("Provenance").
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.db.models import Q

from memory.models import ConversationMessage, LongTermMemory

QUOTE_CHARS = 160


@dataclass(frozen=True)
class Quote:
    """One message a memory came from: when it was said, and what was said (shortened)."""

    conversation_id: str
    seq: int
    said_at: datetime
    text: str


def quotes(memories: list[LongTermMemory]) -> dict[int, Quote]:
    """The first source message of each memory that has one, by memory id (one query for all)."""
    wanted = {
        m.pk: (m.source_conversation_id, m.source_seqs[0])
        for m in memories
        if m.source_conversation_id and m.source_seqs
    }
    if not wanted:
        return {}
    condition = Q()
    for conversation_id, seq in set(wanted.values()):
        condition |= Q(conversation_id=conversation_id, seq=seq)
    found = {
        (row.conversation_id, row.seq): row
        for row in ConversationMessage.objects.filter(condition).only("conversation_id", "seq", "content", "created_at")
    }
    out = {}
    for memory_id, where in wanted.items():
        row = found.get(where)
        if row is not None:
            text = " ".join(row.content.split())
            text = text if len(text) <= QUOTE_CHARS else text[: QUOTE_CHARS - 1] + "…"
            out[memory_id] = Quote(str(row.conversation_id), row.seq, row.created_at, text)
    return out
