"""The hot copy of short-term memory in Redis: its keys, their encoding, the Lua scripts, the TTL and what
happens when Redis goes away. A session is four keys sharing one TTL, rolled on every write, each carrying the
conversation's version so a copy that is missing or behind is noticed. See docs/session.md.
"""

from __future__ import annotations

import functools
import json
import logging
import time
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from types import MappingProxyType
from typing import Any

from redis.exceptions import RedisError

from memory.models import Conversation
from memory.session.values import Session, StoredMessage, Summary, TransitionRecord
from memory.states import AgentState

logger = logging.getLogger(__name__)

# One atomic read of a session: its head, its latest messages, its summaries and its transitions. With
# ARGV[2] = 1 only the messages after the last summary are read (at most ARGV[1]): the hash's ``covered``
# is the last summarised sequence number, and the list ends at ``last_seq`` without gaps. A turn needs
# no more, and parsing the rest was most of a long conversation's load (docs/bench.md).
READ_SESSION = """
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
APPLY_IF_VERSION = """
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


# -- encoding ------------------------------------------------------------------------------


def encode_message(message: StoredMessage) -> str:
    # The raw tool result is audit material: PostgreSQL keeps it, the hot copy does not.
    meta = {k: v for k, v in message.metadata.items() if k != "raw"}
    return json.dumps(
        {
            "seq": message.seq,
            "role": message.role.value,
            "content": message.content,
            "tokens": message.tokens,
            "at": message.created_at.isoformat(),
            "meta": meta,
        },
        ensure_ascii=False,
    )


def decode_message(raw: bytes) -> StoredMessage:
    data = json.loads(raw)
    at = datetime.fromisoformat(data["at"])
    return StoredMessage(data["seq"], data["role"], data["content"], data["tokens"], at, data["meta"])


def encode_summary(summary: Summary) -> str:
    return json.dumps(summary.__dict__, ensure_ascii=False)


def decode_summary(raw: bytes) -> Summary:
    return Summary(**json.loads(raw))


def encode_transition(record: TransitionRecord) -> str:
    data = {
        "from": record.from_state.value,
        "to": record.to_state.value,
        "reason": record.reason,
        "progress": record.progress,
        "at": record.at.isoformat(),
    }
    return json.dumps(data, ensure_ascii=False)


def decode_transition(raw: bytes) -> TransitionRecord:
    data = json.loads(raw)
    return TransitionRecord(
        AgentState(data["from"]),
        AgentState(data["to"]),
        data["reason"],
        data["progress"],
        datetime.fromisoformat(data["at"]),
    )


def iso(value: datetime | None) -> str:
    return value.isoformat() if value else ""


def _parse_iso(value: bytes) -> datetime:
    return datetime.fromisoformat(value.decode())


def _parse_optional_iso(value: bytes | None) -> datetime | None:
    return _parse_iso(value) if value else None


def head_of(conversation: Conversation) -> dict[str, str | int]:
    """The hash of a session as the conversation row describes it."""
    return {
        "customer": conversation.customer_id,
        "created": iso(conversation.created_at),
        "updated": iso(conversation.updated_at),
        "ended": iso(conversation.ended_at),
        "state": conversation.state,
        "info": json.dumps(conversation.collected_info, ensure_ascii=False),
        "version": conversation.version,
        "last_seq": conversation.last_seq,
        "loop_flagged": int(conversation.loop_flagged),
    }


# -- writing -------------------------------------------------------------------------------


@dataclass
class HotWrites:
    """What one batch changes in the hot copy: fields of the hash, and items to add to the lists and summaries."""

    head: dict[str, str | int] = field(default_factory=dict)
    messages: list[StoredMessage] = field(default_factory=list)
    transitions: list[TransitionRecord] = field(default_factory=list)
    summaries: list[Summary] = field(default_factory=list)
    summaries_dropped: list[int] = field(default_factory=list)  # first seqs of summaries folded into another

    def __bool__(self) -> bool:
        return bool(self.head or self.messages or self.transitions or self.summaries or self.summaries_dropped)


class ScriptCommands:
    """Stands in for a Redis pipeline: records the commands queued on it as arguments of ``APPLY_IF_VERSION``."""

    def __init__(self, keys: SessionKeys) -> None:
        self._index = {key: n for n, key in enumerate(keys.all(), start=1)}
        self.args: list[str | int | bytes] = []

    def _add(self, name: str, key: str, arguments: Sequence[Any]) -> None:
        self.args += [name, self._index[key], len(arguments), *arguments]

    def hset(
        self,
        key: str,
        field: str | None = None,
        value: Any = None,
        mapping: Mapping[str, str | int | bytes] | None = None,
    ) -> None:
        pairs = [field, value] if field is not None else []
        self._add("HSET", key, [*pairs, *(item for pair in (mapping or {}).items() for item in pair)])

    def rpush(self, key: str, *values: Any) -> None:
        self._add("RPUSH", key, values)

    def hdel(self, key: str, *fields: Any) -> None:
        self._add("HDEL", key, fields)

    def ltrim(self, key: str, start: int, end: int) -> None:
        self._add("LTRIM", key, [start, end])

    def expire(self, key: str, seconds: int) -> None:
        self._add("EXPIRE", key, [seconds])


class HotCopy:
    """Reads and writes the sessions' Redis keys; says when the copy is missing or behind, never rebuilds it."""

    def __init__(
        self,
        redis: Any,
        *,
        ttl_seconds: int,
        max_messages: int,
        max_transitions: int,
        retry_after: int,
        parse_cache: int,
    ) -> None:
        self.redis = redis
        self.ttl_seconds = ttl_seconds
        self.max_messages = max_messages
        self.max_transitions = max_transitions
        self.retry_after = retry_after
        self._down_until = 0.0
        # The hot copy's items never change once written, and each turn reads the same latest messages
        # again: parse each one once (the same bytes always give the same frozen value).
        self._message = functools.lru_cache(maxsize=parse_cache)(decode_message)
        self._transition = functools.lru_cache(maxsize=parse_cache)(decode_transition)
        self._summary = functools.lru_cache(maxsize=parse_cache)(decode_summary)
        self._read_session = redis.register_script(READ_SESSION)
        self._apply_if_version = redis.register_script(APPLY_IF_VERSION)

    # -- Redis away --------------------------------------------------------------------------

    def usable(self) -> bool:
        return time.monotonic() >= self._down_until

    def failed(self, error: Exception) -> None:
        # Skip Redis for a while: each failed call costs redis-py's retries with backoff.
        self._down_until = time.monotonic() + self.retry_after
        logger.warning(
            "Redis unavailable (%s): short-term memory uses PostgreSQL only for %s s", error, self.retry_after
        )

    # -- reads -------------------------------------------------------------------------------

    def read(self, conversation_id: uuid.UUID | str, recent: int, since_summary: bool = False) -> Session | None:
        """The session as Redis holds it, or ``None`` when Redis has lost it (raises ``RedisError``)."""
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
            ended_at=_parse_optional_iso(head.get(b"ended")),
            last_seq=int(head[b"last_seq"]),
            version=int(head[b"version"]),
            loop_flagged=head.get(b"loop_flagged") == b"1",
            messages=tuple(map(self._message, messages)),
            summaries=tuple(sorted(map(self._summary, summaries), key=lambda s: s.first_seq)),
            transitions=tuple(map(self._transition, transitions)),
            source="redis",
        )

    # -- writes ------------------------------------------------------------------------------

    def replace(self, conversation: Conversation, full: Session) -> bool:
        """Write the whole session (read from PostgreSQL) in one MULTI/EXEC; whether Redis took it."""
        keys = SessionKeys.of(conversation.id)
        try:
            pipe = self.redis.pipeline(transaction=True)
            pipe.delete(*keys.all())
            covered = full.summaries[-1].last_seq if full.summaries else 0
            pipe.hset(keys.hash, mapping={**head_of(conversation), "covered": covered})
            if full.messages:
                pipe.rpush(keys.messages, *[encode_message(m) for m in full.messages])
            if full.transitions:
                pipe.rpush(keys.transitions, *[encode_transition(t) for t in full.transitions])
            if full.summaries:
                pipe.hset(keys.summaries, mapping={str(s.first_seq): encode_summary(s) for s in full.summaries})
            for key in keys.all():
                pipe.expire(key, self.ttl_seconds)
            pipe.execute()
        except RedisError as error:
            self.failed(error)
            return False
        return True

    def write(self, conversation: Conversation, changes: HotWrites) -> bool:
        """Apply one batch as a single MULTI/EXEC, rolling every key's TTL; ``False`` if the copy needs a rebuild.

        The caller holds the row lock and has bumped ``conversation.version``. The transaction first
        reads the copy's version: if it was not the one before this write (session lost, a write missed
        while Redis was away, a replayed pipeline), the copy is out of step. Redis away counts as in step:
        the next load rebuilds it.
        """
        if not self.usable():
            return True
        keys = SessionKeys.of(conversation.id)
        try:
            pipe = self.redis.pipeline(transaction=True)
            pipe.hget(keys.hash, "version")
            self._queue(pipe, keys, conversation.version, changes)
            previous = pipe.execute()[0]
        except RedisError as error:
            self.failed(error)
            return True
        return previous is not None and int(previous) == conversation.version - 1

    def write_if_version(self, conversation: Conversation, expected_version: int, changes: HotWrites) -> bool:
        """Apply a batch decided on a snapshot if the copy still holds ``expected_version``; ``False`` if not."""
        if not self.usable():
            return True
        keys = SessionKeys.of(conversation.id)
        commands = ScriptCommands(keys)
        self._queue(commands, keys, conversation.version, changes)
        try:
            return bool(self._apply_if_version(keys=list(keys.all()), args=[expected_version, *commands.args]))
        except RedisError as error:
            self.failed(error)
            return True

    def _queue(self, pipe: Any, keys: SessionKeys, version: int, changes: HotWrites) -> None:
        """Queue a batch's commands on ``pipe`` (a MULTI/EXEC pipeline, or ``ScriptCommands`` for the script)."""
        pipe.hset(keys.hash, mapping={**changes.head, "version": version})
        if changes.messages:
            pipe.rpush(keys.messages, *[encode_message(m) for m in changes.messages])
            pipe.ltrim(keys.messages, -self.max_messages, -1)
        if changes.transitions:
            pipe.rpush(keys.transitions, *[encode_transition(t) for t in changes.transitions])
            pipe.ltrim(keys.transitions, -self.max_transitions, -1)
        if changes.summaries_dropped:
            pipe.hdel(keys.summaries, *[str(first) for first in changes.summaries_dropped])
        if changes.summaries:
            pipe.hset(keys.summaries, mapping={str(s.first_seq): encode_summary(s) for s in changes.summaries})
        for key in keys.all():
            pipe.expire(key, self.ttl_seconds)
