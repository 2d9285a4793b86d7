"""A conversation's recap: the one ``summary`` memory a finished conversation leaves in long-term memory
(PostgreSQL), saying what the customer wanted, what was done and what is open, kept until forgetting or
erasure and replaced when the same conversation is recapped again. Whatever the cheap model returns, no
transcript line, speaker label or instruction reaches the memory. See docs/longterm.md ("Conversation
recaps").
"""

from __future__ import annotations

import logging
import re

from django.conf import settings

from agentsite import llm, timings
from memory.instructions import without_instructions
from memory.longterm import Candidate
from memory.models import Conversation, ConversationMessage, MemoryType, Source
from memory.states import AgentState
from memory.tokens import count_tokens

logger = logging.getLogger(__name__)

_CJK = re.compile(r"[\u4e00-\u9fff]")
_SPEAKER = re.compile(r"(?im)^\s*(?:customer|agent|user|assistant|客户|客服)\s*[:：]\s*")
_SENTENCE = re.compile(r"(?<=[。！？!?])|(?<=[.;；])\s+")


# "Anything else I can help with?" closes a reply politely; it asks the customer nothing.
_COURTESY = re.compile(
    r"(?i)\s*(?:is\s+there\s+)?anything\s+else[^?]*\?\s*$|\s*(?:请问)?还有(?:什么|其他|别的)[^？?]*[？?]\s*$"
)


class RecapDeferred(Exception):
    """The model could not write the recap now; the run is tried again later."""


def language_of(transcript: list[tuple[str, str]]) -> str:
    """The customer's language: "zh" when their messages are mostly Chinese."""
    said = " ".join(text for speaker, text in transcript if speaker == "customer")
    han, latin = len(_CJK.findall(said)), len(re.findall(r"[A-Za-z]{2,}", said))
    return "zh" if han >= latin else "en"


def outcome(conversation: Conversation, transcript: list[tuple[str, str]]) -> str:
    """How the conversation ended: escalated, confirming (a change waits), open (the agent's last words ask
    something), else resolved, whatever state the last "thanks, bye" left it in."""
    if conversation.state in (AgentState.ESCALATED, AgentState.CONFIRMING, AgentState.RESOLVED):
        return str(conversation.state)
    last = _COURTESY.sub("", next((text for speaker, text in reversed(transcript) if speaker == "agent"), ""))
    return "open" if re.search(r"[?？]\s*$", last) else str(AgentState.RESOLVED)


def recap(conversation: Conversation, transcript: list[tuple[str, str]], seqs: tuple[int, ...]) -> Candidate | None:
    """The conversation's recap as a memory to store, or ``None`` when it said nothing."""
    if not transcript:
        return None
    lines = [f"Ended: {outcome(conversation, transcript)}"]
    lines += [f"{speaker}: {' '.join(text.split())}" for speaker, text in transcript]
    cap = settings.MEMORY_SUMMARY_MAX_TOKENS
    try:
        with timings.phase("model"):
            written = llm.summarise_conversation(
                "\n".join(lines), language=language_of(transcript), max_tokens=cap, conversation_id=str(conversation.pk)
            )
    except llm.LLMError as exc:
        raise RecapDeferred(str(exc)) from exc
    content = within(cleaned(written), cap)
    if not content:
        return None
    return Candidate(
        type=MemoryType.SUMMARY,
        content=content,
        confidence=settings.MEMORY_SUMMARY_CONFIDENCE,
        source=Source.AGENT_INFERRED,
        conversation_id=conversation.pk,
        source_seqs=seqs,
        metadata={"conversation_summary": str(conversation.pk), "ended": outcome(conversation, transcript)},
    )


def cleaned(text: str) -> str:
    """One paragraph without speaker labels or the sentences that read like instructions."""
    flat = " ".join(_SPEAKER.sub("", line).strip() for line in text.splitlines() if line.strip())
    return without_instructions(flat)


def within(text: str, cap: int) -> str:
    """``text`` cut to whole sentences within ``cap`` tokens (a first sentence longer than that, to words)."""
    if count_tokens(text) <= cap:
        return text
    kept = ""
    for sentence in (s for s in _SENTENCE.split(text) if s.strip()):
        joined = f"{kept} {sentence.strip()}".strip() if not _CJK.search(sentence) else kept + sentence.strip()
        if count_tokens(joined) > cap:
            break
        kept = joined
    if kept:
        return kept
    while text and count_tokens(text + "…") > cap:
        text = text[: int(len(text) * 0.9)].rstrip()
    return text + "…" if text else ""


def seqs_of(conversation: Conversation) -> tuple[int, ...]:
    """The customer's messages the recap is drawn from (its provenance on the memory page)."""
    rows = ConversationMessage.objects.filter(conversation=conversation, role="user").order_by("seq")
    return tuple(rows.values_list("seq", flat=True)[:50])


# What a recap written before recaps existed looks like: the transcript itself.
_LEGACY = re.compile(r"(?im)^\s*(?:customer|agent)\s*:|\(conversation ended: \w+\)\s*$")


def rewrite(conversation: Conversation) -> str:
    """Write the conversation's recap again (``manage.py recap_conversations``); returns the store's outcome."""
    from django.db import transaction

    from memory.consolidation import transcript_of  # it imports this module
    from memory.embeddings import get_embedder
    from memory.longterm import customer_lock, store

    candidate = recap(conversation, transcript_of(conversation), seqs_of(conversation))
    if candidate is None:
        return "skipped"
    vector = get_embedder().embed_passages([candidate.content])[0]
    with transaction.atomic():
        customer_lock(conversation.customer_id)
        return store(conversation.customer_id, candidate, vector, actor="recap_conversations").action


def is_legacy(content: str) -> bool:
    return bool(_LEGACY.search(content))
