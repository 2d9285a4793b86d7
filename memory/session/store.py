"""The session store: short-term memory's API over the durable copy in PostgreSQL (``rows``) and the hot one in
Redis (``hot``), for the session's lifetime. Writes go to PostgreSQL first under the conversation's row lock,
then to Redis, so Redis sees them in PostgreSQL's order; reads come from Redis, rebuilt from PostgreSQL when
missing or behind, or from PostgreSQL alone while Redis is away. Nothing it keeps beyond the turn holds a card
number or password. See docs/session.md.
"""

from __future__ import annotations

import contextlib
import dataclasses
import logging
import uuid
from collections.abc import Collection, Iterator, Mapping, Sequence
from datetime import datetime
from typing import Any, overload

from django.conf import settings
from django.db import transaction
from redis.exceptions import RedisError

from agentsite import clock
from agentsite.redaction import redact, redact_json

# Attribute access only (``compression.X`` at call time): compression imports this package in turn.
from memory import compression
from memory.models import CompressionSummary, Conversation
from memory.session import rows
from memory.session.batch import (
    Append,
    Batch,
    Move,
    UpdateInfo,
    Write,
    carry_steps,
    copy_row,
    observe,
    open_batch,
    opened,
    row_of,
    steps_of,
)
from memory.session.hot import HotCopy, iso
from memory.session.values import (
    Session,
    StoredMessage,
    Summary,
    TransitionResult,
)
from memory.states import (
    AgentState,
)
from memory.tokens import count_tokens
from memory.working import Entry

logger = logging.getLogger(__name__)


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


class SessionStore:
    """Reads and writes sessions: Redis for speed, PostgreSQL so nothing accepted is lost."""

    def __init__(self, redis: Any = None, **overrides: int) -> None:
        if redis is None:
            from django_redis import get_redis_connection

            redis = get_redis_connection("default")

        def setting(name: str, attr: str) -> int:
            return int(overrides.pop(attr, getattr(settings, name)))

        self.ttl_seconds = setting("MEMORY_SESSION_TTL_SECONDS", "ttl_seconds")
        self.max_messages = setting("MEMORY_SESSION_MAX_MESSAGES", "max_messages")
        self.max_transitions = setting("MEMORY_SESSION_MAX_TRANSITIONS", "max_transitions")
        self.recent_messages = setting("MEMORY_SESSION_RECENT_MESSAGES", "recent_messages")
        self.compression = compression.CompressionPolicy(
            compress_after=setting("MEMORY_COMPRESS_AFTER", "compress_after"),
            keep_recent=setting("MEMORY_COMPRESS_KEEP_RECENT", "keep_recent"),
            chunk_size=setting("MEMORY_COMPRESS_CHUNK", "chunk_size"),
            summary_tokens=setting("MEMORY_COMPRESS_SUMMARY_TOKENS", "summary_tokens"),
            fold_over_tokens=setting("MEMORY_COMPRESS_FOLD_OVER_TOKENS", "fold_over_tokens"),
        )
        self.loop_threshold = setting("MEMORY_LOOP_THRESHOLD", "loop_threshold")
        self.hot = HotCopy(
            redis,
            ttl_seconds=self.ttl_seconds,
            max_messages=self.max_messages,
            max_transitions=self.max_transitions,
            retry_after=setting("MEMORY_REDIS_RETRY_AFTER_SECONDS", "redis_retry_after"),
            parse_cache=setting("MEMORY_SESSION_PARSE_CACHE", "parse_cache"),
        )
        if overrides:
            raise TypeError(f"unknown settings: {', '.join(overrides)}")

    @property
    def redis(self) -> Any:
        return self.hot.redis

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
        with self._writing(conversation_id, now) as batch:
            batch.conversation.ended_at = now
            batch.change(now, {"ended_at"}, {"ended": iso(now)})

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
        if expected is None or open_batch() is not None:
            with self._writing(conversation_id, now or clock.now()) as locked:
                yield locked.conversation
            return
        conversation = row_of(expected)
        batch = Batch(conversation, now or clock.now(), expected_version=conversation.version)
        batch.known_steps = steps_of(expected)
        with opened(batch):
            yield conversation
        if batch.dirty and not self._commit_snapshot(batch):
            logger.info(
                "conversation %s was written meanwhile: the batch is made again under its row lock", conversation_id
            )
            with self._writing(conversation_id, batch.now) as locked:
                for write in batch.replay:
                    locked.apply(write, loop_threshold=self.loop_threshold, max_transitions=self.max_transitions)
            copy_row(locked.conversation, conversation)
            carry_steps(conversation, None)  # what else was written meanwhile is not known here
            return
        if batch.known_steps is not None:
            carry_steps(conversation, [*batch.known_steps, *batch.own_steps()][-self.max_transitions :])
        observe(batch)

    def _commit_snapshot(self, batch: Batch) -> bool:
        """Write a batch decided on a snapshot: one statement, then the hot copy; whether the row was still there."""
        expected_version = batch.expected_version
        if expected_version is None:
            raise RuntimeError("a batch made under the row lock has no snapshot to commit")
        conversation = batch.conversation
        conversation.version += 1
        conversation.updated_at = batch.now
        names = {*batch.saved, "version", "updated_at"}
        saved = rows.commit_batch(conversation, expected_version, names, batch.messages, batch.transitions)
        if saved is None:
            conversation.version -= 1
            return False
        copy_row(saved, conversation)  # the fields a snapshot does not carry (the consolidation watermark…)
        batch.hot.head["updated"] = iso(batch.now)
        if not self.hot.write_if_version(conversation, expected_version, batch.hot):
            logger.info("session %s in Redis was missing or elsewhere: rebuilding", conversation.id)
            self.rebuild(conversation.id)
        return True

    @contextlib.contextmanager
    def _writing(self, conversation_id: uuid.UUID | str, now: datetime) -> Iterator[Batch]:
        """The open batch of this conversation, or a batch of one write."""
        current = open_batch()
        if current is not None and str(current.conversation.pk) == str(conversation_id):
            yield current
            return
        with transaction.atomic():
            with opened(Batch(rows.lock_conversation(conversation_id), now)) as batch:
                yield batch
            self._flush(batch)
        observe(batch)

    def _flush(self, batch: Batch) -> None:
        """Save the conversation row and write the Redis copy: the end of a batch (row lock held)."""
        if not batch.dirty:
            return
        conversation = batch.conversation
        conversation.version += 1
        conversation.updated_at = batch.now
        rows.save_conversation(conversation, {*batch.saved, "version", "updated_at"})
        batch.hot.head["updated"] = iso(batch.now)
        if not self.hot.write(conversation, batch.hot):
            logger.info("session %s in Redis was missing or behind: rebuilding", conversation.id)
            self._rebuild(conversation)

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
        return self._make(conversation_id, Append(_redacted(entry), raw, by_staff, now or clock.now()))

    def update_info(
        self, conversation_id: uuid.UUID | str, slots: Mapping[str, Any], *, now: datetime | None = None
    ) -> frozenset[str]:
        """Merge ``slots`` into the collected info; return the slots that were new or changed.

        A non-empty result is progress for loop detection.
        """
        return self._make(conversation_id, UpdateInfo(slots, now or clock.now()))

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
        # A tool's reason is the model's words, from what the customer typed.
        move = Move(AgentState(to_state), redact(reason), progress, only_from, now or clock.now())
        return self._make(conversation_id, move)

    @overload
    def _make(self, conversation_id: uuid.UUID | str, write: Append) -> StoredMessage: ...
    @overload
    def _make(self, conversation_id: uuid.UUID | str, write: UpdateInfo) -> frozenset[str]: ...
    @overload
    def _make(self, conversation_id: uuid.UUID | str, write: Move) -> TransitionResult: ...
    def _make(
        self, conversation_id: uuid.UUID | str, write: Write
    ) -> StoredMessage | frozenset[str] | TransitionResult:
        """Make one write in the open batch of this conversation, or in a batch of its own."""
        with self._writing(conversation_id, write.now) as batch:
            if batch.optimistic:
                batch.replay.append(write)
            return batch.apply(write, loop_threshold=self.loop_threshold, max_transitions=self.max_transitions)

    # -- compression (memory.compression decides, the store keeps the summaries) ---------------

    def pending_chunks(self, last_seq: int, covered: int) -> list[compression.Chunk]:
        """The seq ranges still to summarise, given the latest seq and the last summarised one."""
        return self.compression.pending(last_seq, covered)

    def compression_due(self, conversation_id: uuid.UUID | str, last_seq: int) -> bool:
        """Whether a chunk of this conversation is due for a summary (one cheap query past the threshold)."""
        return self.compression.due(conversation_id, last_seq)

    def compress(
        self,
        conversation_id: uuid.UUID | str,
        *,
        now: datetime | None = None,
        digest: compression.Digest | None = None,
        fold: compression.Fold | None = None,
    ) -> list[Summary]:
        """Digest every chunk due and not yet digested (``memory.compression.compress``); return the new
        summaries. ``digest`` and ``fold`` default to the cheap model."""

        def keep(summary: Summary, digested: compression.ChunkDigest) -> None:
            self._store_summary(conversation_id, summary, digested, now or clock.now())

        def replace(folded: Sequence[Summary], into: Summary) -> None:
            self._fold_summaries(conversation_id, folded, into, now or clock.now())

        return compression.compress(
            conversation_id,
            self.compression,
            keep,
            replace,
            digest=compression.digest_with_model if digest is None else digest,
            fold=compression.fold_with_model if fold is None else fold,
        )

    def _store_summary(
        self, conversation_id: uuid.UUID | str, summary: Summary, digested: compression.ChunkDigest, now: datetime
    ) -> None:
        """One chunk's summary and what the customer stated in it (into the collected info), in one write."""
        summary = dataclasses.replace(summary, content=redact(summary.content))  # the model may echo a secret
        with self._writing(conversation_id, now) as batch:
            _insert_summary(batch.conversation.id, summary, now)
            batch.hot.summaries.append(summary)
            batch.change(now, head={"covered": summary.last_seq})  # chunks are summarised in order
            if digested.stated or digested.orders:
                self.update_info(conversation_id, compression.merged_info(batch.conversation.collected_info, digested))

    def _fold_summaries(
        self, conversation_id: uuid.UUID | str, folded: Sequence[Summary], into: Summary, now: datetime
    ) -> None:
        """Replace ``folded`` by the one summary ``into`` that covers them all, in both copies."""
        with self._writing(conversation_id, now) as batch:
            firsts = [s.first_seq for s in folded]
            CompressionSummary.objects.filter(conversation_id=batch.conversation.id, first_seq__in=firsts).delete()
            _insert_summary(batch.conversation.id, into, now)
            batch.hot.summaries_dropped.extend(f for f in firsts if f != into.first_seq)
            batch.hot.summaries.append(into)
            batch.change(now)

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
        if self.hot.usable():
            try:
                session = self.hot.read(conversation_id, recent, since_summary)
                if session is not None:
                    return session
                with transaction.atomic():
                    conversation = Conversation.objects.select_for_update().get(pk=conversation_id)
                    # Another reader may have rebuilt it while we waited for the lock.
                    session = self.hot.read(conversation_id, recent, since_summary)
                    if session is not None and session.version == conversation.version:
                        return session
                    logger.info("session %s missing or stale in Redis: rebuilt from PostgreSQL", conversation_id)
                    return self._rebuild(conversation, recent=recent)
            except RedisError as error:
                self.hot.failed(error)
        logger.warning("Redis unavailable: session %s read from PostgreSQL", conversation_id)
        conversation = Conversation.objects.get(pk=conversation_id)
        return rows.read_session(conversation, recent, self.max_transitions, source="postgres")

    def history(self, conversation_id: uuid.UUID | str) -> list[Entry]:
        """Return the compressed history for working memory: one summary entry, then the messages after it."""
        return self.history_of(self.load(conversation_id, recent=self.max_messages, since_summary=True))

    @staticmethod
    def history_of(session: Session) -> list[Entry]:
        """The compressed history of a session already loaded (``recent=max_messages, since_summary=True``)."""
        if not session.summaries:
            return [m.to_entry() for m in session.messages]
        covered = session.summaries[-1].last_seq
        summary = compression.summary_entry(session.summaries, session.created_at, session.collected_info)
        return [summary, *(m.to_entry() for m in session.messages if m.seq > covered)]

    def rebuild(self, conversation_id: uuid.UUID | str) -> Session:
        """Replace the Redis copy of the session with one built from PostgreSQL."""
        with transaction.atomic():
            conversation = Conversation.objects.select_for_update().get(pk=conversation_id)
            return self._rebuild(conversation)

    def _rebuild(self, conversation: Conversation, *, recent: int | None = None) -> Session:
        """Write the whole session from PostgreSQL into Redis (caller holds the row lock); return it."""
        full = rows.read_session(conversation, self.max_messages, self.max_transitions, source="rebuilt")
        if self.hot.usable() and not self.hot.replace(conversation, full):
            full = dataclasses.replace(full, source="postgres")
        return dataclasses.replace(full, messages=full.messages[-(recent or self.recent_messages) :])


def _insert_summary(conversation_id: uuid.UUID, summary: Summary, now: datetime) -> None:
    CompressionSummary.objects.create(
        conversation_id=conversation_id,
        first_seq=summary.first_seq,
        last_seq=summary.last_seq,
        content=summary.content,
        tokens_before=summary.tokens_before,
        tokens_after=summary.tokens_after,
        created_at=now,
    )


_default: SessionStore | None = None


def store() -> SessionStore:
    """Return the process's session store on django-redis's connection."""
    global _default
    if _default is None:
        _default = SessionStore()
    return _default
