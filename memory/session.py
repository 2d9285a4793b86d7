"""Short-term memory: one conversation's session, hot in Redis, durable in PostgreSQL.

The second tier. A session lives in Redis (django-redis's connection, the cache database) under
four keys that share one TTL, rolled on every write (``MEMORY_SESSION_TTL_SECONDS``, 24 h): the
hash ``stm:{id}`` (customer, created, updated, state, collected info, version, last sequence
number, last summarised sequence number), the list ``stm:{id}:msgs`` (the latest
``MEMORY_SESSION_MAX_MESSAGES``), the list ``stm:{id}:transitions`` (the latest
``MEMORY_SESSION_MAX_TRANSITIONS``) and the hash
``stm:{id}:summaries``. Its durable copy is the ``memory.models`` rows, kept with the customer's
account. Every write goes to PostgreSQL first, in one transaction that holds the conversation's
row lock, then to Redis as one MULTI/EXEC before the lock is released, so Redis sees writes in
the order PostgreSQL does. ``batch`` groups several writes (a turn's message, slots and state
change) into one such transaction and one MULTI/EXEC. A batch decided on the session the caller
loaded (``batch(expected=…)``, a chat turn's) takes no lock: it is one statement that writes only if
the row is still at that version (else the writes are made again the locked way), and its Redis
write applies only if the copy still holds that version too (else the copy is rebuilt under the row
lock), so the order holds there as well. Each write or batch carries the conversation's version: a
Redis copy that is missing or behind is rebuilt from PostgreSQL, on the write that notices or on
the next load. With Redis down, writes land in PostgreSQL only and reads come from PostgreSQL
(with a warning).
"""

from __future__ import annotations

import contextlib
import copy
import dataclasses
import functools
import json
import logging
import time
import uuid
import zlib
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from contextvars import ContextVar
from dataclasses import dataclass, field
from datetime import datetime
from types import MappingProxyType
from typing import Any

from django.conf import settings
from django.db import transaction
from redis.exceptions import RedisError

from agentsite import clock
from agentsite.redaction import redact, redact_json
from memory import session_rows as rows
from memory.locks import try_advisory_lock
from memory.models import CompressionSummary, Conversation, ConversationMessage, StateTransition
from memory.states import (
    SILENT_STATES,
    AgentState,
    Loop,
    Step,
    bot_may_reply,
    check_transition,
    detect_loop,
    is_allowed,
    steps_to_check,
)
from memory.tokens import count_tokens
from memory.working import Entry, Role, ToolCall

logger = logging.getLogger(__name__)

SUMMARY_HEADER = "[earlier conversation summary]"
# Keys of a message's metadata that the store itself fills.
RESERVED_METADATA = ("tool_calls", "tool_call_id", "raw", "by_staff")
_ADVISORY_NAMESPACE = 0x53544D  # "STM": pg_try_advisory_lock(namespace, conversation hash)


# One atomic read of a session: its head, its latest messages, its summaries and its transitions. With
# ARGV[2] = 1 only the messages after the last summary are read (at most ARGV[1]): the hash's ``covered``
# is the last summarised sequence number, and the list ends at ``last_seq`` without gaps. A turn needs
# no more, and parsing the rest was most of a long conversation's load (docs/bench.md).
_READ_SESSION = """
local head = redis.call('HGETALL', KEYS[1])
local count = tonumber(ARGV[1])
if ARGV[2] == '1' then
    local last = tonumber(redis.call('HGET', KEYS[1], 'last_seq')) or 0
    local covered = tonumber(redis.call('HGET', KEYS[1], 'covered')) or 0
    count = math.min(count, math.max(last - covered, 0))
end
local messages = {}
if count > 0 then
    messages = redis.call('LRANGE', KEYS[2], -count, -1)
end
return {head, messages, redis.call('HVALS', KEYS[3]), redis.call('LRANGE', KEYS[4], 0, -1)}
"""


# The writes of a batch decided on a snapshot, applied to the hot copy only if it still holds the version
# the batch started from (ARGV[1]); then commands, each as name, key index, argument count, arguments.
_APPLY_IF_VERSION = """
if redis.call('HGET', KEYS[1], 'version') ~= ARGV[1] then
    return 0
end
local i = 2
while i <= #ARGV do
    local count = tonumber(ARGV[i + 2])
    redis.call(ARGV[i], KEYS[tonumber(ARGV[i + 1])], unpack(ARGV, i + 3, i + 2 + count))
    i = i + 3 + count
end
return 1
"""


class _Commands:
    """Stands in for a Redis pipeline: records what a batch's writes queue, as arguments of ``_APPLY_IF_VERSION``."""

    def __init__(self, keys: SessionKeys) -> None:
        self._index = {key: n for n, key in enumerate(keys.all(), start=1)}
        self.args: list[str | int | bytes] = []

    def _add(self, name: str, key: str, arguments: Sequence[Any]) -> None:
        self.args += [name, self._index[key], len(arguments), *arguments]

    def hset(self, key: str, field: str | None = None, value: Any = None, mapping: Mapping | None = None) -> None:
        pairs = [field, value] if field is not None else []
        self._add("HSET", key, [*pairs, *(item for pair in (mapping or {}).items() for item in pair)])

    def rpush(self, key: str, *values: Any) -> None:
        self._add("RPUSH", key, values)

    def ltrim(self, key: str, start: int, end: int) -> None:
        self._add("LTRIM", key, [start, end])

    def expire(self, key: str, seconds: int) -> None:
        self._add("EXPIRE", key, [seconds])


class BotMayNotReply(Exception):
    """The bot tried to answer while a person is awaited or in charge."""


@dataclass(frozen=True)
class SessionKeys:
    """The Redis keys of one session; the braces keep them in one cluster slot."""

    hash: str
    messages: str
    transitions: str
    summaries: str

    @classmethod
    def of(cls, conversation_id: uuid.UUID | str) -> SessionKeys:
        base = f"stm:{{{conversation_id}}}"
        return cls(hash=base, messages=f"{base}:msgs", transitions=f"{base}:transitions", summaries=f"{base}:summaries")

    def all(self) -> tuple[str, str, str, str]:
        return (self.hash, self.messages, self.transitions, self.summaries)


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
        return cls(row.seq, row.role, row.content, row.token_count, row.created_at, row.metadata)

    @classmethod
    def from_redis(cls, raw: bytes) -> StoredMessage:
        data = json.loads(raw)
        return cls(
            data["seq"], data["role"], data["content"], data["tokens"], datetime.fromisoformat(data["at"]), data["meta"]
        )

    def to_redis(self) -> str:
        # The raw tool result is audit material: PostgreSQL keeps it, the hot copy does not.
        meta = {k: v for k, v in self.metadata.items() if k != "raw"}
        return json.dumps(
            {
                "seq": self.seq,
                "role": self.role.value,
                "content": self.content,
                "tokens": self.tokens,
                "at": self.created_at.isoformat(),
                "meta": meta,
            },
            ensure_ascii=False,
        )

    def to_entry(self) -> Entry:
        """Return the working-memory entry for this message (its token count is reused, not recounted)."""
        return self._entry

    @functools.cached_property
    def _entry(self) -> Entry:
        # Built once per message object: a message parsed once (``SessionStore._message``) is read by every turn.
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

    @classmethod
    def from_redis(cls, raw: bytes) -> Summary:
        return cls(**json.loads(raw))

    def to_redis(self) -> str:
        return json.dumps(self.__dict__, ensure_ascii=False)


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

    @classmethod
    def from_redis(cls, raw: bytes) -> TransitionRecord:
        data = json.loads(raw)
        return cls(
            AgentState(data["from"]), AgentState(data["to"]), data["reason"], data["progress"],
            datetime.fromisoformat(data["at"]),
        )  # fmt: skip

    def to_redis(self) -> str:
        return json.dumps(
            {"from": self.from_state.value, "to": self.to_state.value, "reason": self.reason,
             "progress": self.progress, "at": self.at.isoformat()},
            ensure_ascii=False,
        )  # fmt: skip


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


class _Writes:
    """The writes of one batch to one conversation, applied when the batch ends.

    PostgreSQL rows (messages, transitions) are inserted as the batch goes; the conversation row
    is saved once, and Redis gets one MULTI/EXEC, so a batch is one version step however many
    writes it holds.
    """

    def __init__(self, conversation: Conversation, now: datetime, *, expected_version: int | None = None) -> None:
        self.conversation = conversation
        self.now = now
        self.saved: set[str] = set()  # Conversation fields to save
        self.head: dict[str, str | int] = {}  # fields of the Redis hash
        self.ops: list[Callable[[Any, SessionKeys], None]] = []
        self.recorded: list[TransitionRecord] = []
        # A batch decided on a snapshot (``SessionStore.batch(expected=…)``): its rows wait for one statement
        # at the end, and the writes are kept as calls to make again under the row lock if it loses the race.
        self.expected_version = expected_version
        self.messages: list[tuple] = []
        self.transitions: list[tuple] = []
        self.replay: list[Callable[[], Any]] = []
        # The conversation's latest transitions as of that snapshot, when it carries them: loop detection
        # reads them instead of PostgreSQL (``SessionStore._recent_steps``).
        self.known_steps: list[Step] | None = None

    @property
    def optimistic(self) -> bool:
        return self.expected_version is not None

    def change(
        self,
        now: datetime,
        saved: Collection[str] = (),
        head: Mapping[str, str | int] | None = None,
        op: Callable[[Any, SessionKeys], None] | None = None,
    ) -> None:
        self.now = max(self.now, now)
        self.saved.update(saved)
        self.head.update(head or {})
        if op is not None:
            self.ops.append(op)

    def own_steps(self) -> list[Step]:
        """What this batch recorded and has not written yet (a snapshot batch), as loop detection reads it."""
        return [Step(AgentState(t[2]), AgentState(t[3]), t[5]) for t in self.transitions]

    @property
    def dirty(self) -> bool:
        return bool(self.saved or self.head or self.ops)

    def apply(self, pipe: Any, keys: SessionKeys) -> None:
        for op in self.ops:
            op(pipe, keys)


_open_writes: ContextVar[_Writes | None] = ContextVar("open_session_writes", default=None)
_observed: ContextVar[list[TransitionRecord] | None] = ContextVar("observed_transitions", default=None)


@contextlib.contextmanager
def observing_transitions() -> Iterator[list[TransitionRecord]]:
    """Collect the transitions this context records (once committed): a turn's ``state`` frames."""
    seen: list[TransitionRecord] = []
    token = _observed.set(seen)
    try:
        yield seen
    finally:
        _observed.reset(token)


def _redacted(entry: Entry) -> Entry:
    """The entry without card numbers, ID numbers or passwords: nothing kept beyond the turn holds them.

    Whoever typed or echoed them (the customer, the model's reply or its tool arguments), the working
    memory of the current turn is the only place they live.
    """
    content = redact(entry.content)
    calls = tuple(dataclasses.replace(c, arguments=redact_json(c.arguments)) for c in entry.tool_calls)
    if content == entry.content and calls == tuple(entry.tool_calls):
        return entry
    tokens = count_tokens(content) + sum(count_tokens(c.name) + count_tokens(c.arguments) for c in calls)
    return dataclasses.replace(entry, content=content, tool_calls=calls, tokens=tokens)


def _row_of(snapshot: Session | Conversation) -> Conversation:
    """A conversation row to decide a batch on: a copy of the one given, or the one a loaded session describes."""
    if isinstance(snapshot, Conversation):
        return copy.copy(snapshot)
    return Conversation(
        id=snapshot.id, customer_id=snapshot.customer_id, state=snapshot.state.value,
        collected_info=dict(snapshot.collected_info), created_at=snapshot.created_at, updated_at=snapshot.updated_at,
        ended_at=snapshot.ended_at, last_seq=snapshot.last_seq, version=snapshot.version,
        loop_flagged=snapshot.loop_flagged,
    )  # fmt: skip


_STEPS = "_session_steps"  # the attribute of a batch's row that carries the steps it left (see _steps_of)


def _steps_of(snapshot: Session | Conversation) -> list[Step] | None:
    """The latest transitions of the conversation as of ``snapshot``, oldest first, if it carries them.

    A loaded session holds its hot copy's latest transitions, written in the same Redis transaction
    as its version; the row a batch of this turn left carries them on from there. A row read any
    other way carries none (``None``): loop detection then reads PostgreSQL.
    """
    if isinstance(snapshot, Session):
        return [Step(t.from_state, t.to_state, t.progress) for t in snapshot.transitions]
    steps = getattr(snapshot, _STEPS, None)
    return None if steps is None else list(steps)


def _copy_row(source: Conversation, target: Conversation) -> None:
    for column in Conversation._meta.concrete_fields:
        setattr(target, column.attname, getattr(source, column.attname))


def _iso(value: datetime | None) -> str:
    return value.isoformat() if value else ""


def _parse_iso(value: bytes | None) -> datetime | None:
    return datetime.fromisoformat(value.decode()) if value else None


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


class SessionStore:
    """Reads and writes sessions: Redis for speed, PostgreSQL so nothing accepted is lost."""

    def __init__(self, redis: Any = None, **overrides: int) -> None:
        if redis is None:
            from django_redis import get_redis_connection

            redis = get_redis_connection("default")
        self.redis = redis

        def setting(name: str, attr: str) -> int:
            return int(overrides.pop(attr, getattr(settings, name)))

        self.ttl_seconds = setting("MEMORY_SESSION_TTL_SECONDS", "ttl_seconds")
        self.max_messages = setting("MEMORY_SESSION_MAX_MESSAGES", "max_messages")
        self.max_transitions = setting("MEMORY_SESSION_MAX_TRANSITIONS", "max_transitions")
        self.recent_messages = setting("MEMORY_SESSION_RECENT_MESSAGES", "recent_messages")
        self.compress_after = setting("MEMORY_COMPRESS_AFTER", "compress_after")
        self.keep_recent = setting("MEMORY_COMPRESS_KEEP_RECENT", "keep_recent")
        self.chunk_size = setting("MEMORY_COMPRESS_CHUNK", "chunk_size")
        self.loop_threshold = setting("MEMORY_LOOP_THRESHOLD", "loop_threshold")
        self.redis_retry_after = setting("MEMORY_REDIS_RETRY_AFTER_SECONDS", "redis_retry_after")
        self._redis_down_until = 0.0
        # The hot copy's items never change once written, and each turn reads the same latest messages
        # again: parse each one once (the same bytes always give the same frozen value).
        parsed = setting("MEMORY_SESSION_PARSE_CACHE", "parse_cache")
        self._message = functools.lru_cache(maxsize=parsed)(StoredMessage.from_redis)
        self._transition = functools.lru_cache(maxsize=parsed)(TransitionRecord.from_redis)
        self._summary = functools.lru_cache(maxsize=parsed)(Summary.from_redis)
        if overrides:
            raise TypeError(f"unknown settings: {', '.join(overrides)}")
        self._read_session = self.redis.register_script(_READ_SESSION)
        self._apply_if_version = self.redis.register_script(_APPLY_IF_VERSION)

    # -- lifecycle -----------------------------------------------------------------------

    def start(self, customer_id: int, *, now: datetime | None = None) -> Session:
        """Open a new conversation for ``customer_id`` in the greeting state."""
        now = now or clock.now()
        with transaction.atomic():
            conversation = Conversation.objects.create(customer_id=customer_id, created_at=now, updated_at=now)
            return self._rebuild(conversation)

    def end(self, conversation_id: uuid.UUID | str, *, now: datetime | None = None) -> None:
        """Mark the conversation ended (its session expires with its TTL)."""
        now = now or clock.now()
        with self._writing(conversation_id, now) as writes:
            writes.conversation.ended_at = now
            writes.change(now, {"ended_at"}, {"ended": _iso(now)})

    @contextlib.contextmanager
    def batch(
        self,
        conversation_id: uuid.UUID | str,
        *,
        now: datetime | None = None,
        expected: Session | Conversation | None = None,
    ) -> Iterator[Conversation]:
        """Group the writes to one conversation inside the block into one transaction and one MULTI/EXEC.

        ``append``, ``update_info`` and ``transition`` called inside (in this thread or task) join
        the batch: the row is locked once, saved once, and Redis gets every change in one
        transaction, so a chat turn's writes cost a few statements instead of a dozen. Yields the
        locked row; after the block it holds what the writes left (state, last sequence number).
        An exception inside rolls the whole batch back, in both stores.

        With ``expected`` (the session as the caller loaded it, or the row a batch of its left) the
        writes are decided on that snapshot instead of a locked row, and written at the end in one
        statement that applies only if the row is still at the snapshot's version: no BEGIN, row
        lock or COMMIT round trips. When another writer got there first, the same writes are made
        again under the row lock; the row yielded then holds their outcome, and what the calls
        inside returned (a sequence number, a transition's result) was the snapshot's.
        """
        if expected is None or _open_writes.get() is not None:
            with self._writing(conversation_id, now or clock.now()) as writes:
                yield writes.conversation
            return
        conversation = _row_of(expected)
        writes = _Writes(conversation, now or clock.now(), expected_version=conversation.version)
        writes.known_steps = _steps_of(expected)
        token = _open_writes.set(writes)
        try:
            yield conversation
        finally:
            _open_writes.reset(token)
        if writes.dirty and not self._commit_snapshot(writes):
            logger.info("conversation %s was written meanwhile: the batch is made again under its row lock",
                        conversation_id)  # fmt: skip
            with self._writing(conversation_id, writes.now) as locked:
                for call in writes.replay:
                    call()
            _copy_row(locked.conversation, conversation)
            conversation.__dict__.pop(_STEPS, None)  # what else was written meanwhile is not known here
            return
        if writes.known_steps is not None:
            setattr(conversation, _STEPS, [*writes.known_steps, *writes.own_steps()][-self.max_transitions :])
        observed = _observed.get()
        if observed is not None:
            observed.extend(writes.recorded)

    def _commit_snapshot(self, writes: _Writes) -> bool:
        """Write a batch decided on a snapshot: one statement, then the hot copy; whether the row was still there."""
        conversation = writes.conversation
        conversation.version += 1
        conversation.updated_at = writes.now
        names = {*writes.saved, "version", "updated_at"}
        saved = rows.commit_batch(conversation, writes.expected_version, names, writes.messages, writes.transitions)
        if saved is None:
            conversation.version -= 1
            return False
        _copy_row(saved, conversation)  # the fields a snapshot does not carry (the consolidation watermark…)
        if self._redis_usable():
            keys = SessionKeys.of(conversation.id)
            commands = _Commands(keys)
            self._queue_write(commands, keys, conversation.version, {**writes.head, "updated": _iso(writes.now)},
                              writes.apply)  # fmt: skip
            try:
                applied = self._apply_if_version(keys=list(keys.all()), args=[writes.expected_version, *commands.args])
            except RedisError as error:
                self._redis_failed(error)
            else:
                if not applied:  # lost, or written meanwhile: read it again under the row lock
                    logger.info("session %s in Redis was missing or elsewhere: rebuilding", conversation.id)
                    self.rebuild(conversation.id)
        return True

    @contextlib.contextmanager
    def _writing(self, conversation_id: uuid.UUID | str, now: datetime) -> Iterator[_Writes]:
        """The open batch of this conversation, or a batch of one write."""
        current = _open_writes.get()
        if current is not None and str(current.conversation.pk) == str(conversation_id):
            yield current
            return
        with transaction.atomic():
            writes = _Writes(rows.lock_conversation(conversation_id), now)
            token = _open_writes.set(writes)
            try:
                yield writes
            finally:
                _open_writes.reset(token)
            self._flush(writes)
        observed = _observed.get()
        if observed is not None:
            observed.extend(writes.recorded)

    def _flush(self, writes: _Writes) -> None:
        """Save the conversation row and write the Redis copy: the end of a batch (row lock held)."""
        if not writes.dirty:
            return
        conversation = writes.conversation
        conversation.version += 1
        conversation.updated_at = writes.now
        rows.save_conversation(conversation, {*writes.saved, "version", "updated_at"})
        self._write(conversation, {**writes.head, "updated": _iso(writes.now)}, writes.apply)

    # -- writes --------------------------------------------------------------------------

    def append(
        self,
        conversation_id: uuid.UUID | str,
        entry: Entry,
        *,
        raw: str | None = None,
        by_staff: bool = False,
        now: datetime | None = None,
    ) -> StoredMessage:
        """Store one message durably and in the hot copy; return it with its sequence number.

        ``raw`` is a tool result's full text, kept in PostgreSQL for audit when the entry holds
        its summary. The bot's replies are refused while the conversation is escalated or with
        a person (``BotMayNotReply``); staff messages pass ``by_staff=True``.
        """
        now = now or clock.now()
        entry = _redacted(entry)
        metadata = dict(entry.metadata)
        if entry.tool_calls:
            metadata["tool_calls"] = [call.to_dict() for call in entry.tool_calls]
        if entry.tool_call_id:
            metadata["tool_call_id"] = entry.tool_call_id
        if raw is not None and raw != entry.content:
            metadata["raw"] = redact_json(raw)
        if by_staff:
            metadata["by_staff"] = True
        with self._writing(conversation_id, now) as writes:
            if writes.optimistic:
                writes.replay.append(functools.partial(self.append, conversation_id, entry, raw=raw, by_staff=by_staff,
                                                       now=now))  # fmt: skip
            conversation = writes.conversation
            bot_reply = entry.role in (Role.ASSISTANT, Role.TOOL_CALL) and not by_staff
            if bot_reply and not bot_may_reply(conversation.state):
                raise BotMayNotReply(f"conversation {conversation_id} is {conversation.state}: the bot stays silent")
            conversation.last_seq += 1
            message = StoredMessage(conversation.last_seq, entry.role, entry.content, entry.tokens, now, metadata)
            values = (conversation.id, message.seq, entry.role.value, entry.content, entry.tokens, now, metadata)
            if writes.optimistic:
                writes.messages.append(values)
            else:
                rows.insert_message(*values)

            def push(pipe: Any, keys: SessionKeys) -> None:
                pipe.rpush(keys.messages, message.to_redis())
                pipe.ltrim(keys.messages, -self.max_messages, -1)

            writes.change(now, {"last_seq"}, {"last_seq": conversation.last_seq}, push)
        return message

    def update_info(
        self, conversation_id: uuid.UUID | str, slots: Mapping[str, Any], *, now: datetime | None = None
    ) -> frozenset[str]:
        """Merge ``slots`` into the collected info; return the slots that were new or changed.

        A non-empty result is progress for loop detection.
        """
        now = now or clock.now()
        with self._writing(conversation_id, now) as writes:
            if writes.optimistic:
                writes.replay.append(functools.partial(self.update_info, conversation_id, slots, now=now))
            conversation = writes.conversation
            changed = frozenset(k for k, v in slots.items() if k not in conversation.collected_info
                                or conversation.collected_info[k] != v)  # fmt: skip
            if not changed:
                return changed
            conversation.collected_info = {**conversation.collected_info, **{k: slots[k] for k in changed}}
            info = json.dumps(conversation.collected_info, ensure_ascii=False)
            writes.change(now, {"collected_info"}, {"info": info})
        return changed

    def transition(
        self,
        conversation_id: uuid.UUID | str,
        to_state: AgentState | str,
        reason: str,
        *,
        progress: bool = False,
        only_from: Collection[AgentState] | None = None,
        now: datetime | None = None,
    ) -> TransitionResult:
        """Move the conversation to ``to_state`` (checked against the table) and record it.

        ``progress`` says whether a new slot was filled or a new tool result arrived since the
        last transition. When the step completes more than ``MEMORY_LOOP_THRESHOLD`` A<->B round
        trips without progress, the conversation is escalated and flagged. Asking for the
        current state records nothing; so does a conditional move (``only_from``) from a state
        not listed or that the table does not allow.
        """
        to_state = AgentState(to_state)
        now = now or clock.now()
        reason = redact(reason)  # a tool's reason is the model's words, from what the customer typed
        with self._writing(conversation_id, now) as writes:
            if writes.optimistic:
                writes.replay.append(functools.partial(self.transition, conversation_id, to_state, reason,
                                                       progress=progress, only_from=only_from, now=now))  # fmt: skip
            conversation = writes.conversation
            current = AgentState(conversation.state)
            if current == to_state:
                return TransitionResult(state=current, recorded=())
            if only_from is not None and (current not in only_from or not is_allowed(current, to_state)):
                return TransitionResult(state=current, recorded=())
            check_transition(current, to_state)
            recorded = [self._record(writes, current, to_state, reason, progress, now)]
            loop = None
            if to_state not in SILENT_STATES and not progress:  # a step that progressed ends any loop
                steps = self._recent_steps(writes, steps_to_check(self.loop_threshold))
                loop = detect_loop(steps, self.loop_threshold)
                if loop is not None:
                    recorded.append(self._record(writes, to_state, AgentState.ESCALATED, loop.reason, False, now))
                    conversation.loop_flagged = True
                    logger.warning("conversation %s escalated: %s", conversation.id, loop.reason)
            conversation.state = recorded[-1].to_state

            def push(pipe: Any, keys: SessionKeys) -> None:
                pipe.rpush(keys.transitions, *[r.to_redis() for r in recorded])
                pipe.ltrim(keys.transitions, -self.max_transitions, -1)

            head = {"state": conversation.state, "loop_flagged": int(conversation.loop_flagged)}
            writes.change(now, {"state", "loop_flagged"}, head, push)
            writes.recorded.extend(recorded)
        return TransitionResult(state=AgentState(conversation.state), recorded=tuple(recorded), loop=loop)

    @staticmethod
    def _record(
        writes: _Writes, from_state: AgentState, to_state: AgentState, reason: str, progress: bool, now: datetime,
    ) -> TransitionRecord:  # fmt: skip
        conversation = writes.conversation
        if writes.optimistic:
            writes.transitions.append((conversation.pk, conversation.customer_id, from_state.value, to_state.value,
                                       reason, progress, now))  # fmt: skip
        else:
            rows.insert_transition(conversation, from_state, to_state, reason, progress, now)
        return TransitionRecord(from_state, to_state, reason, progress, now)

    def _recent_steps(self, writes: _Writes, limit: int) -> list[Step]:
        """The latest transitions loop detection reads, this batch's own included (not yet written when optimistic).

        A batch decided on a snapshot that carries the conversation's latest transitions reads those:
        the statement that writes the batch checks the version they belong to, and a batch that
        loses that check is made again under the row lock, reading PostgreSQL.
        """
        if writes.known_steps is not None and self.max_transitions >= limit:
            steps = writes.known_steps[-limit:]
        else:
            steps = rows.recent_steps(writes.conversation.id, limit)
        return [*steps, *writes.own_steps()][-limit:]

    # -- compression ---------------------------------------------------------------------

    def pending_chunks(self, last_seq: int, covered: int) -> list[tuple[int, int]]:
        """Return the seq ranges still to summarise, given the latest seq and the last summarised one.

        Past ``compress_after`` messages, everything but the latest ``keep_recent`` is
        summarised in whole chunks of ``chunk_size`` on a fixed grid (1-10, 11-20, ...), so a
        chunk is the same range whenever it is computed and is summarised once.
        """
        if last_seq <= self.compress_after:
            return []
        boundary = last_seq - self.keep_recent
        chunks = []
        first = covered + 1
        while first + self.chunk_size - 1 <= boundary:
            chunks.append((first, first + self.chunk_size - 1))
            first += self.chunk_size
        return chunks

    def compression_due(self, conversation_id: uuid.UUID | str, last_seq: int) -> bool:
        """Whether a chunk of this conversation is due for a summary (one cheap query past the threshold)."""
        if last_seq <= self.compress_after:
            return False
        return bool(self.pending_chunks(last_seq, self._covered(conversation_id)))

    def compress(
        self, conversation_id: uuid.UUID | str, summarise: Callable[[str], str], *, now: datetime | None = None
    ) -> list[Summary]:
        """Summarise every chunk due and not yet summarised; return the new summaries.

        ``summarise`` (the cheap model) is called once per chunk, outside any transaction. A
        conversation is compressed by one caller at a time (a PostgreSQL advisory lock); a
        caller that finds it busy returns at once and the next turn catches up.
        """
        with self._compression_lock(conversation_id) as acquired:
            if not acquired:
                return []
            last_seq = Conversation.objects.values_list("last_seq", flat=True).get(pk=conversation_id)
            covered = self._covered(conversation_id)
            created = []
            for first, last in self.pending_chunks(last_seq, covered):
                rows = ConversationMessage.objects.filter(
                    conversation_id=conversation_id, seq__gte=first, seq__lte=last
                ).order_by("seq")
                messages = [StoredMessage.from_row(row) for row in rows]
                text = summarise(format_chunk(messages)).strip()
                summary = Summary(first, last, text, sum(m.tokens for m in messages), count_tokens(text))
                self._store_summary(conversation_id, summary, now or clock.now())
                created.append(summary)
            return created

    def _covered(self, conversation_id: uuid.UUID | str) -> int:
        return rows.covered_seq(conversation_id)

    def _store_summary(self, conversation_id: uuid.UUID | str, summary: Summary, now: datetime) -> None:
        summary = dataclasses.replace(summary, content=redact(summary.content))  # the model may echo a secret
        with self._writing(conversation_id, now) as writes:
            conversation = writes.conversation
            CompressionSummary.objects.create(
                conversation_id=conversation.id,
                first_seq=summary.first_seq,
                last_seq=summary.last_seq,
                content=summary.content,
                tokens_before=summary.tokens_before,
                tokens_after=summary.tokens_after,
                created_at=now,
            )

            def push(pipe: Any, keys: SessionKeys) -> None:
                pipe.hset(keys.summaries, str(summary.first_seq), summary.to_redis())

            writes.change(now, head={"covered": summary.last_seq}, op=push)  # chunks are summarised in order

    @staticmethod
    def _compression_lock(conversation_id: uuid.UUID | str) -> contextlib.AbstractContextManager[bool]:
        key = zlib.crc32(uuid.UUID(str(conversation_id)).bytes) - 2**31  # int4; a collision only delays
        return try_advisory_lock(_ADVISORY_NAMESPACE, key)

    # -- reads ---------------------------------------------------------------------------

    def load(
        self, conversation_id: uuid.UUID | str, *, recent: int | None = None, since_summary: bool = False
    ) -> Session:
        """Return the session with its latest ``recent`` messages (default 50).

        ``since_summary`` asks only for the messages the summaries do not cover (still at most
        ``recent``): what ``history_of`` uses. A session rebuilt or read from PostgreSQL may hold more.
        Read from Redis; a session Redis has lost is rebuilt from PostgreSQL first. With Redis
        unavailable the session is read from PostgreSQL.
        """
        recent = recent or self.recent_messages
        if self._redis_usable():
            try:
                session = self._read_redis(conversation_id, recent, since_summary)
                if session is not None:
                    return session
                with transaction.atomic():
                    conversation = Conversation.objects.select_for_update().get(pk=conversation_id)
                    # Another reader may have rebuilt it while we waited for the lock.
                    session = self._read_redis(conversation_id, recent, since_summary)
                    if session is not None and session.version == conversation.version:
                        return session
                    logger.info("session %s missing or stale in Redis: rebuilt from PostgreSQL", conversation_id)
                    return self._rebuild(conversation, recent=recent)
            except RedisError as error:
                self._redis_failed(error)
        logger.warning("Redis unavailable: session %s read from PostgreSQL", conversation_id)
        conversation = Conversation.objects.get(pk=conversation_id)
        return self._from_postgres(conversation, recent, source="postgres")

    def history(self, conversation_id: uuid.UUID | str) -> list[Entry]:
        """Return the compressed history for working memory: one summary entry, then the messages after it."""
        return self.history_of(self.load(conversation_id, recent=self.max_messages, since_summary=True))

    @staticmethod
    def history_of(session: Session) -> list[Entry]:
        """The compressed history of a session already loaded (``recent=max_messages, since_summary=True``)."""
        entries: list[Entry] = []
        covered = 0
        if session.summaries:
            covered = session.summaries[-1].last_seq
            text = "\n".join([SUMMARY_HEADER, *(s.content for s in session.summaries)])
            entries.append(
                Entry.create(
                    Role.SYSTEM,
                    text,
                    timestamp=session.created_at,
                    metadata={"kind": "summary", "first_seq": session.summaries[0].first_seq, "last_seq": covered},
                )
            )
        entries.extend(m.to_entry() for m in session.messages if m.seq > covered)
        return entries

    def rebuild(self, conversation_id: uuid.UUID | str) -> Session:
        """Replace the Redis copy of the session with one built from PostgreSQL."""
        with transaction.atomic():
            conversation = Conversation.objects.select_for_update().get(pk=conversation_id)
            return self._rebuild(conversation)

    def _read_redis(self, conversation_id: uuid.UUID | str, recent: int, since_summary: bool = False) -> Session | None:
        keys = SessionKeys.of(conversation_id)
        flat, messages, summaries, transitions = self._read_session(
            keys=[keys.hash, keys.messages, keys.summaries, keys.transitions], args=[recent, int(since_summary)]
        )
        head = dict(zip(flat[::2], flat[1::2], strict=True))
        if b"customer" not in head:  # missing, or only what a write to a lost session put there
            return None
        return Session(
            id=uuid.UUID(str(conversation_id)),
            customer_id=int(head[b"customer"]),
            state=AgentState(head[b"state"].decode()),
            collected_info=MappingProxyType(json.loads(head[b"info"])),
            created_at=_parse_iso(head[b"created"]),
            updated_at=_parse_iso(head[b"updated"]),
            ended_at=_parse_iso(head.get(b"ended")),
            last_seq=int(head[b"last_seq"]),
            version=int(head[b"version"]),
            loop_flagged=head.get(b"loop_flagged") == b"1",
            messages=tuple(map(self._message, messages)),
            summaries=tuple(sorted(map(self._summary, summaries), key=lambda s: s.first_seq)),
            transitions=tuple(map(self._transition, transitions)),
            source="redis",
        )

    def _from_postgres(self, conversation: Conversation, recent: int, *, source: str) -> Session:
        rows = list(ConversationMessage.objects.filter(conversation=conversation).order_by("-seq")[:recent])
        transitions = list(
            StateTransition.objects.filter(conversation=conversation).order_by("-id")[: self.max_transitions]
        )
        summaries = CompressionSummary.objects.filter(conversation=conversation).order_by("first_seq")
        return Session(
            id=conversation.id,
            customer_id=conversation.customer_id,
            state=AgentState(conversation.state),
            collected_info=MappingProxyType(dict(conversation.collected_info)),
            created_at=conversation.created_at,
            updated_at=conversation.updated_at,
            ended_at=conversation.ended_at,
            last_seq=conversation.last_seq,
            version=conversation.version,
            loop_flagged=conversation.loop_flagged,
            messages=tuple(StoredMessage.from_row(row) for row in rows[::-1]),
            summaries=tuple(Summary.from_row(row) for row in summaries),
            transitions=tuple(TransitionRecord.from_row(row) for row in transitions[::-1]),
            source=source,
        )

    # -- the Redis copy ------------------------------------------------------------------

    def _rebuild(self, conversation: Conversation, *, recent: int | None = None) -> Session:
        """Write the whole session from PostgreSQL into Redis in one MULTI/EXEC (caller holds the row lock)."""
        full = self._from_postgres(conversation, self.max_messages, source="rebuilt")
        if self._redis_usable():
            keys = SessionKeys.of(conversation.id)
            try:
                pipe = self.redis.pipeline(transaction=True)
                pipe.delete(*keys.all())
                covered = full.summaries[-1].last_seq if full.summaries else 0
                pipe.hset(keys.hash, mapping={**self._head(conversation), "covered": covered})
                if full.messages:
                    pipe.rpush(keys.messages, *[m.to_redis() for m in full.messages])
                if full.transitions:
                    pipe.rpush(keys.transitions, *[t.to_redis() for t in full.transitions])
                if full.summaries:
                    pipe.hset(keys.summaries, mapping={str(s.first_seq): s.to_redis() for s in full.summaries})
                for key in keys.all():
                    pipe.expire(key, self.ttl_seconds)
                pipe.execute()
            except RedisError as error:
                self._redis_failed(error)
                full = dataclasses.replace(full, source="postgres")
        recent = recent or self.recent_messages
        return dataclasses.replace(full, messages=full.messages[-recent:])

    def _head(self, conversation: Conversation) -> dict[str, str | int]:
        return {
            "customer": conversation.customer_id,
            "created": _iso(conversation.created_at),
            "updated": _iso(conversation.updated_at),
            "ended": _iso(conversation.ended_at),
            "state": conversation.state,
            "info": json.dumps(conversation.collected_info, ensure_ascii=False),
            "version": conversation.version,
            "last_seq": conversation.last_seq,
            "loop_flagged": int(conversation.loop_flagged),
        }

    def _write(
        self,
        conversation: Conversation,
        fields: Mapping[str, str | int],
        ops: Callable[[Any, SessionKeys], None] | None = None,
    ) -> None:
        """Apply one write to the Redis copy as a single MULTI/EXEC, rolling every key's TTL.

        The caller holds the row lock and has bumped ``conversation.version``. The transaction
        first reads the copy's version: if it was not the one before this write (session lost,
        a write missed while Redis was away, a replayed pipeline), the copy is rebuilt.
        """
        if not self._redis_usable():
            return
        keys = SessionKeys.of(conversation.id)
        try:
            pipe = self.redis.pipeline(transaction=True)
            pipe.hget(keys.hash, "version")
            self._queue_write(pipe, keys, conversation.version, fields, ops)
            previous = pipe.execute()[0]
        except RedisError as error:
            self._redis_failed(error)
            return
        if previous is None or int(previous) != conversation.version - 1:
            logger.info("session %s in Redis was missing or behind: rebuilding", conversation.id)
            self._rebuild(conversation)

    def _queue_write(
        self, pipe: Any, keys: SessionKeys, version: int, fields: Mapping[str, str | int],
        ops: Callable[[Any, SessionKeys], None] | None,
    ) -> None:  # fmt: skip
        """Queue one write's commands on ``pipe`` (a MULTI/EXEC pipeline, or ``_Commands`` for the script)."""
        pipe.hset(keys.hash, mapping={**fields, "version": version})
        if ops is not None:
            ops(pipe, keys)
        for key in keys.all():
            pipe.expire(key, self.ttl_seconds)

    def _redis_usable(self) -> bool:
        return time.monotonic() >= self._redis_down_until

    def _redis_failed(self, error: Exception) -> None:
        # Skip Redis for a while: each failed call costs redis-py's retries with backoff.
        self._redis_down_until = time.monotonic() + self.redis_retry_after
        logger.warning("Redis unavailable (%s): short-term memory uses PostgreSQL only for %s s", error,
                       self.redis_retry_after)  # fmt: skip


_default: SessionStore | None = None


def store() -> SessionStore:
    """Return the process's session store on django-redis's connection."""
    global _default
    if _default is None:
        _default = SessionStore()
    return _default
