"""What the shop promised a customer: made by the tools that promise, closed by what the shop does, marked
overdue by beat, read by the turn, and reported back once when the customer comes back, even when two sockets
open at once. See docs/promises.md.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING
from uuid import UUID

from django.conf import settings
from django.db import transaction
from django.db.models import F, Q, QuerySet
from django.utils import timezone

from agentsite import clock
from chat import live
from chat.models import Commitment, CommitmentEvent, Order, Refund
from chat.tool_results import JSONObject
from memory import session as short_term
from memory.states import bot_may_reply
from memory.working import Entry, Role

if TYPE_CHECKING:
    from django.contrib.auth.models import User

logger = logging.getLogger(__name__)

OPEN = (Commitment.Status.OPEN, Commitment.Status.OVERDUE)


def add_business_days(start: datetime, days: int) -> datetime:
    """``start`` plus ``days`` working days (Monday to Friday), at the same time of day."""
    moved = start
    while days > 0:
        moved += timedelta(days=1)
        days -= moved.weekday() < 5
    return moved


# -- made ----------------------------------------------------------------------------------------


def make(
    customer_id: int,
    kind: str,
    *,
    due_at: datetime | None,
    order: Order | None = None,
    refund: Refund | None = None,
    conversation_id: UUID | str | None = None,
    actor: str = "agent",
) -> tuple[Commitment, bool]:
    """Record a promise; one open promise of a kind per order (asking twice to chase an order is one), or per
    conversation for a promise about no order (a callback).

    Returns the commitment and whether it was made now."""
    same: dict[str, Order | UUID | str] | None = (
        {"order": order} if order is not None else {"conversation_id": conversation_id} if conversation_id else None
    )
    with transaction.atomic():
        if same is not None:  # one open promise of a kind per order, or per conversation without one
            existing = Commitment.objects.select_for_update().filter(**same, kind=kind, status__in=OPEN).first()
            if existing is not None:
                return existing, False
        commitment = Commitment.objects.create(
            customer_id=customer_id,
            kind=kind,
            due_at=due_at,
            order=order,
            refund=refund,
            conversation_id=_existing_conversation(conversation_id),
            message_seq=_last_seq(conversation_id),
        )
        CommitmentEvent.objects.create(commitment=commitment, kind="made", actor=actor, detail={"due_at": _iso(due_at)})
    return commitment, True


def _existing_conversation(conversation_id: UUID | str | None) -> UUID | str | None:
    from memory.models import Conversation

    if conversation_id is None or not Conversation.objects.filter(pk=conversation_id).exists():
        return None
    return conversation_id


def _last_seq(conversation_id: UUID | str | None) -> int | None:
    """The customer's message the promise answers: their latest when it is made."""
    from memory.models import ConversationMessage

    if conversation_id is None:
        return None
    mine = ConversationMessage.objects.filter(conversation_id=conversation_id, role="user")
    return mine.order_by("-seq").values_list("seq", flat=True).first()


def expedite_due() -> datetime:
    return clock.now() + timedelta(hours=settings.COMMITMENT_EXPEDITE_HOURS)


def callback_due() -> datetime:
    return clock.now() + timedelta(hours=settings.COMMITMENT_CALLBACK_HOURS)


# -- what happens to them ----------------------------------------------------------------------


def happen(
    commitment: Commitment,
    outcome: str,
    *,
    actor: str,
    status: str | None = None,
    due_at: datetime | None = None,
    detail: JSONObject | None = None,
) -> bool:
    """Record an outcome (the customer hears of it next visit); ``False`` if the commitment is closed."""
    now = clock.now()
    changes: dict[str, object] = {"outcome": outcome, "version": F("version") + 1}
    if status is not None:
        changes["status"] = status
        if status in (Commitment.Status.DONE, Commitment.Status.CANCELLED):
            changes.update(closed_at=now, closed_by=actor)
    if due_at is not None:
        changes["due_at"] = due_at
    with transaction.atomic():
        if not Commitment.objects.filter(pk=commitment.pk, status__in=OPEN).update(**changes):
            return False
        detail = {**(detail or {}), **({"due_at": _iso(due_at)} if due_at else {})}
        CommitmentEvent.objects.create(commitment=commitment, kind=outcome, at=now, actor=actor, detail=detail)
    commitment.refresh_from_db()
    return True


def close_for_order(order: Order, kind: str, outcome: str, actor: str, detail: JSONObject | None = None) -> int:
    """Close the order's open promises of ``kind`` as done (shipping closes a chase); return how many."""
    closed = 0
    for commitment in Commitment.objects.filter(order=order, kind=kind, status__in=OPEN):
        closed += happen(commitment, outcome, actor=actor, status=Commitment.Status.DONE, detail=detail)
    return closed


def close_callbacks(conversation_id: UUID | str, actor: str) -> int:
    """A colleague took the escalated conversation: the promised callback is kept."""
    closed = 0
    for commitment in Commitment.objects.filter(
        conversation_id=conversation_id, kind=Commitment.Kind.CALLBACK, status__in=OPEN
    ):
        closed += happen(commitment, "done", actor=actor, status=Commitment.Status.DONE)
    return closed


def return_received(refund: Refund, actor: str) -> None:
    """The return arrived: the refund promise is due a number of business days from now."""
    due = add_business_days(clock.now(), settings.COMMITMENT_REFUND_BUSINESS_DAYS)
    for commitment in Commitment.objects.filter(refund=refund, status__in=OPEN):
        happen(commitment, "return_received", actor=actor, status=Commitment.Status.OPEN, due_at=due)


def refund_decided(refund: Refund, actor: str) -> None:
    outcome = "refund_approved" if refund.status == Refund.Status.APPROVED else "refund_refused"
    for commitment in Commitment.objects.filter(refund=refund, status__in=OPEN):
        happen(commitment, outcome, actor=actor, status=Commitment.Status.DONE, detail={"amount": str(refund.amount)})


def extend(commitment: Commitment, due_at: datetime, actor: str) -> bool:
    """A new due time (the customer is told next visit); an overdue promise is open again."""
    if due_at <= clock.now():
        raise ValueError("the new due time must be in the future")
    return happen(commitment, "extended", actor=actor, status=Commitment.Status.OPEN, due_at=due_at)


def mark_overdue(now: datetime | None = None) -> list[int]:
    """Mark every open promise past its due time overdue, once: the ``UPDATE`` decides, so two beats
    running together mark each once. Returns the ids marked."""
    now = now or clock.now()
    with transaction.atomic():
        marked = list(
            Commitment.objects.filter(status=Commitment.Status.OPEN, due_at__lt=now)
            .select_for_update(skip_locked=True)
            .values_list("pk", flat=True)
        )
        if marked:
            Commitment.objects.filter(pk__in=marked).update(
                status=Commitment.Status.OVERDUE, outcome="overdue", version=F("version") + 1
            )
            CommitmentEvent.objects.bulk_create(
                CommitmentEvent(commitment_id=pk, kind="overdue", at=now, actor="system") for pk in marked
            )
    if marked:
        logger.info("%d commitment(s) overdue", len(marked))
    return marked


def due_list(within: timedelta = timedelta(hours=24)) -> QuerySet[Commitment]:
    """Open promises due within ``within`` and overdue ones, the oldest due first (the staff console)."""
    return (
        Commitment.objects.filter(status__in=OPEN, due_at__lte=clock.now() + within)
        .select_related("customer", "order")
        .order_by("due_at")
    )


def message_customer(commitment: Commitment, staff: User, text: str) -> UUID:
    """A staff member writes to the customer about a promise: stored in their latest open conversation (one
    is started if none is open) and pushed to their open sockets. Returns the conversation."""
    from memory.models import Conversation

    text = " ".join(text.split())
    if not text:
        raise ValueError("an empty message")
    if len(text) > 2000:
        raise ValueError("a message is limited to 2000 characters")
    store = short_term.store()
    latest = (
        Conversation.objects.filter(customer_id=commitment.customer_id, ended_at__isnull=True)
        .order_by("-updated_at")
        .values_list("pk", flat=True)
        .first()
    )
    conversation_id = latest or store.start(commitment.customer_id).id
    name = staff.get_full_name() or staff.get_username()
    entry = Entry.create(Role.ASSISTANT, text, timestamp=clock.now(), metadata={"staff_name": name})
    store.append(conversation_id, entry, by_staff=True)
    actor, detail = f"staff:{staff.get_username()}", {"conversation": str(conversation_id)}
    CommitmentEvent.objects.create(commitment=commitment, kind="messaged", actor=actor, detail=detail)
    live.push(conversation_id, {"type": "staff.message", "text": text, "staff_name": name})
    return conversation_id


# -- read by the turn, and reported back --------------------------------------------------------


@dataclass(frozen=True)
class Promise:
    """A commitment as the turn and the report read it."""

    id: int
    kind: str
    status: str
    outcome: str
    order: str
    due_at: datetime | None
    closed_at: datetime | None
    amount: str = ""

    @classmethod
    def of(cls, c: Commitment) -> Promise:
        amount = str(c.refund.amount) if c.refund_id and c.refund else ""
        order = c.order.number if c.order_id and c.order else ""
        return cls(c.pk, c.kind, c.status, c.outcome, order, c.due_at, c.closed_at, amount)


def recent_since() -> datetime:
    """Promises closed since then are still shown to the model (``COMMITMENT_RECENT_DAYS``)."""
    return clock.now() - timedelta(days=settings.COMMITMENT_RECENT_DAYS)


def for_turn(customer_id: int) -> list[Promise]:
    """Open promises and those closed in the last ``COMMITMENT_RECENT_DAYS``, newest first: what the turn
    shows the model as the shop's own record."""
    rows = (
        Commitment.objects.filter(customer_id=customer_id)
        .filter(Q(status__in=OPEN) | Q(closed_at__gte=recent_since()))
        .select_related("order", "refund")
        .order_by("-created_at")[:10]
    )
    return [Promise.of(c) for c in rows]


def report_back(customer_id: int, conversation_id: UUID | str, language: str) -> str | None:
    """Tell the customer what happened to their promises since they last heard: one stored agent message in
    ``conversation_id``, each outcome once. ``None`` when there is nothing new (or a person has the chat)."""
    unreported = Commitment.objects.filter(customer_id=customer_id, reported_version__lt=F("version"))
    if not unreported.exists():  # the usual case: one indexed query per socket opened
        return None
    store = short_term.store()
    if not bot_may_reply(store.load(conversation_id, recent=1).state):
        return None
    with transaction.atomic():
        claimed = list(
            unreported.select_for_update(skip_locked=True, of=("self",))
            .select_related("order", "refund")
            .order_by("created_at")
        )
        if not claimed:
            return None
        Commitment.objects.filter(pk__in=[c.pk for c in claimed]).update(reported_version=F("version"))
        CommitmentEvent.objects.bulk_create(
            CommitmentEvent(commitment=c, kind="reported", actor="agent", detail={"outcome": c.outcome})
            for c in claimed
        )
        text = report_text([Promise.of(c) for c in claimed], language)
        entry = Entry.create(Role.ASSISTANT, text, timestamp=clock.now(), metadata={"kind": "report_back"})
        store.append(conversation_id, entry)
    return text


def _iso(value: datetime | None) -> str | None:
    return value.isoformat() if value else None


# -- the words -----------------------------------------------------------------------------------

KINDS = {
    # "callback": the handoff's promise that a colleague answers in this chat (never a phone call)
    "zh": {"expedite": "催单", "refund": "退款", "callback": "人工客服回复", "follow_up": "跟进"},
    "en": {"expedite": "chase", "refund": "refund", "callback": "reply from a colleague", "follow_up": "follow-up"},
}
# What happened, said to the customer: {order}, {due}, {amount}, {closed}.
OUTCOMES = {
    "zh": {
        "shipped": "您让我们催的订单{order}已于{closed}发货。",
        "delivered": "您让我们催的订单{order}已于{closed}送达。",
        "return_received": "我们已收到订单{order}的退货，退款将在{due}前处理。",
        "refund_approved": "订单{order}的退款{amount}已于{closed}批准。",
        "refund_refused": "很抱歉，订单{order}的退款申请未获批准（{closed}）。",
        "overdue": "我们答应在{due}前完成的{kind}（{order}）还没有完成，已超时，同事正在跟进。",
        "extended": "{kind}（{order}）的处理时间延长到{due}。",
        "done": "我们答应的{kind}（{order}）已于{closed}完成。",
        "cancelled": "{kind}（{order}）已取消。",
    },
    "en": {
        "shipped": "The order you asked us to chase, {order}, shipped on {closed}.",
        "delivered": "The order you asked us to chase, {order}, was delivered on {closed}.",
        "return_received": "We received the return for order {order}; your refund will be handled by {due}.",
        "refund_approved": "Your refund of {amount} for order {order} was approved on {closed}.",
        "refund_refused": "I'm sorry: the refund for order {order} was not approved ({closed}).",
        "overdue": "The {kind} we promised by {due} ({order}) is not done yet; it is late and a colleague is on it.",
        "extended": "The {kind} ({order}) now has until {due}.",
        "done": "The {kind} we promised ({order}) was done on {closed}.",
        "cancelled": "The {kind} ({order}) was cancelled.",
    },
}
INTRO = {"zh": "欢迎回来！上次之后有这些进展：", "en": "Welcome back! Since we last spoke:"}
NO_ORDER = {"zh": "您的问题", "en": "your request"}
# How a promise reads in the memory block, as the shop's record: {kind}, {order}, {due}, {status}.
RECORD = {
    "zh": "本店承诺：{kind}（{order}），{status}，期限{due}",
    "en": "The shop's promise: {kind} ({order}), {status}, due {due}",
}
# A promise with no due time: said so, rather than "due to be set".
NO_DUE = {"zh": ("期限待定", "暂无期限"), "en": ("due to be set", "no due date yet")}
STATUS_WORDS = {
    "zh": {"open": "进行中", "overdue": "已超时", "done": "已完成", "cancelled": "已取消"},
    "en": {"open": "open", "overdue": "overdue", "done": "done", "cancelled": "cancelled"},
}


def _when(value: datetime | None, lang: str) -> str:
    if value is None:
        return "待定" if lang == "zh" else "to be set"
    return f"{timezone.localtime(value):%Y-%m-%d %H:%M}"


def due_words(due_at: str | datetime | None, language: str) -> str:
    """A due time as the customer reads it (local time, to the minute)."""
    value = datetime.fromisoformat(due_at) if isinstance(due_at, str) else due_at
    return _when(value, "zh" if language.startswith("zh") else "en")


def outcome_text(promise: Promise, language: str) -> str:
    lang = "zh" if language.startswith("zh") else "en"
    template = OUTCOMES[lang].get(promise.outcome, OUTCOMES[lang]["done"])
    return template.format(
        order=promise.order or NO_ORDER[lang],
        due=_when(promise.due_at, lang),
        closed=_when(promise.closed_at, lang)[:10],
        amount=promise.amount,
        kind=KINDS[lang].get(promise.kind, promise.kind),
    )


def report_text(promises: list[Promise], language: str) -> str:
    lang = "zh" if language.startswith("zh") else "en"
    lines = [INTRO[lang], *(f"- {outcome_text(p, lang)}" for p in promises)]
    return "\n".join(lines)


def record_line(promise: Promise, language: str) -> str:
    """A promise as the memory block shows it (a shop record, never a memory)."""
    lang = "zh" if language.startswith("zh") else "en"
    line = RECORD[lang].format(
        kind=KINDS[lang].get(promise.kind, promise.kind),
        order=promise.order or NO_ORDER[lang],
        status=STATUS_WORDS[lang].get(promise.status, promise.status),
        due=_when(promise.due_at, lang),
    )
    return line if promise.due_at else line.replace(*NO_DUE[lang])  # "due to be set" read as a date to come
