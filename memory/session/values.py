"""The values short-term memory hands out: a session as one read saw it, its messages, summaries and transitions.
They live in the process, frozen so that a turn's threads can share one loaded session and the hot copy can
cache a parsed message; they are built here from PostgreSQL rows, and ``hot`` writes them to Redis. See
docs/session.md.
"""

from __future__ import annotations

import functools
import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from types import MappingProxyType
from typing import Any

from memory.models import CompressionSummary, ConversationMessage, StateTransition
from memory.states import AgentState, Loop, Step, bot_may_reply
from memory.working import Entry, Role, ToolCall

# Keys of a message's metadata that the store itself fills.
RESERVED_METADATA = ("tool_calls", "tool_call_id", "raw", "by_staff")


class BotMayNotReply(Exception):
    """The bot tried to answer while a person is awaited or in charge."""


@dataclass(frozen=True)
class StoredMessage:
    """A message as short-term memory keeps it."""

    seq: int
    role: Role
    content: str
    tokens: int
    created_at: datetime
    metadata: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        object.__setattr__(self, "role", Role(self.role))
        object.__setattr__(self, "metadata", MappingProxyType(dict(self.metadata)))

    @classmethod
    def from_row(cls, row: ConversationMessage) -> StoredMessage:
        return cls(row.seq, Role(row.role), row.content, row.token_count, row.created_at, row.metadata)

    def to_entry(self) -> Entry:
        """Return the working-memory entry for this message (its token count is reused, not recounted)."""
        return self._entry

    @functools.cached_property
    def _entry(self) -> Entry:
        # Built once per message object: a message parsed once (the hot copy's cache) is read by every turn.
        meta = {k: v for k, v in self.metadata.items() if k not in RESERVED_METADATA}
        meta["seq"] = self.seq
        calls = tuple(ToolCall(**call) for call in self.metadata.get("tool_calls", ()))
        return Entry(
            role=self.role,
            content=self.content,
            timestamp=self.created_at,
            tokens=self.tokens,
            metadata=meta,
            tool_calls=calls,
            tool_call_id=self.metadata.get("tool_call_id"),
        )


@dataclass(frozen=True)
class Summary:
    """The summary of messages ``first_seq``..``last_seq``."""

    first_seq: int
    last_seq: int
    content: str
    tokens_before: int
    tokens_after: int

    @classmethod
    def from_row(cls, row: CompressionSummary) -> Summary:
        return cls(row.first_seq, row.last_seq, row.content, row.tokens_before, row.tokens_after)


@dataclass(frozen=True)
class TransitionRecord:
    """One recorded change of state."""

    from_state: AgentState
    to_state: AgentState
    reason: str
    progress: bool
    at: datetime

    @classmethod
    def from_row(cls, row: StateTransition) -> TransitionRecord:
        return cls(AgentState(row.from_state), AgentState(row.to_state), row.reason, row.progress, row.created_at)

    @property
    def step(self) -> Step:
        """The transition as loop detection reads it."""
        return Step(self.from_state, self.to_state, self.progress)


# The fields a session carries from its conversation row as they are (state and collected info change type).
ROW_FIELDS = ("id", "customer_id", "created_at", "updated_at", "ended_at", "last_seq", "version", "loop_flagged")


@dataclass(frozen=True)
class Session:
    """A conversation's short-term memory as one read saw it."""

    id: uuid.UUID
    customer_id: int
    state: AgentState
    collected_info: Mapping[str, Any]
    created_at: datetime
    updated_at: datetime
    ended_at: datetime | None
    last_seq: int
    version: int
    loop_flagged: bool
    messages: tuple[StoredMessage, ...]
    summaries: tuple[Summary, ...]
    transitions: tuple[TransitionRecord, ...]
    source: str  # "redis", "rebuilt" (from PostgreSQL into Redis) or "postgres" (Redis unavailable)

    @property
    def bot_may_reply(self) -> bool:
        return bot_may_reply(self.state)


@dataclass(frozen=True)
class TransitionResult:
    """Where a transition request left the conversation."""

    state: AgentState
    recorded: tuple[TransitionRecord, ...]
    loop: Loop | None = None
