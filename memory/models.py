"""The memory app's tables in PostgreSQL: short-term memory's durable copy (conversations, messages, summaries,
transitions), kept with the customer's account and rebuilding Redis when it loses a session, and long-term
memory (memories, their events and conflicts), kept until forgetting or erasure. Times come from
``agentsite.clock`` so tests can move the clock. See docs/session.md and docs/longterm.md.
"""

from __future__ import annotations

import uuid
from datetime import datetime

from django.conf import settings
from django.contrib.postgres.fields import ArrayField
from django.contrib.postgres.indexes import GinIndex
from django.db import models
from django.db.models.expressions import RawSQL
from pgvector.django import VectorField

from agentsite import clock
from memory import embeddings
from memory.keys import SHOP_OWNED, is_shop_owned
from memory.states import AgentState
from memory.working import Role

ROLE_CHOICES = [(role.value, role.value) for role in Role]


class ConversationQuerySet(models.QuerySet["Conversation"]):
    def flagged_first(self) -> ConversationQuerySet:
        return self.order_by("-loop_flagged", "-updated_at")


class Conversation(models.Model):
    """One session of a customer with the agent: its state, collected info and counters."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    customer = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="conversations")
    state = models.CharField(max_length=20, choices=AgentState.choices, default=AgentState.GREETING)
    collected_info = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(default=clock.now)
    updated_at = models.DateTimeField(default=clock.now)
    ended_at = models.DateTimeField(null=True, blank=True)
    last_seq = models.PositiveIntegerField(default=0, help_text="sequence number of the latest message")
    version = models.PositiveBigIntegerField(
        default=0, help_text="counts every write; the Redis copy carries it, so a stale copy is noticed"
    )
    consolidated_seq = models.PositiveIntegerField(
        default=0, help_text="messages up to this sequence number are consolidated into long-term memory"
    )
    loop_flagged = models.BooleanField(default=False, help_text="escalated by loop detection")

    objects = ConversationQuerySet.as_manager()

    class Meta:
        indexes = [
            models.Index(fields=["customer", "-updated_at"], name="memory_conv_customer_idx"),
            models.Index(fields=["-loop_flagged", "-updated_at"], name="memory_conv_flagged_idx"),
        ]

    def __str__(self) -> str:
        return f"{self.id} ({self.state})"


class ConversationMessage(models.Model):
    """One message of a conversation, numbered per conversation; raw tool results kept in metadata."""

    # The unique (conversation, seq) index serves every lookup by conversation.
    conversation = models.ForeignKey(Conversation, on_delete=models.CASCADE, related_name="messages", db_index=False)
    seq = models.PositiveIntegerField()
    role = models.CharField(max_length=16, choices=ROLE_CHOICES)
    content = models.TextField(blank=True)
    token_count = models.PositiveIntegerField()
    created_at = models.DateTimeField(default=clock.now)
    metadata = models.JSONField(default=dict, blank=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["conversation", "seq"], name="memory_message_seq_unique")]

    def __str__(self) -> str:
        return f"#{self.seq} {self.role}"


class CompressionSummary(models.Model):
    """The summary of one chunk of messages (``first_seq``..``last_seq``), made once."""

    conversation = models.ForeignKey(Conversation, on_delete=models.CASCADE, related_name="summaries", db_index=False)
    first_seq = models.PositiveIntegerField()
    last_seq = models.PositiveIntegerField()
    content = models.TextField()
    tokens_before = models.PositiveIntegerField()
    tokens_after = models.PositiveIntegerField()
    created_at = models.DateTimeField(default=clock.now)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["conversation", "first_seq"], name="memory_summary_chunk_unique"),
        ]
        verbose_name_plural = "compression summaries"

    def __str__(self) -> str:
        return f"#{self.first_seq}-{self.last_seq}"


class StateTransition(models.Model):
    """One change of a conversation's agent state, with its reason."""

    conversation = models.ForeignKey(Conversation, on_delete=models.CASCADE, related_name="transitions", db_index=False)
    customer = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="state_transitions", db_index=False
    )
    from_state = models.CharField(max_length=20, choices=AgentState.choices)
    to_state = models.CharField(max_length=20, choices=AgentState.choices)
    reason = models.TextField(blank=True)
    progress = models.BooleanField(default=False, help_text="a new slot or tool result came with this step")
    created_at = models.DateTimeField(default=clock.now)

    class Meta:
        indexes = [
            models.Index(fields=["conversation", "id"], name="memory_transition_conv_idx"),
            models.Index(fields=["customer", "-created_at"], name="memory_transition_cust_idx"),
        ]

    def __str__(self) -> str:
        return f"{self.from_state} -> {self.to_state}"


# Long-term memory


class MemoryType(models.TextChoices):
    FACT = "fact"
    PREFERENCE = "preference"
    EXPERIENCE = "experience"
    SUMMARY = "summary"


class Source(models.TextChoices):
    """Where a memory came from; the rank decides which side of a contradiction wins."""

    SYSTEM_RECORD = "system_record", "system record"
    CUSTOMER_STATED = "customer_stated", "customer statement"
    AGENT_INFERRED = "agent_inferred", "agent inference"

    @property
    def rank(self) -> int:
        return {"system_record": 3, "customer_stated": 2, "agent_inferred": 1}[self.value]


class Tag(models.TextChoices):
    """How a memory is qualified wherever it is shown: in the prompt, the admin and the customer's page.

    Defined once (``tag_of`` and ``LongTermMemoryQuerySet.tagged``): only a shop record is confirmed,
    whatever its confidence; what a customer said about a shop-owned key (``memory.keys.SHOP_OWNED``) is
    a request, never a value; anything else said or inferred is a reference at
    ``MEMORY_REFERENCE_CONFIDENCE`` or above, unconfirmed below; an open conflict makes it disputed.
    """

    CONFIRMED = "confirmed"
    REQUESTED = "requested"
    REFERENCE = "reference"
    UNCONFIRMED = "unconfirmed"
    DISPUTED = "disputed"


def tag_of(source: str, confidence: float, disputed: bool = False, key: str = "") -> Tag:
    """The tag of a memory from its source, its confidence, its key and whether a conflict on it is open."""
    if disputed:
        return Tag.DISPUTED
    if source == Source.SYSTEM_RECORD:
        return Tag.CONFIRMED
    if is_shop_owned(key):
        return Tag.REQUESTED
    return Tag.REFERENCE if confidence >= settings.MEMORY_REFERENCE_CONFIDENCE else Tag.UNCONFIRMED


# ``LongTermMemoryQuerySet.valid`` as a condition for the plain SQL of the turn's path (recall, the
# inspector's learned list), with the time as the parameter ``%(now)s``.
VALID_SQL = "invalidated_at IS NULL AND archived_at IS NULL AND (expires_at IS NULL OR expires_at > %(now)s)"


class LongTermMemoryQuerySet(models.QuerySet["LongTermMemory"]):
    def for_customer(self, customer_id: int) -> LongTermMemoryQuerySet:
        return self.filter(customer_id=customer_id)

    def tagged(self, tag: Tag | str) -> LongTermMemoryQuerySet:
        """Memories with ``tag`` by source and confidence, as ``tag_of`` gives it (disputes aside)."""
        shop = models.Q(source=Source.SYSTEM_RECORD)
        request = ~shop & models.Q(key__in=list(SHOP_OWNED))
        threshold = settings.MEMORY_REFERENCE_CONFIDENCE
        return {
            Tag.CONFIRMED: lambda: self.filter(shop),
            Tag.REQUESTED: lambda: self.filter(request),
            Tag.REFERENCE: lambda: self.exclude(shop | request).filter(confidence__gte=threshold),
            Tag.UNCONFIRMED: lambda: self.exclude(shop | request).filter(confidence__lt=threshold),
        }[Tag(tag)]()

    def valid(self, now: datetime | None = None) -> LongTermMemoryQuerySet:
        """Memories that may be recalled: not invalidated, not archived, not expired (``VALID_SQL`` in SQL)."""
        now = now or clock.now()
        return self.filter(invalidated_at__isnull=True, archived_at__isnull=True).filter(
            models.Q(expires_at__isnull=True) | models.Q(expires_at__gt=now)
        )


class LongTermMemory(models.Model):
    """One thing the agent knows about one customer across conversations.

    Keyed memories (``key`` from ``memory.keys.REGISTRY``) hold a normalised ``value``; a replaced or
    contradicted memory is invalidated (``invalidated_at``, ``superseded_by``) and kept, never
    overwritten. ``version`` makes every update optimistic: an update carrying an older version
    becomes a conflict. The table is created with fillfactor 70 so that recall's access bookkeeping
    (``access_count``, ``last_accessed_at``, both unindexed) stays a HOT update.
    """

    customer = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="memories")
    type = models.CharField(max_length=12, choices=MemoryType.choices)
    key = models.CharField(max_length=40, blank=True, default="")
    value = models.CharField(max_length=300, blank=True, default="")
    content = models.TextField()
    embedding = VectorField(dimensions=embeddings.DIMENSIONS)
    embedding_model = models.CharField(max_length=100)
    source = models.CharField(max_length=20, choices=Source.choices)
    source_conversation = models.ForeignKey(
        Conversation, null=True, blank=True, on_delete=models.SET_NULL, related_name="learned_memories"
    )
    source_seqs = ArrayField(
        models.PositiveIntegerField(),
        default=list,
        blank=True,
        help_text="the sequence numbers of the source conversation's messages it was taken from",
    )
    confidence = models.FloatField()
    created_at = models.DateTimeField(default=clock.now)
    updated_at = models.DateTimeField(default=clock.now)
    access_count = models.PositiveIntegerField(default=0)
    last_accessed_at = models.DateTimeField(null=True, blank=True)
    decay_steps = models.PositiveSmallIntegerField(
        default=0, help_text="30-day decay periods already applied (the forgetting policy)"
    )
    expires_at = models.DateTimeField(null=True, blank=True)
    archived_at = models.DateTimeField(null=True, blank=True)
    metadata = models.JSONField(default=dict, blank=True)
    version = models.PositiveIntegerField(default=1)
    content_hash = models.CharField(max_length=64)
    valid_from = models.DateTimeField(default=clock.now)
    invalidated_at = models.DateTimeField(null=True, blank=True)
    superseded_by = models.ForeignKey("self", null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    # The English lexemes of ``content``, kept by PostgreSQL itself, so that keyword recall finds its
    # rows through a GIN index instead of parsing every memory of the customer at every query.
    search_terms = models.GeneratedField(
        expression=RawSQL("tsvector_to_array(to_tsvector('english'::regconfig, content))", []),
        output_field=ArrayField(models.TextField()),
        db_persist=True,
    )

    objects = LongTermMemoryQuerySet.as_manager()

    class Meta:
        verbose_name = "long-term memory"
        verbose_name_plural = "long-term memories"
        indexes = [
            models.Index(
                fields=["customer", "key"], name="ltm_customer_key_idx", condition=models.Q(invalidated_at__isnull=True)
            ),
            models.Index(fields=["customer", "content_hash", "created_at"], name="ltm_customer_hash_idx"),
            models.Index(fields=["customer", "-created_at"], name="ltm_customer_created_idx"),
            GinIndex(fields=["search_terms"], name="ltm_search_terms_idx"),
            # Exact identifiers (ILIKE) and Chinese trigram similarity (<%) of keyword recall.
            GinIndex(fields=["content"], opclasses=["gin_trgm_ops"], name="ltm_content_trgm_idx"),
        ]
        constraints = [
            # Two workers can never store the same keyed fact twice for one customer.
            models.UniqueConstraint(
                fields=["customer", "key", "value"],
                condition=models.Q(invalidated_at__isnull=True) & ~models.Q(key=""),
                name="ltm_one_valid_row_per_keyed_value",
            ),
            models.CheckConstraint(
                condition=models.Q(confidence__gte=0) & models.Q(confidence__lte=1), name="ltm_confidence_0_1"
            ),
        ]

    def __str__(self) -> str:
        return self.content[:80]

    @property
    def is_valid(self) -> bool:
        return self.invalidated_at is None and self.archived_at is None


class MemoryEvent(models.Model):
    """An append-only record of one change to long-term memory: its history, kept in PostgreSQL.

    ``memory_id`` is a plain column, not a foreign key, so that the history of a deleted memory stays
    (with its content redacted: forgotten means forgotten).
    """

    class Action(models.TextChoices):
        CREATED = "created"
        MERGED = "merged"
        UPDATED = "updated"
        SUPERSEDED = "superseded"
        WITHDRAWN = "withdrawn", "withdrawn (a change the customer turned down)"
        RESTORED = "restored"
        CONFLICT_OPENED = "conflict_opened"
        CONFLICT_RESOLVED = "conflict_resolved"
        DELETED = "deleted"

    memory_id = models.BigIntegerField(db_index=True)
    customer = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="memory_events")
    action = models.CharField(max_length=20, choices=Action.choices)
    actor = models.CharField(max_length=100)
    old = models.JSONField(default=dict, blank=True)
    new = models.JSONField(default=dict, blank=True)
    version = models.PositiveIntegerField(default=0)
    conversation_id = models.UUIDField(null=True, blank=True)
    created_at = models.DateTimeField(default=clock.now)

    class Meta:
        indexes = [models.Index(fields=["customer", "-created_at"], name="memory_event_customer_idx")]

    def __str__(self) -> str:
        return f"{self.action} #{self.memory_id} by {self.actor}"


class MemoryConflict(models.Model):
    """Two values that cannot both be true, for staff to review (or auto-resolved, revertible).

    ``existing`` is the memory that was valid when the incoming value arrived. If the policy let the
    incoming value supersede it at once, ``incoming`` is the new memory and the status is
    ``auto_resolved``; otherwise the incoming value lives only here until staff decide.
    """

    class Status(models.TextChoices):
        OPEN = "open"
        AUTO_RESOLVED = "auto_resolved", "auto-resolved"
        RESOLVED = "resolved"
        DISMISSED = "dismissed"

    class Reason(models.TextChoices):
        CONTRADICTION = "contradiction"
        STALE_VERSION = "stale_version", "stale version"
        CHANGE_REQUEST = "change_request", "change request (a shop-owned value)"

    customer = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="memory_conflicts")
    reason = models.CharField(max_length=20, choices=Reason.choices, default=Reason.CONTRADICTION)
    status = models.CharField(max_length=20, choices=Status.choices, default=Status.OPEN)
    existing = models.ForeignKey(
        LongTermMemory, null=True, on_delete=models.SET_NULL, related_name="conflicts_as_existing"
    )
    incoming = models.ForeignKey(
        LongTermMemory, null=True, blank=True, on_delete=models.SET_NULL, related_name="conflicts_as_incoming"
    )
    key = models.CharField(max_length=40, blank=True)
    incoming_value = models.CharField(max_length=300, blank=True)
    incoming_content = models.TextField(blank=True)
    incoming_source = models.CharField(max_length=20, choices=Source.choices)
    incoming_confidence = models.FloatField(default=0)
    incoming_conversation = models.ForeignKey(
        Conversation, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    resolution = models.CharField(max_length=40, blank=True)
    resolved_by = models.CharField(max_length=100, blank=True)
    resolved_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(default=clock.now)

    class Meta:
        indexes = [models.Index(fields=["status", "-created_at"], name="memory_conflict_status_idx")]

    def __str__(self) -> str:
        return f"{self.key or 'memory'}: {self.incoming_value or self.incoming_content[:40]} ({self.status})"


class ForgettingRun(models.Model):
    """One day's run of the forgetting policy; the unique day makes concurrent beats run it once."""

    day = models.DateField(unique=True)
    started_at = models.DateTimeField()
    finished_at = models.DateTimeField(null=True, blank=True)
    counts = models.JSONField(default=dict, blank=True)

    def __str__(self) -> str:
        return f"forgetting {self.day}"


class Lease(models.Model):
    """A named lock held by one holder until ``expires_at`` (``memory.locks.Lease``): a row, so that it
    works through any connection pool. The table is UNLOGGED: a crash forgets every lease, as it should."""

    name = models.CharField(max_length=200, primary_key=True)
    holder = models.UUIDField()
    expires_at = models.DateTimeField()

    def __str__(self) -> str:
        return f"{self.name} until {self.expires_at:%H:%M:%S}"


class LargeCustomer(models.Model):
    """A customer with enough memories for a vector index of their own (``memory.large_customers``).

    Written by the beat task that builds the index; read (cached) by recall, which then searches
    through that index and weighs the customer's common words by ``CommonTerm``.
    """

    customer = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, primary_key=True)
    memories = models.PositiveIntegerField(help_text="Valid memories when last counted.")
    index_name = models.CharField(max_length=63)
    indexed_at = models.DateTimeField()
    counted_at = models.DateTimeField()

    def __str__(self) -> str:
        return f"customer {self.customer_id}: {self.memories} memories"


class CommonTerm(models.Model):
    """A lexeme held by many of a large customer's valid memories, and how many (BM25's document frequency).

    Only common lexemes are kept: recall does not match on them (their weight is low and their rows
    many) but still weighs them; a rarer lexeme's frequency is counted from the rows it matches.
    """

    customer = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    term = models.TextField()
    documents = models.PositiveIntegerField()

    class Meta:
        constraints = [models.UniqueConstraint(fields=["customer", "term"], name="memory_common_term_unique")]

    def __str__(self) -> str:
        return f"{self.term} × {self.documents}"


class ConsolidationRun(models.Model):
    """What one consolidation run did with its candidates, by outcome (the staff dashboard's daily chart).

    No customer and no content: the memories themselves and their events say the rest.
    """

    created_at = models.DateTimeField(db_index=True)
    created = models.PositiveIntegerField(default=0)
    merged = models.PositiveIntegerField(default=0)
    superseded = models.PositiveIntegerField(default=0)
    conflicts = models.PositiveIntegerField(default=0)
    skipped = models.PositiveIntegerField(default=0)
    rejected = models.PositiveIntegerField(default=0, help_text="Candidates the validation turned away.")

    def __str__(self) -> str:
        return f"consolidation at {self.created_at:%Y-%m-%d %H:%M}"


class StoreDay(models.Model):
    """The long-term store at the end of one day, by type and source: valid and archived memories.

    Written by beat for yesterday (and any day missed) from the rows' own timestamps; deleted memories
    are gone by then, so deletions are charted from their events instead.
    """

    day = models.DateField()
    type = models.CharField(max_length=20)
    source = models.CharField(max_length=20)
    valid = models.PositiveIntegerField(default=0)
    archived = models.PositiveIntegerField(default=0)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["day", "type", "source"], name="memory_storeday_once")]

    def __str__(self) -> str:
        return f"{self.day} {self.type}/{self.source}: {self.valid} valid, {self.archived} archived"
