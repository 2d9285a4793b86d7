"""Compression of a long conversation: which chunks are due, what the summariser reads, one compressor at a time.

Past ``MEMORY_COMPRESS_AFTER`` messages, everything but the latest ``MEMORY_COMPRESS_KEEP_RECENT`` is
summarised in chunks on a fixed grid, and working memory gets the summaries as one system entry instead
of the messages. The session store calls this module and stores each summary as one of its writes. See
docs/session.md.
"""

from __future__ import annotations

import contextlib
import uuid
import zlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import NamedTuple

from memory.locks import try_advisory_lock
from memory.models import Conversation
from memory.session import rows
from memory.session.values import StoredMessage, Summary
from memory.tokens import count_tokens
from memory.working import Entry, Role

SUMMARY_HEADER = "[earlier conversation summary]"
_ADVISORY_NAMESPACE = 0x53544D  # "STM": pg_try_advisory_lock(namespace, conversation hash)


class Chunk(NamedTuple):
    """Messages ``first``..``last`` of a conversation, summarised together."""

    first: int
    last: int


@dataclass(frozen=True)
class CompressionPolicy:
    """When a conversation is compressed and in which chunks."""

    compress_after: int
    keep_recent: int
    chunk_size: int

    def pending(self, last_seq: int, covered: int) -> list[Chunk]:
        """The chunks still to summarise, given the latest seq and the last summarised one.

        Past ``compress_after`` messages, everything but the latest ``keep_recent`` is summarised in
        whole chunks of ``chunk_size`` on a fixed grid (1-10, 11-20, ...), so a chunk is the same range
        whenever it is computed and is summarised once.
        """
        if last_seq <= self.compress_after:
            return []
        boundary = last_seq - self.keep_recent
        chunks = []
        first = covered + 1
        while first + self.chunk_size - 1 <= boundary:
            chunks.append(Chunk(first, first + self.chunk_size - 1))
            first += self.chunk_size
        return chunks

    def due(self, conversation_id: uuid.UUID | str, last_seq: int) -> bool:
        """Whether a chunk of this conversation is due for a summary (one cheap query past the threshold)."""
        if last_seq <= self.compress_after:
            return False
        return bool(self.pending(last_seq, rows.covered_seq(conversation_id)))


def format_chunk(messages: Sequence[StoredMessage]) -> str:
    """Return the transcript text of a chunk of messages, as the summariser reads it."""
    lines = []
    for message in messages:
        if message.role is Role.TOOL_CALL:
            calls = "; ".join(f"{c['name']}({c['arguments']})" for c in message.metadata.get("tool_calls", ()))
            text = f"assistant called {calls}" + (f" saying: {message.content}" if message.content else "")
        elif message.role is Role.TOOL_RESULT:
            text = f"tool result: {message.content}"
        else:
            text = f"{message.role.value}: {message.content}"
        lines.append(f"#{message.seq} {text}")
    return "\n".join(lines)


def compress(
    conversation_id: uuid.UUID | str,
    policy: CompressionPolicy,
    summarise: Callable[[str], str],
    store_summary: Callable[[Summary], None],
) -> list[Summary]:
    """Summarise every chunk due and not yet summarised, storing each with ``store_summary``; return them.

    ``summarise`` (the cheap model) is called once per chunk, outside any transaction. A conversation
    is compressed by one caller at a time (a PostgreSQL advisory lock); a caller that finds it busy
    returns at once and the next turn catches up.
    """
    with _compression_lock(conversation_id) as acquired:
        if not acquired:
            return []
        last_seq = Conversation.objects.values_list("last_seq", flat=True).get(pk=conversation_id)
        created = []
        for first, last in policy.pending(last_seq, rows.covered_seq(conversation_id)):
            messages = rows.read_chunk(conversation_id, first, last)
            text = summarise(format_chunk(messages)).strip()
            summary = Summary(first, last, text, sum(m.tokens for m in messages), count_tokens(text))
            store_summary(summary)
            created.append(summary)
        return created


def summary_entry(summaries: Sequence[Summary], at: datetime) -> Entry:
    """The one working-memory entry that stands for every summarised message."""
    text = "\n".join([SUMMARY_HEADER, *(s.content for s in summaries)])
    metadata = {"kind": "summary", "first_seq": summaries[0].first_seq, "last_seq": summaries[-1].last_seq}
    return Entry.create(Role.SYSTEM, text, timestamp=at, metadata=metadata)


def _compression_lock(conversation_id: uuid.UUID | str) -> contextlib.AbstractContextManager[bool]:
    key = zlib.crc32(uuid.UUID(str(conversation_id)).bytes) - 2**31  # int4; a collision only delays
    return try_advisory_lock(_ADVISORY_NAMESPACE, key)
