"""A customer's data: everything held about them, exported as JSON, and erased everywhere. Erasure removes the
memory side for one customer under their long-term-memory lock, so a consolidation run in flight either
finished before or stores nothing, and every filter names the customer, so nothing here can reach another
customer's rows. See docs/operations.md ("Privacy: export and erase").
"""

from __future__ import annotations

import base64
import json
import logging
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any
from uuid import UUID

from django.contrib.auth import get_user_model
from django.db import transaction
from django.db.models import Model
from django.forms.models import model_to_dict

from agentsite import clock
from agentsite.models import ModelCall
from chat.models import (
    Commitment,
    CommitmentEvent,
    ConversationRating,
    CustomerProfile,
    Handoff,
    Order,
    PendingAction,
    Refund,
    Shipment,
)
from memory.longterm import customer_lock
from memory.models import (
    CompressionSummary,
    Conversation,
    ConversationMessage,
    LongTermMemory,
    MemoryConflict,
    MemoryEvent,
    StateTransition,
)
from memory.session import SessionKeys

if TYPE_CHECKING:
    from django.contrib.auth.models import User
    from redis import Redis

logger = logging.getLogger(__name__)

CONSOLIDATION_TASK = "memory.consolidate_conversation"


class UnknownCustomer(Exception):
    """No account has that user name."""


def customer(username: str) -> User:
    """Return the account called ``username`` or raise ``UnknownCustomer``."""
    user = get_user_model().objects.filter(username=username).first()
    if user is None:
        raise UnknownCustomer(f"no customer with the user name {username!r}")
    return user


def _rows(queryset: Iterable[Model], exclude: tuple[str, ...] = ()) -> list[dict[str, Any]]:
    return [{k: v for k, v in model_to_dict(row).items() if k not in exclude} | {"id": row.pk} for row in queryset]


def export(user: User) -> dict[str, Any]:
    """Everything the system holds about ``user``, as JSON-ready data (embeddings left out)."""
    conversations = Conversation.objects.filter(customer=user).order_by("created_at")
    conversation_ids = list(conversations.values_list("pk", flat=True))
    profile = CustomerProfile.objects.filter(user=user).first()
    return {
        "exported_at": clock.now().isoformat(),
        "account": {
            "username": user.get_username(),
            "email": user.email,
            "first_name": user.first_name,
            "last_name": user.last_name,
            "date_joined": user.date_joined.isoformat(),
            "last_login": user.last_login.isoformat() if user.last_login else None,
            "is_active": user.is_active,
        },
        "profile": _rows([profile], exclude=("user",))[0] if profile else None,
        "orders": [_order(order) for order in Order.objects.filter(customer=user).order_by("placed_at")],
        "conversations": [_conversation(c) for c in conversations],
        "long_term_memories": _rows(
            LongTermMemory.objects.filter(customer=user).order_by("created_at"), exclude=("embedding", "customer")
        ),
        "memory_events": _rows(MemoryEvent.objects.filter(customer=user).order_by("id"), exclude=("customer",)),
        "memory_conflicts": _rows(MemoryConflict.objects.filter(customer=user).order_by("id"), exclude=("customer",)),
        "pending_actions": _rows(PendingAction.objects.filter(customer=user).order_by("created_at"), ("customer",)),
        "commitments": [_commitment(c) for c in Commitment.objects.filter(customer=user).order_by("created_at")],
        "model_calls": list(
            ModelCall.objects.filter(conversation_id__in=conversation_ids)
            .order_by("created_at")
            .values(
                "created_at",
                "purpose",
                "model",
                "prompt_tokens",
                "completion_tokens",
                "cost_usd",
                "ok",
                "conversation_id",
            )
        ),
        "short_term_memory_keys": sorted(_redis_keys(user.pk, conversation_ids)),
    }


def _order(order: Order) -> dict[str, Any]:
    data = _rows([order], exclude=("customer",))[0]
    data["items"] = _rows(order.items.all(), exclude=("order",))
    shipment = Shipment.objects.filter(order=order).first()
    data["shipment"] = _rows([shipment], exclude=("order",))[0] if shipment else None
    if shipment:
        data["shipment"]["events"] = _rows(shipment.events.all(), exclude=("shipment",))
    data["refunds"] = _rows(order.refunds.all(), exclude=("order",))
    return data


def _commitment(commitment: Commitment) -> dict[str, Any]:
    data = _rows([commitment], exclude=("customer",))[0]
    data["events"] = _rows(commitment.events.all(), exclude=("commitment",))
    return data


def _conversation(conversation: Conversation) -> dict[str, Any]:
    data = _rows([conversation], exclude=("customer",))[0]
    data["messages"] = list(
        ConversationMessage.objects.filter(conversation=conversation)
        .order_by("seq")
        .values("seq", "role", "content", "created_at", "metadata")
    )
    data["summaries"] = list(
        CompressionSummary.objects.filter(conversation=conversation)
        .order_by("first_seq")
        .values("first_seq", "last_seq", "content", "created_at")
    )
    data["state_transitions"] = list(
        StateTransition.objects.filter(conversation=conversation)
        .order_by("id")
        .values("from_state", "to_state", "reason", "created_at")
    )
    rating = ConversationRating.objects.filter(conversation=conversation).first()
    data["rating"] = {"score": rating.score, "comment": rating.comment, "at": rating.created_at} if rating else None
    handoff = Handoff.objects.filter(conversation=conversation).first()
    data["handoff"] = (
        {"packet": handoff.packet, "created_at": handoff.created_at, "closed_at": handoff.closed_at}
        if handoff
        else None
    )
    return data


@dataclass
class Erased:
    """What ``erase`` removed, by kind."""

    counts: dict[str, int] = field(default_factory=dict)

    def add(self, kind: str, number: int) -> None:
        self.counts[kind] = self.counts.get(kind, 0) + number


def erase(user: User, *, delete_account: bool = False) -> Erased:
    """Remove everything the agent holds about ``user`` (see the module's docstring); return the counts."""
    erased = Erased()
    with transaction.atomic():
        customer_lock(user.pk)  # waits for a consolidation run of this customer that is committing
        conversation_ids = list(Conversation.objects.filter(customer=user).values_list("pk", flat=True))
        erased.add("memory_conflicts", MemoryConflict.objects.filter(customer=user).delete()[0])
        erased.add("memory_events", MemoryEvent.objects.filter(customer=user).delete()[0])
        LongTermMemory.objects.filter(customer=user).update(superseded_by=None)
        erased.add("long_term_memories", LongTermMemory.objects.filter(customer=user).delete()[0])
        erased.add("pending_actions", PendingAction.objects.filter(customer=user).delete()[0])
        erased.add("commitment_events", CommitmentEvent.objects.filter(commitment__customer=user).delete()[0])
        erased.add("commitments", Commitment.objects.filter(customer=user).delete()[0])
        erased.add("model_calls", ModelCall.objects.filter(conversation_id__in=conversation_ids).delete()[0])
        Refund.objects.filter(order__customer=user, conversation_id__in=conversation_ids).update(conversation_id=None)
        in_conversations = {"conversation__customer": user}
        erased.add("ratings", ConversationRating.objects.filter(**in_conversations).delete()[0])
        erased.add("handoffs", Handoff.objects.filter(**in_conversations).delete()[0])
        erased.add("messages", ConversationMessage.objects.filter(**in_conversations).delete()[0])
        erased.add("compression_summaries", CompressionSummary.objects.filter(**in_conversations).delete()[0])
        erased.add("state_transitions", StateTransition.objects.filter(customer=user).delete()[0])
        erased.add("conversations", Conversation.objects.filter(customer=user).delete()[0])
        if delete_account:
            erased.add("account", get_user_model().objects.filter(pk=user.pk).delete()[0])
    # After the commit: a hot copy or a queued run recreated in between finds no rows to come back from.
    erased.add("redis_keys", _delete_redis_keys(user.pk, conversation_ids))
    erased.add("queued_consolidations", _drop_queued_consolidations({str(c) for c in conversation_ids}))
    logger.info("customer %s erased: %s", user.pk, erased.counts)
    return erased


def _redis() -> Redis:
    from django_redis import get_redis_connection

    connection: Redis = get_redis_connection("default")
    return connection


def _redis_keys(customer_id: int, conversation_ids: list[UUID]) -> set[str]:
    redis = _redis()
    keys = {key for c in conversation_ids for key in SessionKeys.of(c).all() if redis.exists(key)}
    keys.update(k.decode() for k in redis.scan_iter(match=f"rate:{customer_id}:*", count=1000))
    return keys


def _delete_redis_keys(customer_id: int, conversation_ids: list[UUID]) -> int:
    keys = _redis_keys(customer_id, conversation_ids)
    return _redis().delete(*keys) if keys else 0


def _drop_queued_consolidations(conversation_ids: set[str]) -> int:
    """Remove the consolidation tasks for these conversations still waiting in the broker's queue.

    A run already taken by a worker finds its conversation gone and stores nothing
    (``memory.consolidation.consolidate``).
    """
    if not conversation_ids:
        return 0
    import redis as redis_py
    from celery import current_app

    broker = redis_py.Redis.from_url(current_app.conf.broker_url)
    queue = current_app.conf.task_default_queue
    dropped = 0
    try:
        for raw in broker.lrange(queue, 0, -1):
            if _consolidates(raw, conversation_ids):
                dropped += broker.lrem(queue, 1, raw)  # type: ignore[arg-type]  # redis-py hints str; bytes work
    finally:
        broker.close()
    return dropped


def _consolidates(raw: bytes | str, conversation_ids: set[str]) -> bool:
    """Whether a broker message (kombu's JSON envelope) is a consolidation run of one of these conversations."""
    try:
        envelope = json.loads(raw)
        if envelope.get("headers", {}).get("task") != CONSOLIDATION_TASK:
            return False
        body = envelope["body"]
        if envelope.get("properties", {}).get("body_encoding") == "base64":
            body = base64.b64decode(body)
        args = json.loads(body)[0]
    except (ValueError, KeyError, IndexError, TypeError):
        return False
    return bool(args) and str(args[0]) in conversation_ids
