"""Working memory, the first tier: the token-budgeted buffer the model sees during one reasoning loop. It lives
in the agent's process for one turn and does no I/O; eviction keeps it within its budget while the message
list it produces stays one the API accepts, and the entries that must stay are pinned. See docs/session.md
("Working memory").
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from enum import StrEnum
from types import MappingProxyType
from typing import Any

from memory.tokens import count_tokens

SUMMARY_TEMPLATE = "[summary] {summary}"


class Role(StrEnum):
    SYSTEM = "system"
    USER = "user"
    ASSISTANT = "assistant"
    TOOL_CALL = "tool_call"
    TOOL_RESULT = "tool_result"


CONVERSATIONAL = frozenset({Role.SYSTEM, Role.USER, Role.ASSISTANT})


class PinnedOverflow(Exception):
    """The pinned entries alone need more tokens than the budget allows."""

    def __init__(self, pinned_tokens: int, budget_tokens: int, parts: Mapping[str, int]) -> None:
        self.pinned_tokens = pinned_tokens
        self.budget_tokens = budget_tokens
        self.parts = dict(parts)
        detail = ", ".join(f"{name} {tokens}" for name, tokens in self.parts.items() if tokens)
        super().__init__(
            f"pinned entries need {pinned_tokens} tokens but the working-memory budget is {budget_tokens} ({detail})"
        )


class IncompleteToolCall(ValueError):
    """A tool call has no result yet, so the buffer cannot become a valid message list."""


class UnknownToolCall(ValueError):
    """A tool result names a call that is not (or no longer) in the buffer."""


@dataclass(frozen=True)
class ToolCall:
    """One function call the model asked for: its id, name and JSON arguments as text."""

    id: str
    name: str
    arguments: str = "{}"

    def __post_init__(self) -> None:
        if not self.id or not self.name:
            raise ValueError("a tool call needs an id and a name")
        try:
            json.loads(self.arguments)
        except (TypeError, ValueError) as error:
            raise ValueError(f"tool call {self.id}: arguments are not JSON: {self.arguments!r}") from error

    def to_dict(self) -> dict[str, str]:
        return {"id": self.id, "name": self.name, "arguments": self.arguments}


@dataclass(frozen=True)
class Entry:
    """One item of working memory; ``tokens`` counts exactly the stored text, once."""

    role: Role
    content: str
    timestamp: datetime
    tokens: int
    metadata: Mapping[str, Any] = field(default_factory=dict)
    pinned: bool = False
    tool_calls: tuple[ToolCall, ...] = ()
    tool_call_id: str | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "role", Role(self.role))
        object.__setattr__(self, "metadata", MappingProxyType(dict(self.metadata)))
        object.__setattr__(self, "tool_calls", tuple(self.tool_calls))
        if (self.role is Role.TOOL_CALL) != bool(self.tool_calls):
            raise ValueError("a tool_call entry, and only one, carries tool calls")
        if (self.role is Role.TOOL_RESULT) != bool(self.tool_call_id):
            raise ValueError("a tool_result entry, and only one, carries a tool_call_id")

    @classmethod
    def create(
        cls,
        role: Role | str,
        content: str,
        *,
        timestamp: datetime,
        metadata: Mapping[str, Any] | None = None,
        tool_calls: Sequence[ToolCall] = (),
        tool_call_id: str | None = None,
        pinned: bool = False,
    ) -> Entry:
        """Build an entry and count its tokens: the content plus each call's name and arguments."""
        tokens = count_tokens(content) + sum(count_tokens(c.name) + count_tokens(c.arguments) for c in tool_calls)
        return cls(
            role=Role(role),
            content=content,
            timestamp=timestamp,
            tokens=tokens,
            metadata=metadata or {},
            pinned=pinned,
            tool_calls=tuple(tool_calls),
            tool_call_id=tool_call_id,
        )

    @property
    def answered_call(self) -> str:
        """The id of the call this tool result answers (``__post_init__`` makes sure it has one)."""
        if self.tool_call_id is None:
            raise ValueError(f"a {self.role} entry answers no tool call")
        return self.tool_call_id

    def to_dict(self) -> dict[str, Any]:
        """Return a JSON-ready dict (for the inspector and the session store)."""
        data: dict[str, Any] = {
            "role": self.role.value,
            "content": self.content,
            "timestamp": self.timestamp.isoformat(),
            "tokens": self.tokens,
            "metadata": dict(self.metadata),
            "pinned": self.pinned,
        }
        if self.tool_calls:
            data["tool_calls"] = [call.to_dict() for call in self.tool_calls]
        if self.tool_call_id:
            data["tool_call_id"] = self.tool_call_id
        return data


@dataclass(frozen=True)
class Usage:
    used: int
    max: int
    ratio: float


def _utcnow() -> datetime:
    return datetime.now(UTC)


def budget_tokens() -> int:
    """The token budget of one reasoning loop (``MEMORY_WORKING_BUDGET_TOKENS``)."""
    from django.conf import settings

    budget: int = settings.MEMORY_WORKING_BUDGET_TOKENS
    return budget


# What ``WorkingMemory._save`` keeps to undo a failed append: turns, tokens used, the pinned
# user message's index, call id -> tool_call entry index, answered call ids.
_Snapshot = tuple[list[Entry], int, int | None, dict[str, int], set[str]]


class WorkingMemory:
    """A token-budgeted buffer of entries for one reasoning loop."""

    def __init__(
        self,
        budget_tokens: int,
        *,
        summarise_over_tokens: int | None = None,
        keep_tool_results: int | None = None,
        clock: Callable[[], datetime] = _utcnow,
    ) -> None:
        """``summarise_over_tokens`` and ``keep_tool_results`` default to their settings
        (``MEMORY_TOOL_RESULT_SUMMARY_TOKENS``, ``MEMORY_WORKING_KEEP_TOOL_RESULTS``)."""
        from django.conf import settings

        if budget_tokens <= 0:
            raise ValueError("budget_tokens must be positive")
        self.budget_tokens = budget_tokens
        self.summarise_over_tokens = (
            settings.MEMORY_TOOL_RESULT_SUMMARY_TOKENS if summarise_over_tokens is None else summarise_over_tokens
        )
        self.keep_tool_results = (
            settings.MEMORY_WORKING_KEEP_TOOL_RESULTS if keep_tool_results is None else keep_tool_results
        )
        self._clock = clock
        self._system: Entry | None = None
        self._memory: Entry | None = None
        self._turns: list[Entry] = []
        self._used = 0
        self._latest_user: int | None = None  # index in _turns of the pinned user message
        self._call_entry: dict[str, int] = {}  # call id -> index of its tool_call entry
        self._answered: set[str] = set()  # call ids whose result is in the buffer
        self.evicted = 0  # entries evicted so far, for the inspector

    @classmethod
    def from_settings(cls, **kwargs: Any) -> WorkingMemory:
        """Build a buffer with ``MEMORY_WORKING_BUDGET_TOKENS``."""
        return cls(budget_tokens(), **kwargs)

    # -- pinned entries ------------------------------------------------------------------

    def set_system(self, content: str) -> Entry:
        """Set (or replace) the pinned system prompt."""
        entry = Entry.create(Role.SYSTEM, content, timestamp=self._clock(), pinned=True, metadata={"kind": "prompt"})
        self._replace_pinned("_system", entry)
        return entry

    def set_memory(self, content: str) -> Entry | None:
        """Set (or replace, or with empty content remove) the pinned memory block."""
        entry = None
        if content:
            entry = Entry.create(
                Role.SYSTEM, content, timestamp=self._clock(), pinned=True, metadata={"kind": "memory"}
            )
        self._replace_pinned("_memory", entry)
        return entry

    def _replace_pinned(self, slot: str, entry: Entry | None) -> None:
        old: Entry | None = getattr(self, slot)
        delta = (entry.tokens if entry else 0) - (old.tokens if old else 0)
        setattr(self, slot, entry)
        self._used += delta
        try:
            self._evict()
        except PinnedOverflow:
            setattr(self, slot, old)
            self._used -= delta
            raise

    # -- appends -------------------------------------------------------------------------

    def append_user(self, content: str, metadata: Mapping[str, Any] | None = None) -> Entry:
        """Append the customer's message; it becomes the pinned latest user message."""
        return self.append(Entry.create(Role.USER, content, timestamp=self._clock(), metadata=metadata))

    def append_assistant(self, content: str, metadata: Mapping[str, Any] | None = None) -> Entry:
        """Append a reply of the assistant."""
        return self.append(Entry.create(Role.ASSISTANT, content, timestamp=self._clock(), metadata=metadata))

    def append_tool_call(
        self, calls: Sequence[ToolCall], content: str = "", metadata: Mapping[str, Any] | None = None
    ) -> Entry:
        """Append one assistant turn that asks for one or more tool calls."""
        return self.append(
            Entry.create(Role.TOOL_CALL, content, timestamp=self._clock(), tool_calls=calls, metadata=metadata)
        )

    def append_tool_result(
        self,
        call_id: str,
        raw: str,
        summarise: Callable[[str], str],
        *,
        shown: str | None = None,
        keep: Sequence[str] = (),
    ) -> Entry:
        """Append a call's result; when ``raw`` is longer than the threshold, summarised by ``summarise``.

        ``shown`` is the result as the caller compacted it for the model (``raw`` by default): what is
        summarised, or stored as it is when the result is short. The stored content is what the model
        will read; the caller keeps ``raw`` in the session for audit. A summary is used only when it is
        shorter than ``shown`` and carries every value of ``keep`` as written (the ids, amounts and
        statuses a later step needs): a model that drops or rewrites one costs tokens, never a value.
        """
        if call_id not in self._call_entry:
            raise UnknownToolCall(f"no tool call {call_id!r} in working memory")
        raw_tokens = count_tokens(raw)
        shown = raw if shown is None else shown
        shown_tokens = raw_tokens if shown is raw else count_tokens(shown)
        content, tokens = shown, shown_tokens
        metadata: dict[str, Any] = {"raw_chars": len(raw), "raw_tokens": raw_tokens, "summarised": False}
        if raw_tokens > self.summarise_over_tokens:  # a long result: what compaction left is summarised too
            candidate = SUMMARY_TEMPLATE.format(summary=summarise(shown).strip())
            candidate_tokens = count_tokens(candidate)
            if candidate_tokens >= shown_tokens:
                metadata["summary"] = "not_shorter"
            elif not all(value in candidate for value in keep):
                metadata["summary"] = "lost_values"
            else:
                content, tokens = candidate, candidate_tokens
                metadata |= {"summarised": True, "summary": "used"}
        entry = Entry(
            role=Role.TOOL_RESULT,
            content=content,
            timestamp=self._clock(),
            tokens=tokens,
            metadata=metadata,
            tool_call_id=call_id,
        )
        return self.append(entry)

    def append(self, entry: Entry) -> Entry:
        """Append ``entry`` and evict down to the budget; return the entry as stored."""
        if entry.role is Role.SYSTEM and entry.pinned:
            raise ValueError("use set_system() or set_memory() for pinned system entries")
        self._check_tool_ids(entry)
        if self._used + entry.tokens <= self.budget_tokens:
            return self._add(entry)  # nothing to evict: no snapshot needed
        saved = self._save()
        try:
            stored = self._add(entry)
            self._evict()
        except PinnedOverflow:
            self._restore(saved)
            raise
        return stored

    def extend(self, entries: Iterable[Entry]) -> None:
        """Append a stretch of history, dropping tool calls and results that lost their pair.

        Used to fill the buffer from the session, where compression or a crash mid-turn may have
        split a tool call from its results. Evicts once, at the end.
        """
        entries = list(entries)
        results = {e.tool_call_id for e in entries if e.role is Role.TOOL_RESULT}
        complete = {id(e) for e in entries if e.role is Role.TOOL_CALL and all(c.id in results for c in e.tool_calls)}
        kept_calls = {c.id for e in entries if id(e) in complete for c in e.tool_calls}
        # Only the stretch's last customer message ends up pinned: the others go in as they are (a pinned
        # copy made and unpinned again for each would be most of the cost of filling the buffer).
        last_user = max((i for i, e in enumerate(entries) if e.role is Role.USER), default=None)
        saved = self._save()
        try:
            for index, entry in enumerate(entries):
                if entry.role is Role.TOOL_CALL and id(entry) not in complete:
                    continue
                if entry.role is Role.TOOL_RESULT and entry.tool_call_id not in kept_calls:
                    continue
                if entry.role is Role.SYSTEM and entry.pinned:
                    entry = dataclasses.replace(entry, pinned=False)
                self._check_tool_ids(entry)
                self._add(entry, pin=index == last_user)
            self._evict()
        except (PinnedOverflow, ValueError):
            self._restore(saved)
            raise

    def _check_tool_ids(self, entry: Entry) -> None:
        if entry.role is Role.TOOL_CALL:
            for call in entry.tool_calls:
                if call.id in self._call_entry:
                    raise ValueError(f"tool call id {call.id!r} is already in working memory")
        elif entry.role is Role.TOOL_RESULT:
            if entry.tool_call_id not in self._call_entry:
                raise UnknownToolCall(f"no tool call {entry.tool_call_id!r} in working memory")
            if entry.tool_call_id in self._answered:
                raise ValueError(f"tool call {entry.tool_call_id!r} already has a result")

    def _add(self, entry: Entry, *, pin: bool = True) -> Entry:
        """Add ``entry``; a customer message becomes the pinned latest one unless ``pin`` is false."""
        index = len(self._turns)
        if entry.role is Role.USER and pin:
            entry = dataclasses.replace(entry, pinned=True)
            if self._latest_user is not None:
                self._turns[self._latest_user] = dataclasses.replace(self._turns[self._latest_user], pinned=False)
            self._latest_user = index
        elif entry.pinned:
            entry = dataclasses.replace(entry, pinned=False)
        if entry.role is Role.TOOL_CALL:
            for call in entry.tool_calls:
                self._call_entry[call.id] = index
        elif entry.role is Role.TOOL_RESULT:
            self._answered.add(entry.answered_call)
        self._turns.append(entry)
        self._used += entry.tokens
        return entry

    def _save(self) -> _Snapshot:
        return (list(self._turns), self._used, self._latest_user, dict(self._call_entry), set(self._answered))

    def _restore(self, saved: _Snapshot) -> None:
        self._turns, self._used, self._latest_user, self._call_entry, self._answered = saved

    # -- eviction ------------------------------------------------------------------------

    def _evict(self) -> None:
        """Evict whole units, oldest first by phase, until within budget; one pass, O(n).

        Phase 1: tool-call turns (with all their results) except those holding the latest
        ``keep_tool_results`` results (two by default). Phase 2: unpinned user and assistant
        entries, then the summary of the compressed history. Phase 3: the remaining tool-call
        turns. The step in progress (a tool-call turn still waiting for a result, and the newest
        tool-call turn after the latest user message) counts as pinned.
        """
        excess = self._used - self.budget_tokens
        if excess <= 0:
            return
        turns = self._turns
        group_tokens: dict[int, int] = {}  # tool_call index -> tokens of the call and its results
        group_results: dict[int, list[int]] = {}
        for index, entry in enumerate(turns):
            if entry.role is Role.TOOL_CALL:
                group_tokens[index] = entry.tokens
                group_results[index] = []
            elif entry.role is Role.TOOL_RESULT:
                owner = self._call_entry[entry.answered_call]
                group_tokens[owner] += entry.tokens
                group_results[owner].append(index)
        # The step in progress: calls still waiting for results, and the newest tool turn of the
        # current user turn (evicting it would hide the result the model has just asked for).
        protected = {i for i in group_tokens if len(group_results[i]) < len(turns[i].tool_calls)}
        newest = max(group_tokens, default=None)
        if newest is not None and (self._latest_user is None or newest > self._latest_user):
            protected.add(newest)
        recent: set[int] = set()  # tool-call turns holding the latest keep_tool_results results
        seen = 0
        for index in range(len(turns) - 1, -1, -1):
            if seen >= self.keep_tool_results:
                break
            if turns[index].role is Role.TOOL_RESULT:
                recent.add(self._call_entry[turns[index].answered_call])
                seen += 1

        phase1 = [(i, group_tokens[i]) for i in group_tokens if i not in recent and i not in protected]
        # The summary of the compressed history stands for every older message at once: it goes after them.
        phase2 = sorted(
            ((i, e.tokens) for i, e in enumerate(turns) if e.role in CONVERSATIONAL and not e.pinned),
            key=lambda pair: turns[pair[0]].metadata.get("kind") == "summary",
        )
        phase3 = [(i, group_tokens[i]) for i in group_tokens if i in recent and i not in protected]
        evictable = sum(t for phase in (phase1, phase2, phase3) for _, t in phase)
        if excess > evictable:
            raise PinnedOverflow(
                self._used - evictable, self.budget_tokens, self._pinned_parts(protected, group_tokens)
            )

        removed: set[int] = set()
        for phase in (phase1, phase2, phase3):
            for index, tokens in phase:
                if excess <= 0:
                    break
                removed.add(index)
                removed.update(group_results.get(index, ()))
                excess -= tokens
        self._rebuild([e for i, e in enumerate(turns) if i not in removed])
        self.evicted += len(removed)

    def _pinned_parts(self, protected: set[int], group_tokens: dict[int, int]) -> dict[str, int]:
        latest = self._turns[self._latest_user].tokens if self._latest_user is not None else 0
        return {
            "system prompt": self._system.tokens if self._system else 0,
            "memory block": self._memory.tokens if self._memory else 0,
            "latest user message": latest,
            "tool step in progress": sum(group_tokens[i] for i in protected),
        }

    def _rebuild(self, turns: list[Entry]) -> None:
        self._turns = turns
        self._used = (self._system.tokens if self._system else 0) + (self._memory.tokens if self._memory else 0)
        self._latest_user = None
        self._call_entry = {}
        self._answered = set()
        for index, entry in enumerate(turns):
            self._used += entry.tokens
            if entry.role is Role.USER:
                self._latest_user = index
            elif entry.role is Role.TOOL_CALL:
                for call in entry.tool_calls:
                    self._call_entry[call.id] = index
            elif entry.role is Role.TOOL_RESULT:
                self._answered.add(entry.answered_call)

    # -- reading -------------------------------------------------------------------------

    def entries(self) -> tuple[Entry, ...]:
        """Return every entry in order: system prompt, memory block, then the turns."""
        head = tuple(e for e in (self._system, self._memory) if e is not None)
        return head + tuple(self._turns)

    def to_messages(self) -> list[dict[str, Any]]:
        """Return the OpenAI chat message list: each tool-call turn directly followed by its results."""
        results = {e.tool_call_id: e for e in self._turns if e.role is Role.TOOL_RESULT}
        messages: list[dict[str, Any]] = []
        for entry in (self._system, self._memory):
            if entry is not None:
                messages.append({"role": "system", "content": entry.content})
        for entry in self._turns:
            if entry.role in CONVERSATIONAL:
                messages.append({"role": entry.role.value, "content": entry.content})
            elif entry.role is Role.TOOL_CALL:
                missing = [c.id for c in entry.tool_calls if c.id not in results]
                if missing:
                    raise IncompleteToolCall(f"tool calls without a result yet: {', '.join(missing)}")
                messages.append(
                    {
                        "role": "assistant",
                        "content": entry.content or None,
                        "tool_calls": [
                            {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments}}
                            for c in entry.tool_calls
                        ],
                    }
                )
                for call in entry.tool_calls:
                    messages.append({"role": "tool", "tool_call_id": call.id, "content": results[call.id].content})
        return messages

    def conversation_tokens(self) -> int:
        """Tokens of the conversation alone, without the system prompt and the memory block."""
        return self._used - sum(e.tokens for e in (self._system, self._memory) if e is not None)

    def usage(self) -> Usage:
        """Return tokens used, the budget and their ratio."""
        return Usage(used=self._used, max=self.budget_tokens, ratio=self._used / self.budget_tokens)

    def snapshot(self) -> dict[str, Any]:
        """Return a JSON-ready picture of the buffer for the memory inspector."""
        usage = self.usage()
        return {
            "usage": {"used": usage.used, "max": usage.max, "ratio": round(usage.ratio, 4)},
            "evicted": self.evicted,
            "entries": [entry.to_dict() for entry in self.entries()],
        }
