"""The demo shop's operations, always on behalf of one customer. Reads return plain dicts (what a tool hands the
model); changes write through to long-term memory as ``system_record`` memories in the same transaction, so
long-term memory and the shop's data never disagree. See README.md ("The demo shop").
"""

from __future__ import annotations

import difflib
import logging
import re
from datetime import timedelta
from decimal import Decimal
from typing import Any
from uuid import UUID

from django.conf import settings
from django.db import transaction

from agentsite import clock
from chat import actions, commitments
from chat.models import Commitment, CustomerProfile, Order, OutboxMessage, Refund, TrackingEvent
from chat.tool_results import JSONObject
from memory.embeddings import get_embedder
from memory.keys import InvalidValue, normalise
from memory.longterm import Candidate, customer_lock, store

ORDER_NUMBER = re.compile(r"^ORD-\d{4}-\d{4}$")
REFUNDABLE = {
    Order.Status.PAID,
    Order.Status.PROCESSING,
    Order.Status.SHIPPED,
    Order.Status.IN_TRANSIT,
    Order.Status.DELIVERED,
}

logger = logging.getLogger(__name__)


class ShopError(Exception):
    """A request the shop refuses: why (``code``, with ``values``), said in either language by ``text``.

    ``remembered``: the refusal is worth remembering next time (a refund refused, say). The tool result
    then carries it as an ``experience`` (``experience``), which the conversation's final consolidation
    stores: the reason as the customer was told it, in their language, with the day.
    """

    def __init__(self, code: str, remembered: bool = False, **values: Any) -> None:
        super().__init__(actions.refused(code, values, "en"))
        self.code, self.values, self.remembered = code, values, remembered

    def text(self, language: str) -> str:
        """The reason in ``language``, safe to show the customer (and the model)."""
        return actions.refused(self.code, self.values, language)

    def experience(self, language: str) -> str:
        """What to remember of the refusal, or ""."""
        if not self.remembered:
            return ""
        day = f"{clock.now():%Y-%m-%d}"
        return f"{day}：{self.text(language)}。" if language == "zh" else f"On {day}: {self.text(language)}."


def find_order(customer_id: int, order_number: str) -> Order:
    """The customer's own order; another customer's order is "not found", exactly like a missing one."""
    number = order_number.strip().upper()
    if not ORDER_NUMBER.match(number):
        raise ShopError("not_an_order_number", order_number=order_number[:40])
    order = Order.objects.filter(customer_id=customer_id, number=number).first()
    if order is None:
        raise ShopError("order_not_found", order_number=number)
    return order


def describe_order(order: Order) -> JSONObject:
    data: JSONObject = {
        "order_number": order.number,
        "status": order.status,
        "placed_at": order.placed_at.date().isoformat(),
        "total": str(order.total),
        "currency": order.currency,
        "items": [{"name": i.name, "quantity": i.quantity} for i in order.items.all()],
    }
    if order.shipping_address:  # where this order goes: its own, which a one-order change may have set
        data["shipping_address"] = order.shipping_address
    refunds = [
        {
            "amount": str(r.amount),
            "status": r.status,
            "requested_at": r.requested_at.date().isoformat(),
            **({"decided_at": r.decided_at.date().isoformat()} if r.decided_at else {}),
        }
        for r in order.refunds.order_by("requested_at")
    ]
    if refunds:  # what "how is my refund doing?" is answered from: the shop's rows, never what was said
        data["refunds"] = refunds
    shipment = getattr(order, "shipment", None)
    if shipment is not None:
        data["shipment"] = describe_shipment(order)
    return data


def describe_shipment(order: Order) -> JSONObject:
    """The order's shipment; without a shipment row, the order's status (the truth) and ``tracking: none``.

    A delivered order whose carrier details were never recorded was still shipped: the status says so, and
    whoever words the reply says that no tracking details were recorded.
    """
    shipment = getattr(order, "shipment", None)
    if shipment is None:
        return {"order_number": order.number, "status": order.status, "events": [], "tracking": "none"}
    return {
        "order_number": order.number,
        "carrier": shipment.carrier,
        "tracking_number": shipment.tracking_number,
        "status": shipment.status,
        "eta": shipment.eta.isoformat() if shipment.eta else None,
        "events": [
            {"time": e.time.strftime("%Y-%m-%d %H:%M"), "location": e.location, "description": e.description}
            for e in shipment.events.all()
        ],
    }


def list_orders(customer_id: int, status: str | None = None, item: str | None = None) -> list[JSONObject]:
    # what each holds, read in one query: a customer tells orders apart by what they bought
    orders = Order.objects.filter(customer_id=customer_id).order_by("-placed_at").prefetch_related("items")
    if status:
        orders = orders.filter(status=status)
    words = _item_words(item)
    found: list[Order] = [] if words else list(orders[:20])
    if words:  # an order asked after by what is in it ("the water bottles", "键盘")
        named = orders
        for word in words:
            named = named.filter(items__name__icontains=word)
        named = named.distinct()  # one row per order, however many of its items match
        # a name mistyped ("headphnes", "grindr"): the orders whose items hold a word close to each one
        found = list(named[:20])
        if not found:  # read once for both: a name mistyped, else one in the other language
            held = list(orders[:200])
            found = [o for o in held if _close(words, o) or _shortened(words, o)]
            found = found or _named_in_the_other_language(item or "", held)
    return [
        {
            "order_number": o.number,
            "status": o.status,
            "placed_at": o.placed_at.date().isoformat(),
            "total": str(o.total),
            "currency": o.currency,  # "$45.00", never a bare "45.00" in a list of orders
            "items": [{"name": i.name, "quantity": i.quantity} for i in o.items.all()],
        }
        for o in found[:20]
    ]


def _close(words: list[str], order: Order) -> bool:
    """Whether every English word of ``words`` (four letters or more) is close to a word of the order's items."""
    if not all(word.isascii() and len(word) >= 4 for word in words):
        return False
    names = [w.lower() for i in order.items.all() for w in re.findall(r"[A-Za-z][A-Za-z\-]+", i.name)]
    return all(difflib.get_close_matches(word.lower(), names, n=1, cutoff=0.8) for word in words)


def _shortened(words: list[str], order: Order) -> bool:
    """Whether every Chinese word of ``words`` is an item's name shortened, its characters in the name's order
    ("跑鞋" for 跑步鞋, "保温杯" said "保杯")."""
    if not all(_HAN.match(word) and len(word) >= 2 for word in words):
        return False
    names = [i.name for i in order.items.all()]
    return all(any(re.search(".*?".join(map(re.escape, word)), name) for name in names) for word in words)


_HAN = re.compile(r"[\u4e00-\u9fff]")
# A part or accessory of a thing ("耳机壳", "phone charger"): its embedding sits next to the thing's own, so a
# name in the other language is never taken for it.
_PART_OF_A_THING = re.compile(
    r"(?:壳|套|膜|充电器|充电线|数据线|支架|配件|电池|替换|刷头|滤网|滤芯)|(?i:\b(?:case|cover|charger|cable|strap|stand|"
    r"holder|battery|batteries|parts?|accessor(?:y|ies)|filters?|heads?|refills?|replacements?)\b)"
)


def _named_in_the_other_language(item: str, orders: list[Order]) -> list[Order]:
    """The orders holding the one item whose name, in the other language, means what the customer named ("air
    purifier" for 空气净化器, "背包" for "Hiking backpack"): the closest of the customer's item names by embedding,
    and only when it stands clear of the next (docs/agent.md, "Things named in the other language")."""
    names = sorted({i.name for o in orders for i in o.items.all()})
    if len(names) < 2 or not item.strip() or _PART_OF_A_THING.search(item):
        return []  # one name has nothing to stand clear of; a part is not the thing
    embedder = get_embedder()
    try:
        scores = embedder.embed_passages(names) @ embedder.embed_queries([item])[0]
    except Exception:  # the embedding service down: the name is then found in no order, as before this step
        logger.warning("item names not embedded; %r matched by its words only", item[:40], exc_info=True)
        return []
    ranked = sorted(zip(scores.tolist(), names, strict=True), reverse=True)
    (best, name), (second, _) = ranked[0], ranked[1]
    if (
        bool(_HAN.search(name)) == bool(_HAN.search(item))
        or best < settings.SHOP_ITEM_NAME_FLOOR
        or best - second < settings.SHOP_ITEM_NAME_MARGIN
    ):
        return []
    return [o for o in orders if any(i.name == name for i in o.items.all())]


def _item_words(item: str | None) -> list[str]:
    """The words an item's name must hold: English words singular ("bottles" finds "Water bottle"), Chinese
    as written ("键盘" finds "机械键盘")."""
    words = re.findall(r"[A-Za-z][A-Za-z\-]{2,}|[\u4e00-\u9fff]+", item or "")[:4]
    return [w[:-1] if len(w) > 3 and w.lower().endswith("s") and not w.lower().endswith("ss") else w for w in words]


def _write_through(customer_id: int, key: str, value: str, content: str, conversation_id: UUID | str | None) -> None:
    """Record a confirmed change as a system record, superseding whatever memory held the key."""
    candidate = Candidate(
        type="preference" if key != "shipping_address" else "fact",
        content=content,
        confidence=1.0,
        source="system_record",
        key=key,
        value=normalise(key, value),
        conversation_id=conversation_id,
    )
    customer_lock(customer_id)
    store(customer_id, candidate, get_embedder().embed_passages([candidate.content])[0], actor="shop")


def _profile(customer_id: int) -> CustomerProfile:
    return CustomerProfile.objects.select_for_update().get(user_id=customer_id)


CHANGE_TEXT = {
    "notification_preference": {
        "zh": {"mute": "客户的通知设置为静音（已在系统中确认）", "on": "客户的通知设置为开启（已在系统中确认）"},
        "en": {
            "mute": "The customer's notifications are muted (confirmed in the system)",
            "on": "The customer's notifications are on (confirmed in the system)",
        },
    },
}


CHANNEL_ZH = {"email": "邮件", "phone": "电话", "sms": "短信", "wechat": "微信"}


def _language(profile: CustomerProfile) -> str:
    return "zh" if profile.language.startswith("zh") else "en"


def deliverable(address: str) -> str:
    """The address normalised, or ``ShopError`` if it is too short to deliver to (proposals and changes alike)."""
    try:
        value = normalise("shipping_address", address)
    except InvalidValue:
        value = ""
    if len(value) < 5:
        raise ShopError("address_too_short")
    if _NOT_AN_ADDRESS.search(value):  # "帮我将地址改做上海市…": the request read as the address, whatever model
        raise ShopError("address_has_request")
    if not _deliverable_as_written(value):  # "北京市朝阳区", "5 Main St": no parcel finds its door
        raise ShopError("address_incomplete")
    return value


# A Chinese address names a street or building and a number ("北京市朝阳区" does not); one in Latin script a number
# (a house's, a flat's or a postcode) and a town: after a comma, with a postcode, or as a word after the street.
_STREET_ZH = re.compile(r"[路街道巷弄里村号號栋棟楼樓室座]|胡同|大厦|广场|花园|小区|公寓")
_NUMBER_ZH = re.compile(r"\d|[一二三四五六七八九十百千]+[号號]")
_POSTCODE_LATIN = re.compile(r"\b\d{4,6}(?:-\d{4})?\b|\b[A-Z]{1,2}\d[A-Z\d]?\s?\d[A-Z]{2}\b", re.IGNORECASE)


def _deliverable_as_written(address: str) -> bool:
    if _HAN.search(address):
        return bool(_STREET_ZH.search(address) and _NUMBER_ZH.search(address))
    words = re.findall(r"[\w'-]+", address)  # "1 Main St Austin" names its town without a comma; "5 Main St" none
    return bool(re.search(r"\d", address)) and (
        "," in address or bool(_POSTCODE_LATIN.search(address)) or len(words) >= 4
    )


# Words of a request or of a claim about the change, never of an address: an address holding them was read with
# the sentence around it ("12 Oak Street, Portland OR 97201 and it was already changed").
_NOT_AN_ADDRESS = re.compile(
    r"我|帮忙|麻烦|改成|改为|改做|换成|应该是|应该系|地址是|地址改|谢谢|重复了|下个月|已经|手机|电话|改好|改过|确认过|核实|"
    r"(?i:\bplease\b|\bpls\b|\bthanks?\b|\bchange\s+(?:it|my)\b|\bshould\s+be\b|\bmy\s+(?:new\s+)?address\b|"
    r"\bthat'?s\b|\bi'?m\b|\bliving\b|\bmoved\b|\bphone\b|\bmobile\b|\bnow\b|\bcurrently\b|\balready\b|"
    r"\b(?:changed|updated|confirmed|approved|verified)\b|\b(?:it|this|that)\s+(?:was|is|has|had)\b)"
)


@transaction.atomic
def set_notification_preference(
    customer_id: int, preference: str, conversation_id: UUID | str | None = None
) -> JSONObject:
    value = normalise("notification_preference", preference)
    profile = _profile(customer_id)
    previous = profile.notification_preference
    profile.notification_preference = value
    profile.save(update_fields=["notification_preference"])
    content = CHANGE_TEXT["notification_preference"][_language(profile)][value]
    _write_through(customer_id, "notification_preference", value, content, conversation_id)
    return _done(content, previous, value)


def _done(summary: str, previous: str, value: str) -> JSONObject:
    """A change made, with the value it replaced: "put it back" is answered from it, by any model."""
    return {"status": "done", "summary": summary, "changed": {"from": previous, "to": value}}


# What the shop needs on the account to reach the customer by a channel (WeChat goes through the account itself).
_CHANNEL_NEEDS = {"phone": "phone", "sms": "phone", "email": "email"}


def check_reachable(customer_id: int, channel: str) -> None:
    """``ShopError`` unless the account holds what ``channel`` needs: the shop cannot call or text a customer
    with no phone number on the account, nor email one with no email."""
    _reachable(CustomerProfile.objects.select_related("user").get(user_id=customer_id), channel)


def _reachable(profile: CustomerProfile, channel: str) -> None:
    needs = _CHANNEL_NEEDS.get(channel)
    if needs == "phone" and not profile.phone.strip():
        raise ShopError("no_phone_on_account", channel=channel)
    if needs == "email" and not profile.user.email.strip():
        raise ShopError("no_email_on_account", channel=channel)


@transaction.atomic
def set_contact_channel(customer_id: int, channel: str, conversation_id: UUID | str | None = None) -> JSONObject:
    value = normalise("contact_channel", channel)
    profile = _profile(customer_id)
    _reachable(profile, value)  # the account may have lost the number since the proposal
    previous = profile.contact_channel
    profile.contact_channel = value
    profile.save(update_fields=["contact_channel"])
    content = (
        f"客户希望通过{CHANNEL_ZH[value]}联系（已在系统中确认）"
        if _language(profile) == "zh"
        else f"The customer wants to be contacted by {value} (confirmed in the system)"
    )
    _write_through(customer_id, "contact_channel", value, content, conversation_id)
    if previous != value:
        _announce(profile, "contact_channel", previous, value, [(previous, ""), (value, "")])
    return _done(content, previous, value)


@transaction.atomic
def set_shipping_address(customer_id: int, address: str, conversation_id: UUID | str | None = None) -> JSONObject:
    value = deliverable(address)
    profile = _profile(customer_id)
    previous = profile.default_address
    profile.default_address = value
    profile.save(update_fields=["default_address"])
    content = (
        f"客户的收货地址是{value}（已在系统中确认）"
        if _language(profile) == "zh"
        else f"The customer's shipping address is {value} (confirmed in the system)"
    )
    _write_through(customer_id, "shipping_address", value, content, conversation_id)
    if previous != value:
        letters = [(OutboxMessage.Channel.POST, place) for place in (previous, value) if place]
        _announce(profile, "shipping_address", previous, value, [*letters, (profile.contact_channel, "")])
    return _done(content, previous, value)


# The notice of a changed address or contact channel, in the customer's language.
NOTICE = {
    "zh": (
        "您的账户信息已更改",
        "您账户的{what}已由「{old}」改为「{new}」。如果这不是您本人的操作，请立即联系我们。",
        {"shipping_address": "收货地址", "contact_channel": "联系方式"},
    ),
    "en": (
        "Your account details changed",
        "The {what} on your account changed from '{old}' to '{new}'. If you did not ask for this, contact us now.",
        {"shipping_address": "shipping address", "contact_channel": "contact channel"},
    ),
}


def _announce(profile: CustomerProfile, key: str, old: str, new: str, routes: list[tuple[str, str]]) -> None:
    """Queue the notice of a change on each ``(channel, destination)``; an empty destination is the
    channel's account of the customer (their email address for email)."""
    subject, body, names = NOTICE[_language(profile)]
    text = body.format(what=names[key], old=old or "—", new=new)
    sent = set()
    for channel, destination in routes:
        where = destination or (profile.user.email if channel == "email" else f"the customer's {channel} account")
        if (channel, where) not in sent:
            sent.add((channel, where))
            OutboxMessage.objects.create(
                customer_id=profile.user_id, channel=channel, destination=where or "—", subject=subject, body=text
            )


# The shop's change function for each shop-owned key (``memory.keys.SHOP_OWNED``).
CHANGE = {
    "notification_preference": set_notification_preference,
    "contact_channel": set_contact_channel,
    "shipping_address": set_shipping_address,
}


def apply_staff_change(customer_id: int, key: str, value: str, actor: str) -> None:
    """A staff decision in memory's conflict queue, carried out by the shop (``memory.shop_writes``).

    The shop's refusals become ``ValueError``: ``memory`` cannot know ``ShopError``.
    """
    try:
        CHANGE[key](customer_id, value)
    except (ShopError, CustomerProfile.DoesNotExist, KeyError) as exc:
        raise ValueError(str(exc) or f"no shop change for {key}") from exc


# An order's own shipping address can change until it leaves the warehouse.
ADDRESS_CHANGEABLE = {Order.Status.PENDING, Order.Status.PAID, Order.Status.PROCESSING}


def check_address_changeable(customer_id: int, order_number: str, *, lock: bool = False) -> Order:
    """The customer's order if its own address may still change (``lock``: its row locked till commit)."""
    order = find_order(customer_id, order_number)
    if lock:
        order = Order.objects.select_for_update().get(pk=order.pk)
    if order.status not in ADDRESS_CHANGEABLE:
        raise ShopError("address_fixed", order_number=order.number, status=order.status)
    return order


@transaction.atomic
def set_order_address(
    customer_id: int, order_number: str, address: str, conversation_id: UUID | str | None = None
) -> JSONObject:
    """Change where ONE order goes; the customer's default address stays as it is."""
    value = deliverable(address)
    order = check_address_changeable(customer_id, order_number, lock=True)  # it may have shipped since the proposal
    previous = order.shipping_address
    order.shipping_address = value
    order.save(update_fields=["shipping_address"])
    return _done(f"order {order.number} will be delivered to {value}", previous, value)


def check_refundable(customer_id: int, order_number: str, amount: float | None = None) -> Order:
    """The order, if a refund of it can be requested: of its full total (``amount``, if the customer named
    one, must be that total; a partial refund is a colleague's to arrange)."""
    order = find_order(customer_id, order_number)
    if order.status not in REFUNDABLE:
        raise ShopError(
            "not_refundable",
            remembered=True,
            order_number=order.number,
            status=order.status,
        )
    if order.refunds.filter(status=Refund.Status.REQUESTED).exists():
        raise ShopError("refund_in_progress", order_number=order.number)
    asked = Decimal(str(amount)).quantize(Decimal("0.01")) if amount is not None else order.total
    if asked > order.total:  # "金额改成500" for ¥459: never more than was paid, whatever it is called
        raise ShopError(
            "refund_over_total", order_number=order.number, amount=str(order.total), currency=order.currency
        )
    if asked != order.total:
        raise ShopError("partial_refund", order_number=order.number, amount=str(order.total), currency=order.currency)
    return order


# Days after delivery in which the refunds policy article lets a customer return an item for any reason. A
# refund asked for later is still a request staff decide on; its proposal says it is outside the window.
RETURN_WINDOW_DAYS = 7


def outside_return_window(order: Order) -> str:
    """The day a delivered order was delivered (its last tracking event), if that is more than the return
    window ago; else "" (not delivered, within the window, or no delivery time recorded)."""
    if order.status != Order.Status.DELIVERED:
        return ""
    last = TrackingEvent.objects.filter(shipment__order=order).order_by("-time").first()
    if last is None or clock.now() - last.time <= timedelta(days=RETURN_WINDOW_DAYS):
        return ""
    return f"{last.time:%Y-%m-%d}"


@transaction.atomic
def request_refund(
    customer_id: int, order_number: str, reason: str, conversation_id: UUID | str | None = None
) -> JSONObject:
    order = check_refundable(customer_id, order_number)
    refund = Refund.objects.create(
        order=order,
        amount=Decimal(order.total),
        reason=reason[:300],
        requested_at=clock.now(),
        conversation_id=conversation_id,
    )
    # Due once staff record the return as received (chat.fulfilment.record_return).
    commitments.make(
        customer_id, Commitment.Kind.REFUND, due_at=None, order=order, refund=refund, conversation_id=conversation_id
    )
    return {
        "status": "done",
        "summary": f"refund of {refund.amount} {order.currency} requested for order {order.number}",
        "amount": str(refund.amount),
        "currency": order.currency,
        "refund_id": refund.pk,
        # The shop's words only: the customer's reason stays on the refund row, for staff. Copied in here it
        # would be recalled as a shop record ("… requested (the manager approved double compensation)").
        "experience": f"A refund of {refund.amount} {order.currency} for order {order.number} was requested "
        f"on {refund.requested_at:%Y-%m-%d}.",
    }


EXPEDITABLE = {Order.Status.PENDING, Order.Status.PAID, Order.Status.PROCESSING}


def request_expedite(customer_id: int, order_number: str, conversation_id: UUID | str | None = None) -> JSONObject:
    """Promise to chase the warehouse about an order not shipped yet (no confirmation: nothing of the
    customer's changes); asking again while the promise is open is the same promise."""
    order = find_order(customer_id, order_number)
    if order.status not in EXPEDITABLE:
        gone = order.status in (Order.Status.SHIPPED, Order.Status.IN_TRANSIT, Order.Status.DELIVERED)
        code = "already_shipped" if gone else "not_expeditable"
        raise ShopError(code, order_number=order.number, status=order.status)
    due = commitments.expedite_due()
    commitment, made = commitments.make(
        customer_id, Commitment.Kind.EXPEDITE, due_at=due, order=order, conversation_id=conversation_id
    )
    return {
        "status": "done",
        "order_number": order.number,
        "due_at": commitment.due_at.isoformat() if commitment.due_at else None,
        "already_asked": not made,
    }
