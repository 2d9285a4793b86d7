"""The demo shop's data: customer profiles, orders, shipments, refunds, policy articles, pending actions, and what the
shop promised (commitments)."""

from __future__ import annotations

import re
import uuid
from typing import Any

from django.conf import settings
from django.db import models, transaction
from pgvector.django import VectorField

from agentsite import clock
from memory import embeddings


class Language(models.TextChoices):
    ZH = "zh-hans", "简体中文"
    EN = "en", "English"


class CustomerProfile(models.Model):
    """What the shop itself records about a customer (its preferences are the source of system records)."""

    class Notifications(models.TextChoices):
        ON = "on"
        MUTE = "mute"

    class Channel(models.TextChoices):
        EMAIL = "email"
        PHONE = "phone"
        SMS = "sms"
        WECHAT = "wechat"

    user = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="profile")
    display_name = models.CharField(max_length=100)
    language = models.CharField(max_length=10, choices=Language.choices, default=Language.ZH)
    notification_preference = models.CharField(max_length=10, choices=Notifications.choices, default="on")
    contact_channel = models.CharField(max_length=10, choices=Channel.choices, default="email")
    default_address = models.CharField(max_length=300, blank=True)
    # The phone number on the account: a shop record (as the account's email), set by no change of the agent's.
    phone = models.CharField(max_length=30, blank=True)

    def __str__(self) -> str:
        return self.display_name


class Order(models.Model):
    class Status(models.TextChoices):
        PENDING = "pending"
        PAID = "paid"
        PROCESSING = "processing"
        SHIPPED = "shipped"
        IN_TRANSIT = "in_transit", "in transit"
        DELIVERED = "delivered"
        CANCELLED = "cancelled"
        REFUNDED = "refunded"

    customer = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="orders")
    number = models.CharField(max_length=20, unique=True)
    status = models.CharField(max_length=12, choices=Status.choices)
    placed_at = models.DateTimeField()
    total = models.DecimalField(max_digits=10, decimal_places=2)
    currency = models.CharField(max_length=3, default="CNY")
    shipping_address = models.CharField(max_length=300, blank=True)

    class Meta:
        indexes = [models.Index(fields=["customer", "-placed_at"], name="chat_order_customer_idx")]

    def __str__(self) -> str:
        return self.number


class OrderItem(models.Model):
    order = models.ForeignKey(Order, on_delete=models.CASCADE, related_name="items")
    name = models.CharField(max_length=200)
    quantity = models.PositiveIntegerField(default=1)
    unit_price = models.DecimalField(max_digits=10, decimal_places=2)

    def __str__(self) -> str:
        return f"{self.quantity} x {self.name}"


class Shipment(models.Model):
    order = models.OneToOneField(Order, on_delete=models.CASCADE, related_name="shipment")
    carrier = models.CharField(max_length=40)
    tracking_number = models.CharField(max_length=40)
    status = models.CharField(max_length=12, choices=Order.Status.choices)
    eta = models.DateField(null=True, blank=True)

    def __str__(self) -> str:
        return f"{self.carrier} {self.tracking_number}"


class TrackingEvent(models.Model):
    shipment = models.ForeignKey(Shipment, on_delete=models.CASCADE, related_name="events")
    time = models.DateTimeField()
    location = models.CharField(max_length=100)
    description = models.CharField(max_length=200)

    class Meta:
        ordering = ["time"]

    def __str__(self) -> str:
        return f"{self.time:%Y-%m-%d %H:%M} {self.location}: {self.description}"


class Refund(models.Model):
    class Status(models.TextChoices):
        REQUESTED = "requested"
        APPROVED = "approved"
        REFUSED = "refused"

    order = models.ForeignKey(Order, on_delete=models.CASCADE, related_name="refunds")
    amount = models.DecimalField(max_digits=10, decimal_places=2)
    reason = models.CharField(max_length=300)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.REQUESTED)
    requested_at = models.DateTimeField(default=clock.now)
    conversation_id = models.UUIDField(null=True, blank=True)
    return_received_at = models.DateTimeField(null=True, blank=True, help_text="when staff recorded the return")
    decided_at = models.DateTimeField(null=True, blank=True)
    decided_by = models.CharField(max_length=150, blank=True)

    class Meta:
        constraints = [
            # At most one open refund per order: a confirmation that arrives twice cannot make two.
            models.UniqueConstraint(
                fields=["order"], condition=models.Q(status="requested"), name="chat_one_open_refund"
            )
        ]

    def __str__(self) -> str:
        return f"refund {self.amount} for {self.order}"


class PolicyArticle(models.Model):
    """One article of the shop's knowledge base, embedded on save and found by hybrid search."""

    slug = models.SlugField(max_length=80)
    language = models.CharField(max_length=10, choices=Language.choices)
    title = models.CharField(max_length=200)
    body = models.TextField()
    embedding = VectorField(dimensions=embeddings.DIMENSIONS, null=True, blank=True, editable=False)
    updated_at = models.DateTimeField(default=clock.now)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["slug", "language"], name="chat_article_slug_language")]

    def __str__(self) -> str:
        return f"#{self.pk} {self.title}"

    def save(self, *args: Any, **kwargs: Any) -> None:
        """Save and re-embed: the whole article, and each of its chunks."""
        from memory.embeddings import get_embedder

        chunks = self.chunks()
        vectors = get_embedder().embed_passages([f"{self.title}\n{self.body}", *chunks])
        self.embedding = vectors[0]
        self.updated_at = clock.now()
        with transaction.atomic():
            super().save(*args, **kwargs)
            self.chunk_set.all().delete()
            PolicyChunk.objects.bulk_create(
                PolicyChunk(article=self, text=text, embedding=vector)
                for text, vector in zip(chunks, vectors[1:], strict=True)
            )

    def chunks(self) -> list[str]:
        """The title, and each sentence of the body under its title: what search compares a question with."""
        sentences = [part.strip() for part in re.split(r"(?<=[。！？.!?；;])\s*", self.body) if part.strip()]
        return [self.title, *(f"{self.title}: {sentence}" for sentence in sentences)]


class PolicyChunk(models.Model):
    """One sentence of a policy article (short texts match short questions better than a whole article)."""

    article = models.ForeignKey(PolicyArticle, on_delete=models.CASCADE, related_name="chunk_set")
    text = models.TextField()
    embedding = VectorField(dimensions=embeddings.DIMENSIONS)

    def __str__(self) -> str:
        return self.text[:60]


class PendingAction(models.Model):
    """A change a tool proposed; it happens only when the customer's next message confirms it.

    One waits for the customer's answer at a time (``pending``); a second change asked for in the same
    message is ``queued`` and proposed once the first is answered (``chat.tools.propose_next``).
    """

    class Status(models.TextChoices):
        PENDING = "pending"
        QUEUED = "queued", "queued (proposed once the change before it is answered)"
        DONE = "done"
        CANCELLED = "cancelled"
        LAPSED = "lapsed", "lapsed (not confirmed in time)"

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    conversation_id = models.UUIDField(db_index=True)
    customer = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="pending_actions")
    tool = models.CharField(max_length=40)
    arguments = models.JSONField()
    summary = models.CharField(max_length=600)  # names the whole change: an address is up to 300
    shown = models.JSONField(
        default=dict, blank=True, help_text="what the proposal showed beside the arguments (amount, items)"
    )
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING)
    result = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(default=clock.now)
    decided_at = models.DateTimeField(null=True, blank=True)
    interruptions = models.PositiveSmallIntegerField(
        default=0, help_text="other requests of the customer while it waited (AGENT_CONFIRM_INTERRUPTIONS)"
    )

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["conversation_id"], condition=models.Q(status="pending"), name="chat_one_pending_action"
            )
        ]

    def __str__(self) -> str:
        return f"{self.tool} ({self.status})"


class OutboxMessage(models.Model):
    """A message the shop sends the customer (the demo only queues it: staff see it in the admin).

    A changed address or contact channel is announced on the previous one as well as the new one, so
    that a customer whose account was taken over hears of it where they still read.
    """

    class Channel(models.TextChoices):
        EMAIL = "email"
        PHONE = "phone"
        SMS = "sms"
        WECHAT = "wechat"
        POST = "post"

    customer = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="outbox")
    channel = models.CharField(max_length=10, choices=Channel.choices)
    destination = models.CharField(max_length=300, help_text="where it goes: an address, or the channel's account")
    subject = models.CharField(max_length=200)
    body = models.TextField()
    created_at = models.DateTimeField(default=clock.now)
    sent_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        indexes = [models.Index(fields=["customer", "-created_at"], name="chat_outbox_customer_idx")]

    def __str__(self) -> str:
        return f"{self.channel} to {self.destination}: {self.subject}"


class ConversationRating(models.Model):
    """The customer's satisfaction with one conversation: 1-5 and an optional comment (one per conversation)."""

    conversation = models.OneToOneField("memory.Conversation", on_delete=models.CASCADE, related_name="rating")
    score = models.PositiveSmallIntegerField()
    comment = models.TextField(blank=True, max_length=2000)
    created_at = models.DateTimeField(default=clock.now)

    class Meta:
        constraints = [
            models.CheckConstraint(condition=models.Q(score__gte=1) & models.Q(score__lte=5), name="chat_rating_1_5")
        ]

    def __str__(self) -> str:
        return f"{self.score}/5 for {self.conversation_id}"


class Handoff(models.Model):
    """An escalated conversation waiting for, or taken by, a member of staff, with its handoff packet."""

    conversation = models.OneToOneField("memory.Conversation", on_delete=models.CASCADE, related_name="handoff")
    packet = models.JSONField()
    created_at = models.DateTimeField(default=clock.now)
    taken_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="handoffs_taken"
    )
    taken_at = models.DateTimeField(null=True, blank=True)
    closed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        indexes = [models.Index(fields=["closed_at", "created_at"], name="chat_handoff_queue_idx")]

    def __str__(self) -> str:
        return f"handoff {self.conversation_id}"


class Commitment(models.Model):
    """Something the shop promised a customer: chase an order, refund a return, a colleague's reply after a
    handoff (docs/promises.md).

    ``outcome`` is what last happened to it and ``version`` counts those happenings; the customer has
    been told up to ``reported_version`` (the conversation it was made in tells them of its making).
    """

    class Kind(models.TextChoices):
        EXPEDITE = "expedite"
        REFUND = "refund"
        CALLBACK = "callback"
        FOLLOW_UP = "follow_up", "staff follow-up"

    class Status(models.TextChoices):
        OPEN = "open"
        OVERDUE = "overdue"
        DONE = "done"
        CANCELLED = "cancelled"

    customer = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="commitments")
    conversation = models.ForeignKey(
        "memory.Conversation", null=True, blank=True, on_delete=models.SET_NULL, related_name="commitments"
    )
    message_seq = models.PositiveIntegerField(null=True, blank=True, help_text="the message it was made in")
    order = models.ForeignKey(Order, null=True, blank=True, on_delete=models.CASCADE, related_name="commitments")
    refund = models.ForeignKey(Refund, null=True, blank=True, on_delete=models.CASCADE, related_name="commitments")
    kind = models.CharField(max_length=10, choices=Kind.choices)
    due_at = models.DateTimeField(null=True, blank=True, help_text="empty while it waits for something (a return)")
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.OPEN)
    outcome = models.CharField(max_length=20, default="made")
    version = models.PositiveIntegerField(default=1)
    reported_version = models.PositiveIntegerField(default=1)
    created_at = models.DateTimeField(default=clock.now)
    closed_at = models.DateTimeField(null=True, blank=True)
    closed_by = models.CharField(max_length=150, blank=True, help_text="who closed it: staff:<name> or the system")

    class Meta:
        indexes = [
            models.Index(fields=["status", "due_at"], name="chat_commitment_due_idx"),
            models.Index(fields=["customer", "-created_at"], name="chat_commitment_customer_idx"),
        ]
        constraints = [
            # One open promise of a kind per order: asking twice to chase an order is one promise.
            models.UniqueConstraint(
                fields=["order", "kind"],
                condition=models.Q(status__in=["open", "overdue"]) & models.Q(order__isnull=False),
                name="chat_one_open_commitment_per_order",
            )
        ]

    def __str__(self) -> str:
        return f"{self.kind} {self.order or ''} ({self.status})".replace("  ", " ")


class CommitmentEvent(models.Model):
    """One thing that happened to a commitment: made, overdue, extended, done, cancelled, reported."""

    commitment = models.ForeignKey(Commitment, on_delete=models.CASCADE, related_name="events")
    kind = models.CharField(max_length=20)
    at = models.DateTimeField(default=clock.now)
    actor = models.CharField(max_length=150, blank=True)
    detail = models.JSONField(default=dict, blank=True)

    class Meta:
        ordering = ["at", "id"]

    def __str__(self) -> str:
        return f"{self.kind} at {self.at:%Y-%m-%d %H:%M}"


class TurnStat(models.Model):
    """One customer turn as the staff dashboard counts it: no words, no customer, what happened and how fast.

    Written when the turn ends (``chat.records.record_turn``). The conversation's id is kept
    without a foreign key: the history outlives transcripts deleted by retention or erasure.
    """

    class Outcome(models.TextChoices):
        ANSWERED = "answered"
        RESOLVED = "resolved"
        ESCALATED = "escalated"
        SILENT = "silent", "waiting for staff"
        FAILED = "failed"

    created_at = models.DateTimeField(db_index=True)
    conversation_id = models.UUIDField(db_index=True)
    language = models.CharField(max_length=8)
    recall_mode = models.CharField(max_length=10)
    vector_queries = models.PositiveSmallIntegerField(default=0)
    memories_used = models.PositiveSmallIntegerField(default=0)
    latency_ms = models.PositiveIntegerField()
    outcome = models.CharField(max_length=10, choices=Outcome.choices)

    def __str__(self) -> str:
        return f"turn {self.outcome} in {self.latency_ms} ms"


class Takeover(models.Model):
    """A member of staff taking an escalated conversation, and how long the customer had waited."""

    created_at = models.DateTimeField(db_index=True)
    waited_seconds = models.PositiveIntegerField()

    def __str__(self) -> str:
        return f"taken after {self.waited_seconds} s"
