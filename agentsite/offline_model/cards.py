"""Cards: the dense lines the offline summariser writes for an order, a shipment and a list of orders, the
offline version of a cheap model's summary of an order's values, which the chat reads back into the same
fields. A card is written only when every value reads back exactly; anything else gets the generic shorthand
of ``summary.summarise_json``. See docs/offline-model.md for the grammar.
"""

from __future__ import annotations

import re
from typing import Any

from .speech import HAN

_ORDER_KEYS = {"order_number", "status", "placed_at", "total", "currency", "items", "shipment"}
_SHIPMENT_KEYS = {"order_number", "status", "carrier", "tracking_number", "eta", "events", "events_total"}
_ROW_KEYS = ("order_number", "status", "placed_at", "total")
_PRICED_ROW_KEYS = (*_ROW_KEYS, "currency")
_EVENT_TIME = re.compile(r"\d{4}-\d{2}-\d{2} \d{2}:\d{2}")
_QUANTITY = re.compile(r" ×\d+$")
_ITEM_SEPARATOR = {True: "、", False: "; "}  # Chinese lists with the enumeration comma: a token less per item
_ROWS_HEADER = "(number status placed total):"
_PRICED_ROWS_HEADER = "(number status placed total currency):"
# Rows that end with what each order holds, after a colon: "ORD-2025-0816 processing 2026-12-05 299.00: 耳机、充电线".
_ITEMS_HEADER = "(number status placed total: items):"
_PRICED_ITEMS_HEADER = "(number status placed total currency: items):"


class _NoCard(Exception):
    """The value cannot be written so that it reads back exactly."""


def _word(value: Any) -> str:
    """A value with no whitespace (an id, a status, a date, an amount)."""
    text = _text(value)
    if re.search(r"\s", text):
        raise _NoCard
    return text


def _text(value: Any, *forbidden: str) -> str:
    if isinstance(value, bool) or not isinstance(value, (str, int, float)):
        raise _NoCard
    text = str(value)
    if not text or "\n" in text or any(f in text for f in forbidden) or text != text.strip():
        raise _NoCard
    return text


def _head(name: str, data: dict[str, Any]) -> str:
    """``order ORD-1 shipped``: the number and the status; a status without a number in brackets."""
    number, status = (data.get(k) for k in ("order_number", "status"))
    words = [_word(v) for v in (number, status) if v is not None]
    if any(c in word for word in words for c in "(),:"):
        raise _NoCard
    if number is None and status is not None:
        return f"{name} ({words[0]})"
    return " ".join([name, *words])


def _shipment(data: dict[str, Any]) -> str:
    if set(data) - _SHIPMENT_KEYS:
        raise _NoCard
    events = data.get("events") or []
    if not isinstance(events, list) or len(events) > 1:
        raise _NoCard
    count = data.get("events_total", len(events))
    if not isinstance(count, int) or isinstance(count, bool) or count < len(events):
        raise _NoCard
    line = f"{_head('shipment', data)}: {_text(data.get('carrier'), ', ')} {_word(data.get('tracking_number'))}"
    if data.get("eta") is not None:
        line += f", eta {_word(data['eta'])}"
    if events:
        event = events[0]
        if not isinstance(event, dict) or set(event) != {"time", "location", "description"}:
            raise _NoCard
        time = _text(event["time"])
        if not _EVENT_TIME.fullmatch(time):
            raise _NoCard
        location = _text(event["location"], ": ", ", ")
        line += f", latest of {_counted(count, 'event')} {time}, {location}: {_text(event['description'])}"
    else:
        line += f", {_counted(count, 'event')}"
    return line


def _order(data: dict[str, Any]) -> str:
    if set(data) - _ORDER_KEYS or data.get("order_number") is None:
        raise _NoCard
    line = _head("order", data)
    if data.get("placed_at") is not None:
        line += f", placed {_word(data['placed_at'])}"
    if data.get("total") is not None:
        line += f", total {_word(data['total'])}"
        if data.get("currency") is not None:
            line += f" {_word(data['currency'])}"
    elif data.get("currency") is not None:
        raise _NoCard
    lines = [line]
    if "items" in data:
        lines.append("items: " + _items(data["items"]))
    if "shipment" in data:
        if not isinstance(data["shipment"], dict):
            raise _NoCard
        lines.append(_shipment(data["shipment"]))
    return "\n".join(lines)


def _item(name: Any, quantity: Any) -> str:
    """``name ×3``; one of an item is its name alone (and ``none`` is what an order without items lists)."""
    name, count = _text(name, *_ITEM_SEPARATOR.values()), int(_word(quantity))
    written = name if count == 1 else f"{name} ×{count}"
    if name == "none" or _QUANTITY.search(name) or count < 1 or any(s in written for s in _ITEM_SEPARATOR.values()):
        raise _NoCard
    return written


def _counted(count: int, thing: str) -> str:
    return f"{count} {thing}" + ("" if count == 1 else "s")


def _orders(data: dict[str, Any]) -> str:
    """One line per order; a currency every order shares is said once, in the header ("3 orders in CNY")."""
    orders = data.get("orders")
    if set(data) != {"orders"} or not isinstance(orders, list):
        raise _NoCard
    if any(not isinstance(order, dict) for order in orders):
        raise _NoCard
    with_items = bool(orders) and all("items" in order for order in orders)
    keys = {tuple(sorted(k for k in order if k != "items" or not with_items)) for order in orders}
    priced = keys == {tuple(sorted(_PRICED_ROW_KEYS))}
    if not priced and keys - {tuple(sorted(_ROW_KEYS))}:
        raise _NoCard
    currencies = {_word(order["currency"]) for order in orders} if priced else set()
    shared = currencies.pop() if len(currencies) == 1 else None
    if shared and any(c in shared for c in "(),:"):  # the header could not be read back
        raise _NoCard
    columns = _ROW_KEYS if shared or not priced else _PRICED_ROW_KEYS
    rows = [" ".join(_word(order[k]) for k in columns) for order in orders]
    if with_items:  # "ORD-2025-0816 processing 2026-12-05 299.00: 无线蓝牙耳机"
        rows = [f"{row}: {_items(order['items'])}" for row, order in zip(rows, orders, strict=True)]
    plain, listed_too = (_ROWS_HEADER, _PRICED_ROWS_HEADER), (_ITEMS_HEADER, _PRICED_ITEMS_HEADER)
    headers = listed_too if with_items else plain
    header = f" in {shared} {headers[0]}" if shared else f" {headers[1] if priced else headers[0]}"
    return "\n".join([_counted(len(rows), "order") + header, *rows])


def _items(items: Any) -> str:
    """What an order holds, as its card writes it ("耳机、充电线 ×2", "Tent; Stakes ×4", "none")."""
    if not isinstance(items, list) or any(not isinstance(i, dict) or set(i) != {"name", "quantity"} for i in items):
        raise _NoCard
    written = [_item(i["name"], i["quantity"]) for i in items]
    return _ITEM_SEPARATOR[all(map(HAN.search, written))].join(written) or "none"


def write(data: Any) -> str | None:
    """The card for ``data`` (a tool result), or None when it is not an order, a shipment or a list of orders
    a card carries exactly."""
    if not isinstance(data, dict):
        return None
    try:
        if "orders" in data:
            return _orders(data)
        if "tracking_number" in data or "carrier" in data:
            return _shipment(data)
        if "order_number" in data:
            return _order(data)
    except (_NoCard, ValueError, KeyError):
        return None
    return None


_WORD = r"[^\s(),:]+"
_HEAD = re.compile(rf"^(order|shipment)(?: \((?P<alone>{_WORD})\)| (?P<number>{_WORD})(?: (?P<status>{_WORD}))?)?")
_SHIPMENT_BODY = re.compile(
    r"^(?P<carrier>.+?) (?P<tracking_number>\S+)(?:, eta (?P<eta>\S+))?(?:, (?P<none>\d+) events?|, latest of "
    r"(?P<count>\d+) events? (?P<time>\d{4}-\d{2}-\d{2} \d{2}:\d{2}), (?P<location>.*?): (?P<description>.*))$"
)
_ORDER_TAIL = re.compile(r"^(?:, placed (?P<placed_at>\S+))?(?:, total (?P<total>\S+)(?: (?P<currency>\S+))?)?$")


def _read_head(line: str) -> tuple[str, dict[str, Any], str] | None:
    m = _HEAD.match(line)
    if m is None:
        return None
    found = {"order_number": m["number"], "status": m["alone"] or m["status"]}
    return m.group(1), {k: v for k, v in found.items() if v is not None}, line[m.end() :]


def _read_shipment(line: str) -> dict[str, Any] | None:
    head = _read_head(line)
    if head is None or head[0] != "shipment" or not head[2].startswith(": "):
        return None
    m = _SHIPMENT_BODY.match(head[2][2:])
    if m is None:
        return None
    data = {**head[1], "carrier": m["carrier"], "tracking_number": m["tracking_number"]}
    if m["eta"] is not None:
        data["eta"] = m["eta"]
    events = [] if m["time"] is None else [{k: m[k] for k in ("time", "location", "description")}]
    data["events"] = events
    count = int(m["count"] or m["none"])
    if count != len(events):
        data["events_total"] = count
    return data


def _read_order(lines: list[str]) -> dict[str, Any] | None:
    head = _read_head(lines[0])
    if head is None or head[0] != "order":
        return None
    tail = _ORDER_TAIL.match(head[2])
    if tail is None:
        return None
    data: dict[str, Any] = {**head[1], **{k: v for k, v in tail.groupdict().items() if v is not None}}
    for line in lines[1:]:
        if line.startswith("items: "):
            data["items"] = _read_items(line[len("items: ") :])
        elif (shipment := _read_shipment(line)) is not None:
            data["shipment"] = shipment
        else:
            return None
    return data


def _read_items(listed: str) -> list[dict[str, Any]]:
    separator = _ITEM_SEPARATOR["; " not in listed]
    return [] if listed == "none" else [_read_item(i) for i in listed.split(separator)]


def _read_item(text: str) -> dict[str, Any]:
    if (m := _QUANTITY.search(text)) is None:
        return {"name": text, "quantity": 1}
    return {"name": text[: m.start()], "quantity": int(m.group()[2:])}


def _read_orders(lines: list[str]) -> dict[str, Any] | None:
    headers = "|".join(map(re.escape, (_ROWS_HEADER, _PRICED_ROWS_HEADER, _ITEMS_HEADER, _PRICED_ITEMS_HEADER)))
    m = re.fullmatch(rf"(\d+) orders?(?: in ({_WORD}))? ({headers})", lines[0])
    if (
        m is None
        or int(m.group(1)) != len(lines) - 1
        or (m.group(2) and m.group(3) not in (_ROWS_HEADER, _ITEMS_HEADER))
    ):
        return None
    columns = _PRICED_ROW_KEYS if m.group(3) in (_PRICED_ROWS_HEADER, _PRICED_ITEMS_HEADER) else _ROW_KEYS
    with_items = m.group(3) in (_ITEMS_HEADER, _PRICED_ITEMS_HEADER)
    shared = {"currency": m.group(2)} if m.group(2) else {}
    orders = []
    for line in lines[1:]:
        values, said, listed = line.partition(": ") if with_items else (line, "", "")
        row = values.split(" ")
        if len(row) != len(columns) or not all(row) or with_items != bool(said):
            return None
        order = dict(zip(columns, row, strict=True)) | shared
        orders.append(order | {"items": _read_items(listed)} if with_items else order)
    return {"orders": orders}


def read(text: str) -> dict[str, Any] | None:
    """The fields of a card ``write`` wrote, or None for any other text."""
    lines = text.strip().split("\n")
    if lines[0].startswith("shipment"):
        return _read_shipment(lines[0]) if len(lines) == 1 else None
    if lines[0].startswith("order "):
        return _read_order(lines)
    return _read_orders(lines)
