"""The memory app's tables. Short-term memory's durable copy: conversations, messages, summaries, transitions.

These rows are what survives when Redis loses a session (``memory.session`` rebuilds the hot
copy from them) and what long-term consolidation reads later (``Conversation.consolidated_seq``
is its watermark). They are kept with the customer's account. Times come from
``agentsite.clock`` (never database ``NOW()`` defaults) so tests can move the clock.
"""

from __future__ import annotations

import uuid
from datetime import datetime

from django.conf import settings
from django.db import models

from agentsite import clock
from memory.states import AgentState
from memory.working import Role

ROLE_CHOICES = [(role.value, role.value) for role in Role]


class ConversationQuerySet(models.QuerySet):
    def bump(self, conversation_id: uuid.UUID | str, *, now: datetime, new_message: bool) -> Conversation:
        """Lock the row, count one more write (and message) and return the updated row.

        One ``UPDATE ... RETURNING``: the row stays locked until the surrounding transaction
        ends, so two concurrent appends can never be given the same sequence number.
        """
        table = self.model._meta.db_table
        rows = list(
            self.model.objects.raw(
                f"UPDATE {table} SET version = version + 1, last_seq = last_seq + %s, updated_at = %s "  # noqa: S608
                "WHERE id = %s RETURNING *",
                [1 if new_message else 0, now, str(conversation_id)],
            )
        )
        if not rows:
            raise self.model.DoesNotExist(f"no conversation {conversation_id}")
        return rows[0]

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
