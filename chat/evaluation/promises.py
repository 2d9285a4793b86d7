"""The "Promises kept" figure: scratch customers ask for something the shop promises (an order chased, a
refund), the shop acts as staff would or lets the promise go overdue, and the customer's next visit must
report what happened, once. Runs in a transaction rolled back at the end; the cases: docs/eval.md
("Promises kept").
"""

from __future__ import annotations

import re
import time
import uuid
from datetime import timedelta
from decimal import Decimal
from typing import TypedDict
from uuid import UUID

from django.contrib.auth import get_user_model
from django.contrib.auth.models import User

from agentsite import clock
from chat import commitments, conversations, fulfilment
from chat.agent import run_turn
from chat.evaluation.scratch import Progress, quiet, scratch
from chat.models import Commitment, CustomerProfile, Order, OrderItem, Refund
from memory import session as short_term
from memory.session import SessionKeys

# How a customer asks, per language; each case uses the next wording.
ASK = {
    "expedite": {
        "en": [
            "Can you chase order {n}?",
            "Please hurry up {n}, I need it soon",
            "could you push the warehouse on {n}",
        ],
        "zh": ["帮我催一下订单{n}", "{n}能不能加快发货", "麻烦催一催{n}"],
    },
    "refund": {
        "en": ["I want a refund for {n}, it arrived broken", "Please refund order {n}"],
        "zh": ["订单{n}坏了，我要退款", "帮我退款{n}"],
    },
}
CONFIRM = {"en": "yes", "zh": "确认"}
# What the shop does, and the words that say it happened (beside the order number).
OUTCOMES = {
    ("expedite", "shipped"): r"shipped|发货",
    ("expedite", "overdue"): r"\blate\b|超时",
    ("refund", "return_received"): r"received the return|收到.*退货",
    ("refund", "refund_approved"): r"was approved|已于.*批准",
    ("refund", "refund_refused"): r"not approved|未获批准",
}


class Case(TypedDict):
    """One customer's promise: asked for, made or not, and what the next two visits said."""

    lang: str
    kind: str  # expedite or refund
    outcome: str  # what the shop did (OUTCOMES)
    asked: str
    promise_made: bool
    reported: bool  # in the first message of the next conversation
    repeated: bool  # said again on the visit after
    message: str


class Played(TypedDict):
    cases: list[Case]
    seconds: float


class Figure(TypedDict):
    cases: int
    made: int
    reported: int
    repeated: int


class Kept(TypedDict):
    """The figure as eval.json keeps it: the cases, the counts and the time taken."""

    cases: list[Case]
    made: int
    reported: int
    repeated: int
    seconds: float


def _customer(lang: str) -> User:
    user = get_user_model().objects.create_user(username=f"promise-{uuid.uuid4().hex[:10]}")
    CustomerProfile.objects.create(user=user, display_name="P", language="en" if lang == "en" else "zh-hans")
    return user


def _order(user: User, status: str) -> Order:
    number = f"ORD-2030-{uuid.uuid4().int % 10000:04d}"
    while Order.objects.filter(number=number).exists():
        number = f"ORD-2030-{uuid.uuid4().int % 10000:04d}"
    order = Order.objects.create(customer=user, number=number, status=status, placed_at=clock.now(), total="59.00")
    OrderItem.objects.create(order=order, name="Kettle", quantity=1, unit_price=Decimal("59.00"))
    return order


def _act(kind: str, outcome: str, order: Order) -> None:
    """What the shop does after the promise, as staff do it."""
    if outcome == "shipped":
        fulfilment.ship(order, "UPS", f"1Z{uuid.uuid4().hex[:12].upper()}", "staff:eval")
    elif outcome == "overdue":
        commitments.mark_overdue(clock.now() + timedelta(hours=48))
    else:
        refund = Refund.objects.get(order=order, status=Refund.Status.REQUESTED)
        fulfilment.record_return(refund, "staff:eval")
        if outcome != "return_received":
            fulfilment.decide_refund(refund, outcome == "refund_approved", "staff:eval")


def _case(lang: str, kind: str, outcome: str, wording: str) -> Case:
    user = _customer(lang)
    order = _order(user, "processing" if kind == "expedite" else "delivered")
    conversation = short_term.store().start(user.pk).id
    run_turn(user.pk, conversation, wording.format(n=order.number))
    if kind == "refund":
        run_turn(user.pk, conversation, CONFIRM[lang])
    made = Commitment.objects.filter(customer=user, kind=kind).exists()
    if made:
        _act(kind, outcome, order)
    clock.advance(timedelta(days=1))
    first = conversations.start_new(user.pk, conversation)
    said = _agent_lines(user.pk, first)
    second = conversations.start_new(user.pk, first)
    again = _agent_lines(user.pk, second)
    reported = bool(said) and order.number in said[0] and bool(re.search(OUTCOMES[kind, outcome], said[0]))
    short_term.store().redis.delete(*[k for c in (conversation, first, second) for k in SessionKeys.of(c).all()])
    return Case(
        lang=lang,
        kind=kind,
        outcome=outcome,
        asked=wording,
        promise_made=made,
        reported=reported,
        repeated=any(order.number in line for line in again),
        message=said[0] if said else "",
    )


def _agent_lines(customer_id: int, conversation_id: UUID) -> list[str]:
    frame = conversations.history_frame(customer_id, conversation_id)
    return [m["text"] for m in frame["messages"] if m["role"] == "agent"]


def run(progress: Progress = quiet, *, per_outcome: int = 2) -> Played:
    """Play ``per_outcome`` cases of each outcome in each language."""
    plan: list[tuple[str, str, str, str]] = []
    for lang in ("en", "zh"):
        for (kind, outcome), _words in OUTCOMES.items():
            for i in range(per_outcome):
                wordings = ASK[kind][lang]
                plan.append((lang, kind, outcome, wordings[(len(plan) + i) % len(wordings)]))
    started = time.perf_counter()
    cases: list[Case] = []
    with scratch():
        for done, case in enumerate(plan, start=1):
            cases.append(_case(*case))
            progress("promises", done, len(plan))
    return Played(cases=cases, seconds=round(time.perf_counter() - started, 1))


def figure(results: Played) -> Figure:
    """How many promises were made, reported back on the next visit, and said again on the visit after."""
    cases = results["cases"]
    return Figure(
        cases=len(cases),
        made=sum(c["promise_made"] for c in cases),
        reported=sum(c["reported"] for c in cases),
        repeated=sum(c["repeated"] for c in cases),
    )


def markdown(results: Played) -> str:
    """The figure's section of reports/eval.md."""
    f = figure(results)
    share = f"{100 * f['reported'] / f['made']:.0f}%" if f["made"] else "n/a"
    lines = [
        "## Promises kept: what the shop promised, reported back on the next visit",
        "",
        f"{f['cases']} customers asked in chat for an order to be chased or for a refund (English and Chinese); the "
        "shop then shipped the order, recorded the return, approved or refused the refund, or let the promise go "
        "overdue (`chat/evaluation/promises.py`). Promises made: "
        f"{f['made']} of {f['cases']}. Reported back in the first message of the customer's next conversation: "
        f"**{f['reported']} of {f['made']} ({share})**, goal 100%; said again on the visit after: {f['repeated']}. "
        f"In {results['seconds']:,.0f} s.",
        "",
        "| language | promise | what happened | cases | reported | repeated |",
        "|---|---|---|---|---|---|",
    ]
    groups: dict[tuple[str, str, str], list[Case]] = {}
    for case in results["cases"]:
        groups.setdefault((case["lang"], case["kind"], case["outcome"]), []).append(case)
    for (lang, kind, outcome), group in groups.items():
        lines.append(
            f"| {lang} | {kind} | {outcome.replace('_', ' ')} | {len(group)} | "
            f"{sum(c['reported'] for c in group)} | {sum(c['repeated'] for c in group)} |"
        )
    missed = [c for c in results["cases"] if c["promise_made"] and not c["reported"]]
    if missed:
        lines += ["", "Not reported: " + "; ".join(f"{c['asked']} → {c['message'] or '(nothing)'}" for c in missed)]
    unmade = [c["asked"] for c in results["cases"] if not c["promise_made"]]
    if unmade:
        lines += ["", "No promise made for: " + "; ".join(unmade)]
    return "\n".join(lines) + "\n"
