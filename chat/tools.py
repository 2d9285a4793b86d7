"""The tools the agent may use: a JSON schema for the model and a plain function underneath, each acting for the
conversation's customer only. Bad arguments and refusals come back as ``{"error": ...}`` results for the model
to explain; tools that change something only propose, and the change happens when the customer's next message
confirms it, whatever the model says. See README.md ("The demo shop").
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Collection
from dataclasses import dataclass
from datetime import timedelta
from typing import Any
from uuid import UUID

import jsonschema
from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import BooleanField, ExpressionWrapper, F, Q, prefetch_related_objects

from agentsite import clock, jsonschemas
from agentsite.redaction import redact_json
from chat import actions, commitments, shop
from chat.answers import (
    CUSTOMERS_WORDS,
    asks_for_an_exchange,
    asks_for_part,
    asks_for_some_items,
    asks_for_the_whole,
    asks_on_a_condition,
    asks_to_change,
    currencies_named,
    refuses_the_kind,
    says_not_to_make,
)
from chat.conversations import is_uuid
from chat.knowledge import search_policies
from chat.models import Order, OrderItem, PendingAction
from chat.tool_results import JSONObject
from memory.keys import normalise
from memory.longterm import withdraw_requests
from memory.models import ConversationMessage
from memory.recall import confidence_tag, recall
from memory.session import SessionStore
from memory.states import AgentState, IllegalTransition
from memory.working import Role

logger = logging.getLogger(__name__)

ORDER_NUMBER = {"type": "string", "pattern": "^[Oo][Rr][Dd]-[0-9]{4}-[0-9]{4}$", "description": "e.g. ORD-2025-0816"}


@dataclass(frozen=True)
class ToolContext:
    """Who the tool acts for, and where."""

    customer_id: int
    conversation_id: UUID | str
    language: str = "zh"
    store: SessionStore | None = None
    queue_changes: bool = False  # a change was proposed earlier in this message: the next ones wait their turn
    said: str = ""  # the customer's message this turn: a change it says not to make is never proposed


@dataclass(frozen=True)
class Tool:
    name: str
    description: str
    parameters: JSONObject  # the arguments' JSON schema
    run: Callable[..., JSONObject]
    changes_something: bool = False

    def schema(self) -> JSONObject:
        return {
            "type": "function",
            "function": {"name": self.name, "description": self.description, "parameters": self.parameters},
        }


def _object(properties: JSONObject, required: list[str]) -> JSONObject:
    return {"type": "object", "properties": properties, "required": required, "additionalProperties": False}


def _lookup_order(ctx: ToolContext, order_number: str) -> JSONObject:
    return shop.describe_order(shop.find_order(ctx.customer_id, order_number))


def _list_my_orders(ctx: ToolContext, status: str | None = None, item: str | None = None) -> JSONObject:
    return {"orders": shop.list_orders(ctx.customer_id, status, item)}


def _track_shipment(ctx: ToolContext, order_number: str) -> JSONObject:
    return shop.describe_shipment(shop.find_order(ctx.customer_id, order_number))


def _search_policies(ctx: ToolContext, query: str) -> JSONObject:
    found = search_policies(query, language="zh-hans" if ctx.language == "zh" else "en")
    return {"articles": [{"id": a.id, "title": a.title, "snippet": a.snippet} for a in found]}


def _recall_memory(ctx: ToolContext, query: str) -> JSONObject:
    memories = recall(ctx.customer_id, query)
    return {
        "memories": [
            {"content": m.content, "key": m.key, "value": m.value, "tag": confidence_tag(m, ctx.language)}
            for m in memories
        ]
    }


def _escalate(ctx: ToolContext, reason: str) -> JSONObject:
    if ctx.store is not None:
        ctx.store.transition(ctx.conversation_id, AgentState.ESCALATED, f"escalate_to_human: {reason[:200]}")
    return {"status": "escalated", "summary": actions.handed_over(ctx.language, settings.COMMITMENT_CALLBACK_HOURS)}


def _expedite(ctx: ToolContext, order_number: str) -> JSONObject:
    """Chase an order not shipped yet: a promise with a due time, made at once (nothing of the customer's
    changes, so nothing to confirm)."""
    result = shop.request_expedite(ctx.customer_id, order_number, ctx.conversation_id)
    due = commitments.due_words(result["due_at"], ctx.language)
    kind = "request_expedite_again" if result["already_asked"] else "request_expedite"
    return {**result, "summary": actions.done(kind, {"order_number": result["order_number"], "due": due}, ctx.language)}


# Changes: what to check when proposing, the arguments to run it with and the values that describe it
# (``chat.actions`` words them), and what to do once confirmed.
def _propose_refund(
    ctx: ToolContext, order_number: str, reason: str, amount: float | None = None
) -> tuple[JSONObject, JSONObject]:
    try:
        order = shop.check_refundable(ctx.customer_id, order_number, amount)
    except shop.ShopError as refused:  # "all ¥1,790 of it" on a $249 order: the currency, not the number, is wrong
        if refused.code in ("partial_refund", "refund_over_total"):
            _paid_in_it(ctx, **{k: str(refused.values[k]) for k in ("order_number", "amount", "currency")})
        raise
    _paid_in_it(ctx, order.number, str(order.total), order.currency)  # "refund ¥89 on the grinder" paid $89
    prefetch_related_objects([order], "items")  # read twice below: for the part asked and for the proposal
    if asks_for_an_exchange(ctx.said):  # "a replacement pole rather than money": no refund at all
        raise shop.ShopError("exchange_asked", order_number=order.number)
    if amount is None and asks_for_some_of(ctx.said, order) and not asks_for_the_whole(ctx.said):
        # "I mean refund 50 of it first", read by the model as a refund: never the whole on a message asking part
        raise shop.ShopError(
            "partial_refund", order_number=order.number, amount=str(order.total), currency=order.currency
        )
    if amount is None and _part_asked_here(ctx, order.number) and not asks_for_the_whole(ctx.said):
        # "can I get $50 back?" refused, then "ok the refund you mentioned - go ahead": part never becomes the whole
        raise shop.ShopError(
            "full_after_part", order_number=order.number, amount=str(order.total), currency=order.currency
        )
    args = {"order_number": order.number, "reason": reason}
    values: JSONObject = {"order_number": order.number, "amount": str(order.total), "currency": order.currency}
    values["items"] = [i.name for i in order.items.all()]  # the proposal names what is refunded, not only a number
    if delivered := shop.outside_return_window(order):  # still a request, but the customer hears it is late
        values |= {"delivered": delivered, "window_days": shop.RETURN_WINDOW_DAYS}
    return args, values


def _paid_in_it(ctx: ToolContext, order_number: str, amount: str, currency: str) -> None:
    """Refuse (``other_currency``) when the customer's message names money in another currency than the order's:
    never the order's money read in its place."""
    if currencies_named(ctx.said) - {currency}:
        raise shop.ShopError("other_currency", order_number=order_number, amount=amount, currency=currency)


def asks_for_some_of(text: str, order: Order) -> bool:
    """Whether ``text`` asks for part of ``order``'s money: an amount under its total, or fewer of its items
    than it holds ("one of the three water bottles")."""
    items = [(item.name, item.quantity) for item in order.items.all()]
    if asks_for_part(text, order.total):
        return True
    if not asks_for_some_items(text, items):
        return False
    # read as a part: unless what it names is another thing the customer bought ("refund the desk lamp and the
    # coffee grinder"), queried only then
    bought = OrderItem.objects.filter(order__customer_id=order.customer_id).values_list("name", flat=True)
    return asks_for_some_items(text, items, list(bought))


def asks_for_some_of_the_order(text: str, customer_id: int, order_number: str) -> bool:
    """``asks_for_some_of`` the customer's order by its number (none for an order that is not theirs)."""
    try:
        return asks_for_some_of(text, shop.find_order(customer_id, order_number))
    except shop.ShopError:
        return asks_for_part(text, "")


def _part_asked_here(ctx: ToolContext, order_number: str) -> bool:
    """Whether part of the order's money was asked for, and refused, earlier in this conversation: by the shop
    (a tool result), or as the answer to its full refund proposed (``PART_ASKED``)."""
    return (
        ConversationMessage.objects.filter(conversation_id=ctx.conversation_id, role=Role.TOOL_RESULT)
        .filter(
            Q(content__contains='"partial_refund"')
            | Q(content__contains='"other_currency"')
            | Q(content__contains='"exchange_asked"')
        )
        .filter(content__contains=order_number)
        .exists()
    ) or PendingAction.objects.filter(
        conversation_id=ctx.conversation_id,
        tool="request_refund",
        arguments__order_number=order_number,
        result__contains={PART_ASKED: True},
    ).exists()


# Marks a full refund proposal dropped because the answer to it asked for part of the money (``drop_for_part``).
PART_ASKED = "part_asked"


def drop_for_part(ctx: ToolContext) -> PendingAction | None:
    """Drop the waiting full refund whose answer asked for part of its money ("make it half"), marked so that the
    full refund is proposed again only when the whole is asked for."""
    action = cancel_pending(ctx)
    if action is not None:
        PendingAction.objects.filter(pk=action.pk).update(result={PART_ASKED: True})
    return action


def _propose_preference(ctx: ToolContext, preference: str) -> tuple[JSONObject, JSONObject]:
    return {"preference": preference}, {"preference": preference}  # the schema's enum: already normal


def _propose_channel(ctx: ToolContext, channel: str) -> tuple[JSONObject, JSONObject]:
    shop.check_reachable(ctx.customer_id, channel)
    return {"channel": channel}, {"channel": channel}


def _propose_address(ctx: ToolContext, address: str) -> tuple[JSONObject, JSONObject]:
    address = shop.deliverable(address)
    return {"address": address}, {"address": address}


def _propose_order_address(ctx: ToolContext, order_number: str, address: str) -> tuple[JSONObject, JSONObject]:
    order = shop.check_address_changeable(ctx.customer_id, order_number)  # a parcel gone first: no address helps
    address = shop.deliverable(address)
    values = {"order_number": order.number, "address": address}
    return values, values


PROPOSE: dict[str, Callable[..., tuple[JSONObject, JSONObject]]] = {
    "request_refund": _propose_refund,
    "update_notification_preference": _propose_preference,
    "update_contact_channel": _propose_channel,
    "update_shipping_address": _propose_address,
    "update_order_address": _propose_order_address,
}
EXECUTE: dict[str, Callable[..., JSONObject]] = {
    "request_refund": lambda ctx, order_number, reason: shop.request_refund(
        ctx.customer_id, order_number, reason, ctx.conversation_id
    ),
    "update_notification_preference": lambda ctx, preference: shop.set_notification_preference(
        ctx.customer_id, preference, ctx.conversation_id
    ),
    "update_contact_channel": lambda ctx, channel: shop.set_contact_channel(
        ctx.customer_id, channel, ctx.conversation_id
    ),
    "update_shipping_address": lambda ctx, address: shop.set_shipping_address(
        ctx.customer_id, address, ctx.conversation_id
    ),
    "update_order_address": lambda ctx, order_number, address: shop.set_order_address(
        ctx.customer_id, order_number, address, ctx.conversation_id
    ),
}


# A change the customer's message says not to make ("退款唔使喇，只改地址就得"), asked for by the model all the same.
NOT_WANTED = {
    "zh": "您在这条消息里说了不需要这类改动，所以没有为您提出，没有任何改动",
    "en": "you said in this message that you don't want this kind of change, so it was not proposed; nothing was "
    "changed",
}


# A change the customer said no to in this conversation, its value only said again: not proposed again unasked.
DECLINED_HERE = {
    "zh": "您在这次对话里已经拒绝过这项改动，所以没有再次提出，没有任何改动；如果改了主意，请直接说要改",
    "en": "you said no to this change earlier in this chat, so it was not proposed again and nothing was changed; "
    "if you've changed your mind, just ask me to make it",
}


def _declined_here(ctx: ToolContext, tool: str, arguments: JSONObject) -> bool:
    """Whether the customer said no to this change, with these arguments, earlier in this conversation."""
    return PendingAction.objects.filter(
        conversation_id=ctx.conversation_id, tool=tool, status=PendingAction.Status.CANCELLED, arguments=arguments
    ).exists()


# A change asked on a condition: the agent cannot wait for it, so it proposes nothing and says so.
ON_A_CONDITION = {
    "zh": "我没办法让改动等某个条件成立后再生效：改动只会在您确认后立即生效，所以没有为您提出；"
    "如果现在就要改，请直接告诉我",
    "en": "I can't make a change wait for a condition: a change is made as soon as you confirm it, so nothing was "
    "proposed; if you want it now, just tell me",
}


def _not_proposed(ctx: ToolContext, why: dict[str, str], code: str) -> JSONObject:
    """A change the customer's message rules out, asked for by the model all the same: refused, saying why."""
    return {"error": why.get(ctx.language, why["en"]), "error_code": code}


def _order_named(arguments: JSONObject) -> tuple[str, str]:
    """The order a change is of, and what it holds (to tell whether a refusal names it); ("", "") for none."""
    order = str(arguments.get("order_number") or "")
    return order, " ".join(
        OrderItem.objects.filter(order__number=order).values_list("name", flat=True)
    ) if order else ""


def _proposer(tool: str) -> Callable[..., JSONObject]:
    def run(ctx: ToolContext, **arguments: Any) -> JSONObject:
        if ctx.said and refuses_the_kind(ctx.said, tool) and says_not_to_make(ctx.said, tool, *_order_named(arguments)):
            return _not_proposed(ctx, NOT_WANTED, "not_wanted")
        if ctx.said and asks_on_a_condition(ctx.said):  # "mute them only if my headphones have shipped"
            return _not_proposed(ctx, ON_A_CONDITION, "on_a_condition")
        checked, values = PROPOSE[tool](ctx, **arguments)
        if tool in CHANGED_KEY and ctx.said and not asks_to_change(ctx.said) and _declined_here(ctx, tool, checked):
            # "no" to the address, then "just so you know, I'm still living at X": said, not asked again
            return _not_proposed(ctx, DECLINED_HERE, "declined_here")
        return (queue_change if ctx.queue_changes else propose_change)(ctx, tool, checked, values)

    return run


# Changes that move money: confirmed only by a word that confirms on its own ("确认", "yes"), never a casual "ok".
MOVES_MONEY = frozenset({"request_refund"})
# Every change is made only on a word that confirms on its own ("确认", "yes"), never on "ok fine", "好的" or "嗯":
# each proposal asks for that word, and a casual answer may only acknowledge what was said.
NEEDS_A_CLEAR_YES = frozenset(PROPOSE)

# The shop-owned key (``memory.keys.SHOP_OWNED``) each change tool sets, and the argument holding its value.
CHANGED_KEY = {
    "update_notification_preference": ("notification_preference", "preference"),
    "update_contact_channel": ("contact_channel", "channel"),
    "update_shipping_address": ("shipping_address", "address"),
}


def propose_change(ctx: ToolContext, tool: str, arguments: JSONObject, values: JSONObject) -> JSONObject:
    """Store the change as the conversation's one pending action and ask for confirmation.

    The result names the change (``action`` and its ``values``) and words it in the customer's language
    (``summary``, which the pending action keeps). For a shop-owned key it also names the request (key,
    value, pending action): consolidation stores what the customer said about the key as that request
    (``memory.consolidation``).
    """
    with transaction.atomic():
        waiting = PendingAction.objects.filter(conversation_id=ctx.conversation_id, status=PendingAction.Status.PENDING)
        replaced = [str(pk) for pk in waiting.values_list("pk", flat=True)]
        waiting.update(status=PendingAction.Status.CANCELLED, decided_at=clock.now())
        action, values = _store_change(ctx, tool, arguments, values, PendingAction.Status.PENDING)
    _withdraw(ctx, replaced)  # the customer asked for another value instead
    _wait_for_answer(ctx, tool)
    return _proposal(action, values, "pending_confirmation")


def queue_change(ctx: ToolContext, tool: str, arguments: JSONObject, values: JSONObject) -> JSONObject:
    """Keep a change asked for after another in the same message: it is proposed once that one is answered."""
    action, values = _store_change(ctx, tool, arguments, values, PendingAction.Status.QUEUED)
    return _proposal(action, values, "queued")


def _store_change(
    ctx: ToolContext, tool: str, arguments: JSONObject, values: JSONObject, status: str
) -> tuple[PendingAction, JSONObject]:
    arguments, values = _redacted(arguments), _redacted(values)
    action = PendingAction.objects.create(
        conversation_id=ctx.conversation_id,
        customer_id=ctx.customer_id,
        tool=tool,
        arguments=arguments,
        summary=actions.proposed(tool, values, ctx.language),
        shown={k: v for k, v in values.items() if k not in arguments},
        status=status,
        created_at=clock.now(),
    )
    return action, values


def propose_next(ctx: ToolContext) -> JSONObject | None:
    """Propose the change that waited for the previous one's answer (``None`` if none waits).

    Checked again now (an order may have changed meanwhile): a refusal drops it and comes back as the
    tool result. A queued change older than the confirmation window lapses instead.
    """
    with transaction.atomic():
        queued = PendingAction.objects.select_for_update().filter(
            conversation_id=ctx.conversation_id, customer_id=ctx.customer_id, status=PendingAction.Status.QUEUED
        )
        queued.exclude(_fresh()).update(status=PendingAction.Status.LAPSED, decided_at=clock.now())
        made = PendingAction.objects.filter(conversation_id=ctx.conversation_id, status=PendingAction.Status.DONE)
        action = None
        for candidate in queued.filter(_fresh()).order_by("created_at", "pk"):
            if any(_same_change(candidate, d) for d in made if d.decided_at and d.decided_at >= candidate.created_at):
                # asked again and made meanwhile ("其它都唔要，淨係静音", then "确认"): nothing left to ask
                candidate.status, candidate.decided_at = PendingAction.Status.CANCELLED, clock.now()
                candidate.save(update_fields=["status", "decided_at"])
                continue
            action = candidate
            break
        if action is None:
            return None
        try:
            checked, values = PROPOSE[action.tool](ctx, **action.arguments)
        except shop.ShopError as exc:
            action.status, action.decided_at = PendingAction.Status.CANCELLED, clock.now()
            action.result = _refusal(exc, ctx.language)
            action.save(update_fields=["status", "decided_at", "result"])
            return {"action": action.tool, "values": action.arguments, **action.result}
        PendingAction.objects.filter(conversation_id=ctx.conversation_id, status=PendingAction.Status.PENDING).update(
            status=PendingAction.Status.CANCELLED, decided_at=clock.now()
        )
        action.arguments, action.summary = _redacted(checked), actions.proposed(action.tool, values, ctx.language)
        action.status, action.created_at = PendingAction.Status.PENDING, clock.now()
        action.save(update_fields=["arguments", "status", "created_at", "summary"])
    _wait_for_answer(ctx, action.tool)
    return _proposal(action, _redacted(values), "pending_confirmation")


def _redacted(data: JSONObject) -> JSONObject:
    """The model wrote the arguments from what the customer typed; they become shop records once confirmed."""
    redacted: JSONObject = json.loads(redact_json(json.dumps(data)))
    return redacted


def _wait_for_answer(ctx: ToolContext, tool: str) -> None:
    if ctx.store is not None:
        try:
            ctx.store.transition(ctx.conversation_id, AgentState.CONFIRMING, f"{tool} proposed", progress=True)
        except IllegalTransition:
            logger.warning("conversation %s: cannot move to confirming", ctx.conversation_id)


def _proposal(action: PendingAction, values: JSONObject, status: str) -> JSONObject:
    result = {"status": status, "action": action.tool, "values": values, "summary": action.summary}
    if action.tool in CHANGED_KEY:
        key, argument = CHANGED_KEY[action.tool]
        value = normalise(key, action.arguments[argument])
        result["request"] = {"key": key, "value": value, "pending_action": str(action.pk)}
    return result


TOOLS: dict[str, Tool] = {
    tool.name: tool
    for tool in [
        Tool(
            "lookup_order",
            "Look up one of the customer's orders by its number: status, items, total, shipment and refunds "
            "(how a refund stands is answered from these, never by requesting another).",
            _object({"order_number": ORDER_NUMBER}, ["order_number"]),
            _lookup_order,
        ),
        Tool(
            "list_my_orders",
            "List the customer's recent orders, optionally only those in one status or holding an item named so.",
            _object(
                {
                    "status": {
                        "type": "string",
                        "enum": ["processing", "shipped", "delivered", "cancelled", "refunded"],
                    },
                    "item": {"type": "string", "maxLength": 80},
                },
                [],
            ),
            _list_my_orders,
        ),
        Tool(
            "track_shipment",
            "Where the parcel of one of the customer's orders is: carrier, tracking events, ETA.",
            _object({"order_number": ORDER_NUMBER}, ["order_number"]),
            _track_shipment,
        ),
        Tool(
            "request_refund",
            "Propose refunding one of the customer's orders in full (customer confirms). Pass an amount only if the "
            "customer named one: a partial amount is refused.",
            _object(
                {
                    "order_number": ORDER_NUMBER,
                    "reason": {"type": "string", "maxLength": 300},
                    "amount": {"type": "number", "exclusiveMinimum": 0, "maximum": 1_000_000},
                },
                ["order_number", "reason"],
            ),
            _proposer("request_refund"),
            True,
        ),
        Tool(
            "update_notification_preference",
            "Propose muting or turning on notifications (customer confirms).",
            _object({"preference": {"type": "string", "enum": ["mute", "on"]}}, ["preference"]),
            _proposer("update_notification_preference"),
            True,
        ),
        Tool(
            "update_contact_channel",
            "Propose how the shop contacts the customer (customer confirms).",
            _object({"channel": {"type": "string", "enum": ["email", "phone", "sms", "wechat"]}}, ["channel"]),
            _proposer("update_contact_channel"),
            True,
        ),
        Tool(
            "update_shipping_address",
            "Propose a new default shipping address for future orders (customer confirms); orders already placed "
            "keep theirs.",
            _object({"address": {"type": "string", "minLength": 1, "maxLength": 300}}, ["address"]),
            _proposer("update_shipping_address"),
            True,
        ),
        Tool(
            "update_order_address",
            "Propose delivering ONE order, not yet shipped, to another address (customer confirms); the default "
            "shipping address does not change.",
            _object(
                {"order_number": ORDER_NUMBER, "address": {"type": "string", "minLength": 1, "maxLength": 300}},
                ["order_number", "address"],
            ),
            _proposer("update_order_address"),
            True,
        ),
        Tool(
            "search_policies",
            "Search the shop's policies (refunds, returns, shipping times, notifications).",
            _object({"query": {"type": "string", "minLength": 1, "maxLength": 500}}, ["query"]),
            _search_policies,
        ),
        Tool(
            "recall_memory",
            "Search what we remember about this customer from earlier conversations.",
            _object({"query": {"type": "string", "minLength": 1, "maxLength": 500}}, ["query"]),
            _recall_memory,
        ),
        Tool(
            "request_expedite",
            "Ask the warehouse to hurry one of the customer's orders that has not shipped yet (the customer wants "
            "it chased); the shop promises an answer by a due time.",
            _object({"order_number": ORDER_NUMBER}, ["order_number"]),
            _expedite,
        ),
        Tool(
            "escalate_to_human",
            "Hand the conversation to a member of staff.",
            _object({"reason": {"type": "string", "maxLength": 500}}, ["reason"]),
            _escalate,
        ),
    ]
}


def schemas(names: list[str] | None = None) -> list[JSONObject]:
    """The tools' schemas for the model (all, or the named ones)."""
    return [tool.schema() for name, tool in TOOLS.items() if names is None or name in names]


def run_tool(ctx: ToolContext, name: str, arguments: JSONObject) -> JSONObject:
    """Run one tool call for the conversation's customer; any refusal becomes ``{"error": ...}``."""
    tool = TOOLS.get(name)
    if tool is None:
        return {"error": f"there is no tool called {name!r}"}
    try:
        jsonschemas.validate(arguments, tool.parameters)
    except jsonschema.ValidationError as exc:
        return {"error": f"invalid arguments for {name}: {exc.message}"}
    try:
        return tool.run(ctx, **arguments)
    except shop.ShopError as exc:
        return _refusal(exc, ctx.language)
    except Exception:
        logger.exception("tool %s failed in conversation %s", name, ctx.conversation_id)
        return {"error": f"{name} failed; please try again later"}


def _fresh() -> Q:
    """Pending actions still confirmable: younger than AGENT_CONFIRM_MINUTES, not interrupted too often."""
    cutoff = clock.now() - timedelta(minutes=settings.AGENT_CONFIRM_MINUTES)
    return Q(created_at__gte=cutoff, interruptions__lte=settings.AGENT_CONFIRM_INTERRUPTIONS)


def waiting_action(
    conversation_id: UUID | str, *, confirming: bool
) -> tuple[PendingAction | None, PendingAction | None]:
    """The conversation's confirmable pending action, and the one that lapsed just now (if any).

    A pending action is confirmable only while the conversation waits for it (``confirming``: a proposal
    moves it there, a reminder back there) and it is fresh (``_fresh``); a stale one lapses here:
    nothing changes, and the customer is told once. Outside ``confirming`` nothing is read (no round
    trip on most turns), and nothing can be confirmed.
    """
    if not confirming:
        return None, None
    action = (
        PendingAction.objects.filter(conversation_id=conversation_id, status=PendingAction.Status.PENDING)
        .annotate(fresh=ExpressionWrapper(_fresh(), output_field=BooleanField()))
        .first()
    )
    if action is None or action.fresh:
        return action, None
    return None, lapse(action)


def ask_again(action: PendingAction) -> None:
    """The change is asked about on its own: the customer's next answer answers it, whatever came between."""
    PendingAction.objects.filter(pk=action.pk, status=PendingAction.Status.PENDING).update(interruptions=0)


def interrupt_for_a_new_login(customer_id: int) -> int:
    """Every change still waiting for this customer's yes, counted as interrupted beyond what a proposal
    survives: a yes after a new login answers no proposal of an earlier one. The next message lapses it and
    says so (``waiting_action``). Returns how many were waiting."""
    waiting = (PendingAction.Status.PENDING, PendingAction.Status.QUEUED)
    return PendingAction.objects.filter(customer_id=customer_id, status__in=waiting).update(
        interruptions=settings.AGENT_CONFIRM_INTERRUPTIONS + 1
    )


def lapse(action: PendingAction) -> PendingAction | None:
    """Mark a still-pending action as lapsed; ``None`` if someone decided it meanwhile."""
    changed = PendingAction.objects.filter(pk=action.pk, status=PendingAction.Status.PENDING).update(
        status=PendingAction.Status.LAPSED, decided_at=clock.now()
    )
    if changed:  # what was asked for after it lapses with it: the customer has moved on
        PendingAction.objects.filter(conversation_id=action.conversation_id, status=PendingAction.Status.QUEUED).update(
            status=PendingAction.Status.LAPSED, decided_at=clock.now()
        )
    return action if changed else None


def replaced(action: PendingAction) -> bool:
    """Whether a change that waited was cancelled by a proposal of another change (``propose_change``) during
    the turn: a decline ends the turn before any proposal, so nothing else cancels it meanwhile. The same
    change proposed again replaces nothing the customer would miss, nor does another value of the same setting
    or address ("不对 是101号"): the customer gave it instead. Another refund is said."""
    if not PendingAction.objects.filter(pk=action.pk, status=PendingAction.Status.CANCELLED).exists():
        return False
    now = PendingAction.objects.filter(
        conversation_id=action.conversation_id, status=PendingAction.Status.PENDING, tool=action.tool
    )
    same_thing = [a for a in now if a.arguments.get("order_number") == action.arguments.get("order_number")]
    if action.tool not in MOVES_MONEY and same_thing:
        return False
    return not any(_what_it_changes(a.arguments) == _what_it_changes(action.arguments) for a in now)


def _same_change(a: PendingAction, b: PendingAction) -> bool:
    return a.tool == b.tool and _what_it_changes(a.arguments) == _what_it_changes(b.arguments)


def _what_it_changes(arguments: JSONObject) -> JSONObject:
    """A change's arguments without the customer's words about it (a refund's reason): the same refund asked
    for again in other words is the same change."""
    return {k: v for k, v in arguments.items() if k not in CUSTOMERS_WORDS}


def lapses_with_this_message(action: PendingAction) -> bool:
    """Whether another request now, while ``action`` waits, is one interruption too many (``hold``): decided
    before the model answers, which is then told the change no longer waits."""
    return action.interruptions >= settings.AGENT_CONFIRM_INTERRUPTIONS


def asked_again(action: PendingAction) -> bool:
    """Whether the same change as ``action`` waits now, proposed anew during the turn."""
    return any(
        _what_it_changes(a.arguments) == _what_it_changes(action.arguments)
        for a in PendingAction.objects.filter(
            conversation_id=action.conversation_id, status=PendingAction.Status.PENDING, tool=action.tool
        )
    )


def hold(action: PendingAction) -> tuple[PendingAction | None, PendingAction | None]:
    """The customer asked something else while ``action`` waited: count it. Returns ``(still waiting,
    lapsed)``: it waits on (and is named again) until it was interrupted too often, then it lapses."""
    PendingAction.objects.filter(pk=action.pk, status=PendingAction.Status.PENDING).update(
        interruptions=F("interruptions") + 1
    )
    current = PendingAction.objects.filter(pk=action.pk, status=PendingAction.Status.PENDING).first()
    if current is None:  # replaced by a new proposal, or decided, during the turn
        return None, None
    if current.interruptions > settings.AGENT_CONFIRM_INTERRUPTIONS:
        return None, lapse(current)
    return current, None


def confirm_pending(ctx: ToolContext) -> JSONObject | None:
    """Carry out the conversation's pending change, once; ``None`` if nothing is pending.

    Returns the shop's result with the tool's name (``tool``) and the pending action's id (``action``)."""
    with transaction.atomic():
        action = (
            PendingAction.objects.select_for_update()
            .filter(
                conversation_id=ctx.conversation_id, customer_id=ctx.customer_id, status=PendingAction.Status.PENDING
            )
            .filter(_fresh())  # a stale confirmation changes nothing, whoever sends it
            .first()
        )
        if action is None:
            return None
        try:
            with transaction.atomic():
                result = EXECUTE[action.tool](ctx, **action.arguments)
        except shop.ShopError as exc:
            result = _refusal(exc, ctx.language)
        except IntegrityError:
            result = _refusal(shop.ShopError("already_done"), ctx.language)
        else:  # said to the customer in their language, whatever the shop's own record says
            values = {**action.arguments, **{k: result[k] for k in ("amount", "currency") if k in result}}
            result = {**result, "summary": actions.done(action.tool, values, ctx.language)}
            if "experience" in result:  # remembered as the customer was told it, in their language
                day = f"{clock.now():%Y-%m-%d}"
                result["experience"] = actions.experience(action.tool, {**values, "day": day}, ctx.language)
        action.status = PendingAction.Status.DONE
        action.result = result
        action.decided_at = clock.now()
        action.save(update_fields=["status", "result", "decided_at"])
    return {"tool": action.tool, "action": str(action.pk), **result}


def _refusal(exc: shop.ShopError, language: str) -> JSONObject:
    """A ``ShopError`` as a tool result: the reason in the customer's language, its code, what to remember."""
    return {
        "error": exc.text(language),
        "error_code": exc.code,
        **({"experience": experience} if (experience := exc.experience(language)) else {}),
    }


def cancel_queued(ctx: ToolContext) -> int:
    """Drop the changes asked for after the waiting one (the customer declined them all)."""
    queued = PendingAction.objects.filter(
        conversation_id=ctx.conversation_id, customer_id=ctx.customer_id, status=PendingAction.Status.QUEUED
    )
    ids = [str(pk) for pk in queued.values_list("pk", flat=True)]
    dropped = queued.update(status=PendingAction.Status.CANCELLED, decided_at=clock.now())
    _withdraw(ctx, ids)
    return dropped


def queued_changes(ctx: ToolContext) -> list[PendingAction]:
    """The changes asked for after the waiting one, in the order they will be proposed."""
    return list(
        PendingAction.objects.filter(
            conversation_id=ctx.conversation_id, customer_id=ctx.customer_id, status=PendingAction.Status.QUEUED
        ).order_by("created_at", "pk")
    )


def cancel_queued_of(ctx: ToolContext, said_not_to: Callable[[PendingAction], bool]) -> int:
    """Drop the changes asked for after the waiting one that the customer said not to make ("…but dont mute the
    notifications after all", "forget the backpack"): ``said_not_to(change)`` tells which."""
    queued = PendingAction.objects.filter(
        conversation_id=ctx.conversation_id, customer_id=ctx.customer_id, status=PendingAction.Status.QUEUED
    )
    ids = [str(a.pk) for a in queued if said_not_to(a)]
    dropped = queued.filter(pk__in=ids).update(status=PendingAction.Status.CANCELLED, decided_at=clock.now())
    _withdraw(ctx, ids)
    return dropped


def cancel_pending(ctx: ToolContext) -> PendingAction | None:
    """Drop the conversation's pending change (the customer said no)."""
    with transaction.atomic():
        action = (
            PendingAction.objects.select_for_update()
            .filter(
                conversation_id=ctx.conversation_id, customer_id=ctx.customer_id, status=PendingAction.Status.PENDING
            )
            .first()
        )
        if action is not None:
            action.status = PendingAction.Status.CANCELLED
            action.decided_at = clock.now()
            action.save(update_fields=["status", "decided_at"])
    if action is not None:
        _withdraw(ctx, [str(action.pk)])
    return action


def withdrawn_changes(action_ids: Collection[str]) -> set[str]:
    """The proposals among ``action_ids`` the customer withdrew (read by memory: ``memory.shop_proposals``).

    A proposal is withdrawn when the customer said no to it or asked for another value instead: it was
    cancelled without a refusal of the shop, and the same change was not proposed again in the
    conversation and left standing (a change re-proposed, confirmed or waiting is still wanted); or it lapsed
    and another value of it was proposed after it.
    """
    ids = [pk for pk in action_ids if is_uuid(pk)]
    found = set()
    for action in PendingAction.objects.filter(pk__in=ids, status=PendingAction.Status.CANCELLED, result={}):
        same = PendingAction.objects.filter(
            conversation_id=action.conversation_id, tool=action.tool, arguments=action.arguments
        )
        if not same.exclude(status=PendingAction.Status.CANCELLED, result={}).exists():
            found.add(str(action.pk))
    for action in PendingAction.objects.filter(pk__in=ids, status=PendingAction.Status.LAPSED):
        if _corrected_later(action):
            found.add(str(action.pk))
    return found


def _corrected_later(action: PendingAction) -> bool:
    """Whether another value of the same change was proposed after ``action`` in its conversation: "yes - oh wait,
    make it 11 Downing Street, not 10" lapses the first while the second is proposed, and the first is no longer
    what the customer asks for."""
    later = PendingAction.objects.filter(
        conversation_id=action.conversation_id, tool=action.tool, created_at__gt=action.created_at
    ).exclude(pk=action.pk)
    order = action.arguments.get("order_number")
    return any(
        a.arguments.get("order_number") == order and _what_it_changes(a.arguments) != _what_it_changes(action.arguments)
        for a in later
    )


def _withdraw(ctx: ToolContext, action_ids: list[str]) -> None:
    """Withdraw what memory already holds as requested for these cancelled proposals, once committed."""
    if withdrawn := withdrawn_changes(action_ids):
        withdraw_requests(ctx.customer_id, sorted(withdrawn), actor="customer")
