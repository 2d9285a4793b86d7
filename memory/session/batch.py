"""A batch: the writes to one conversation of short-term memory and the rules they follow, gathered into one
PostgreSQL transaction and one Redis write. It lives for one turn's writes, in a ``ContextVar`` so that code
unaware of it joins it, and keeps each write as data so it can be made again under the row lock. See
docs/session.md.
"""

from __future__ import annotations

import contextlib
import copy
import json
import logging
from collections.abc import Collection, Iterator, Mapping
from contextvars import ContextVar
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, overload

from agentsite.redaction import redact_json
from memory.models import Conversation
from memory.session import rows
from memory.session.hot import HotWrites
from memory.session.rows import MessageRow, TransitionRow
from memory.session.values import ROW_FIELDS, BotMayNotReply, Session, StoredMessage, TransitionRecord, TransitionResult
from memory.states import (
    SILENT_STATES,
    AgentState,
    Step,
    bot_may_reply,
    check_transition,
    detect_loop,
    is_allowed,
    steps_to_check,
)
from memory.working import Entry, Role

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class Append:
    """Store one message (``SessionStore.append``); ``entry`` is already redacted."""

    entry: Entry
    raw: str | None
    by_staff: bool
    now: datetime


@dataclass(frozen=True)
class UpdateInfo:
    """Merge slots into the collected info (``SessionStore.update_info``)."""

    slots: Mapping[str, Any]
    now: datetime


@dataclass(frozen=True)
class Move:
    """Change the conversation's state (``SessionStore.transition``); ``reason`` is already redacted."""

    to_state: AgentState
    reason: str
    progress: bool
    only_from: Collection[AgentState] | None
    now: datetime


Write = Append | UpdateInfo | Move


@dataclass
class Batch:
    """The writes of one batch to one conversation, applied when the batch ends.

    Under the row lock, PostgreSQL rows (messages, transitions) are inserted as the batch goes; decided on
    a snapshot (``expected_version`` set), they wait in ``messages`` and ``transitions`` for one statement.
    Either way the conversation row is saved once and Redis written once, so a batch is one version step
    however many writes it holds.
    """

    conversation: Conversation
    now: datetime
    expected_version: int | None = None
    saved: set[str] = field(default_factory=set)  # Conversation fields to save
    hot: HotWrites = field(default_factory=HotWrites)
    recorded: list[TransitionRecord] = field(default_factory=list)
    messages: list[MessageRow] = field(default_factory=list)
    transitions: list[TransitionRow] = field(default_factory=list)
    replay: list[Write] = field(default_factory=list)
    # The conversation's latest transitions as of the snapshot, when it carries them: loop detection
    # reads them instead of PostgreSQL (``Batch._recent_steps``).
    known_steps: list[Step] | None = None

    @property
    def optimistic(self) -> bool:
        return self.expected_version is not None

    @property
    def dirty(self) -> bool:
        return bool(self.saved or self.hot)

    def change(self, now: datetime, saved: Collection[str] = (), head: Mapping[str, str | int] | None = None) -> None:
        self.now = max(self.now, now)
        self.saved.update(saved)
        self.hot.head.update(head or {})

    def own_steps(self) -> list[Step]:
        """What this batch recorded and has not written yet (a snapshot batch), as loop detection reads it."""
        return [row.step for row in self.transitions]

    # -- the writes, and the rules they follow ---------------------------------------------

    @overload
    def apply(self, write: Append, *, loop_threshold: int, max_transitions: int) -> StoredMessage: ...
    @overload
    def apply(self, write: UpdateInfo, *, loop_threshold: int, max_transitions: int) -> frozenset[str]: ...
    @overload
    def apply(self, write: Move, *, loop_threshold: int, max_transitions: int) -> TransitionResult: ...
    def apply(
        self, write: Write, *, loop_threshold: int, max_transitions: int
    ) -> StoredMessage | frozenset[str] | TransitionResult:
        """Make ``write`` in this batch; return what its ``SessionStore`` method returns."""
        if isinstance(write, Append):
            return self._append(write)
        if isinstance(write, UpdateInfo):
            return self._update_info(write)
        return self._move(write, loop_threshold, max_transitions)

    def _append(self, write: Append) -> StoredMessage:
        entry, conversation = write.entry, self.conversation
        bot_reply = entry.role in (Role.ASSISTANT, Role.TOOL_CALL) and not write.by_staff
        if bot_reply and not bot_may_reply(conversation.state):
            raise BotMayNotReply(f"conversation {conversation.pk} is {conversation.state}: the bot stays silent")
        metadata = dict(entry.metadata)
        if entry.tool_calls:
            metadata["tool_calls"] = [call.to_dict() for call in entry.tool_calls]
        if entry.tool_call_id:
            metadata["tool_call_id"] = entry.tool_call_id
        if write.raw is not None and write.raw != entry.content:
            metadata["raw"] = redact_json(write.raw)
        if write.by_staff:
            metadata["by_staff"] = True
        conversation.last_seq += 1
        row = MessageRow(
            conversation.id, conversation.last_seq, entry.role.value, entry.content, entry.tokens, write.now, metadata
        )
        if self.optimistic:
            self.messages.append(row)
        else:
            rows.insert_message(row)
        message = StoredMessage(row.seq, entry.role, entry.content, entry.tokens, write.now, metadata)
        self.hot.messages.append(message)
        self.change(write.now, {"last_seq"}, {"last_seq": conversation.last_seq})
        return message

    def _update_info(self, write: UpdateInfo) -> frozenset[str]:
        conversation, slots = self.conversation, write.slots
        info = conversation.collected_info
        changed = frozenset(k for k, v in slots.items() if k not in info or info[k] != v)
        if changed:
            conversation.collected_info = info = {**info, **{k: slots[k] for k in changed}}
            self.change(write.now, {"collected_info"}, {"info": json.dumps(info, ensure_ascii=False)})
        return changed

    def _move(self, move: Move, loop_threshold: int, max_transitions: int) -> TransitionResult:
        conversation, now = self.conversation, move.now
        current = AgentState(conversation.state)
        if current == move.to_state:
            return TransitionResult(state=current, recorded=())
        if move.only_from is not None and (current not in move.only_from or not is_allowed(current, move.to_state)):
            return TransitionResult(state=current, recorded=())
        check_transition(current, move.to_state)
        recorded = [self._record(current, move.to_state, move.reason, move.progress, now)]
        loop = None
        if move.to_state not in SILENT_STATES and not move.progress:  # a step that progressed ends any loop
            steps = self._recent_steps(steps_to_check(loop_threshold), max_transitions)
            loop = detect_loop(steps, loop_threshold)
            if loop is not None:
                recorded.append(self._record(move.to_state, AgentState.ESCALATED, loop.reason, False, now))
                conversation.loop_flagged = True
                logger.warning("conversation %s escalated: %s", conversation.id, loop.reason)
        conversation.state = recorded[-1].to_state
        self.hot.transitions.extend(recorded)
        self.change(
            now,
            {"state", "loop_flagged"},
            {"state": conversation.state, "loop_flagged": int(conversation.loop_flagged)},
        )
        self.recorded.extend(recorded)
        return TransitionResult(state=AgentState(conversation.state), recorded=tuple(recorded), loop=loop)

    def _record(
        self, from_state: AgentState, to_state: AgentState, reason: str, progress: bool, now: datetime
    ) -> TransitionRecord:
        conversation = self.conversation
        row = TransitionRow(
            conversation.pk, conversation.customer_id, from_state.value, to_state.value, reason, progress, now
        )
        if self.optimistic:
            self.transitions.append(row)
        else:
            rows.insert_transition(row)
        return TransitionRecord(from_state, to_state, reason, progress, now)

    def _recent_steps(self, limit: int, max_transitions: int) -> list[Step]:
        """The latest transitions loop detection reads, this batch's own included (not yet written when optimistic).

        A batch decided on a snapshot that carries the conversation's latest transitions reads those:
        the statement that writes the batch checks the version they belong to, and a batch that
        loses that check is made again under the row lock, reading PostgreSQL.
        """
        if self.known_steps is not None and max_transitions >= limit:
            steps = self.known_steps[-limit:]
        else:
            steps = rows.recent_steps(self.conversation.id, limit)
        return [*steps, *self.own_steps()][-limit:]


_open: ContextVar[Batch | None] = ContextVar("open_session_batch", default=None)
_observed: ContextVar[list[TransitionRecord] | None] = ContextVar("observed_transitions", default=None)


def open_batch() -> Batch | None:
    """The batch this thread or task has open, if any."""
    return _open.get()


@contextlib.contextmanager
def opened(batch: Batch) -> Iterator[Batch]:
    """Make ``batch`` the one writes join until the block ends."""
    token = _open.set(batch)
    try:
        yield batch
    finally:
        _open.reset(token)


@contextlib.contextmanager
def observing_transitions() -> Iterator[list[TransitionRecord]]:
    """Collect the transitions this context records (once committed): a turn's ``state`` frames."""
    seen: list[TransitionRecord] = []
    token = _observed.set(seen)
    try:
        yield seen
    finally:
        _observed.reset(token)


def observe(batch: Batch) -> None:
    """Report a committed batch's transitions to whoever observes this context."""
    observed = _observed.get()
    if observed is not None:
        observed.extend(batch.recorded)


# -- snapshots -----------------------------------------------------------------------------

_STEPS = "_session_steps"  # the attribute of a batch's row that carries the steps it left (see steps_of)


def row_of(snapshot: Session | Conversation) -> Conversation:
    """A conversation row to decide a batch on: a copy of the one given, or the one a loaded session describes."""
    if isinstance(snapshot, Conversation):
        return copy.copy(snapshot)
    return Conversation(
        **{name: getattr(snapshot, name) for name in ROW_FIELDS},
        state=snapshot.state.value,
        collected_info=dict(snapshot.collected_info),
    )


def steps_of(snapshot: Session | Conversation) -> list[Step] | None:
    """The latest transitions of the conversation as of ``snapshot``, oldest first, if it carries them.

    A loaded session holds its hot copy's latest transitions, written in the same Redis transaction
    as its version; the row a batch of this turn left carries them on from there. A row read any
    other way carries none (``None``): loop detection then reads PostgreSQL.
    """
    if isinstance(snapshot, Session):
        return [t.step for t in snapshot.transitions]
    steps = getattr(snapshot, _STEPS, None)
    return None if steps is None else list(steps)


def carry_steps(row: Conversation, steps: list[Step] | None) -> None:
    """Let ``row`` carry the conversation's latest transitions to the next batch decided on it (or forget them)."""
    if steps is None:
        row.__dict__.pop(_STEPS, None)
    else:
        setattr(row, _STEPS, steps)


def copy_row(source: Conversation, target: Conversation) -> None:
    for column in Conversation._meta.concrete_fields:
        setattr(target, column.attname, getattr(source, column.attname))
