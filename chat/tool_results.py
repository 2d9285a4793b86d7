"""What of a tool's result a later step needs: ``must_keep`` lists, per tool, the values no shortening of the
result may lose (what the agent may quote or act on next), as the raw result writes them. Working memory
shortens long results before the model reads them; the raw result stays in the session's durable copy. See
docs/session.md.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any, TypeAlias

from agentsite import metrics
from memory.working import Entry, WorkingMemory

# A tool's arguments or result: a JSON object, whatever the tool and the model put in it.
JSONObject: TypeAlias = dict[str, Any]

_ORDER_FIELDS = ("order_number", "status", "placed_at", "total")
_SHIPMENT_FIELDS = ("order_number", "carrier", "tracking_number", "status", "eta")
_EVENT_FIELDS = ("time", "location", "description")


def _fields(data: Any, names: tuple[str, ...]) -> list[str]:
    if not isinstance(data, dict):
        return []
    return [str(data[name]) for name in names if data.get(name) not in (None, "")]


def _shipment(data: Any) -> list[str]:
    """The shipment's identity and state, and its latest event (what "where is it now?" needs)."""
    values = _fields(data, _SHIPMENT_FIELDS)
    events = data.get("events") if isinstance(data, dict) else None
    if isinstance(events, list) and events:
        values += _fields(events[-1], _EVENT_FIELDS)
    return values


def _item_names(order: Any) -> list[str]:
    items = order.get("items") if isinstance(order, dict) else None
    return [v for item in (items if isinstance(items, list) else []) for v in _fields(item, ("name",))]


def _order(data: Any) -> list[str]:
    values = _fields(data, (*_ORDER_FIELDS, "currency", "shipping_address")) + _item_names(data)
    refunds = data.get("refunds") if isinstance(data, dict) else None
    for refund in refunds if isinstance(refunds, list) else []:
        values += _fields(refund, ("amount", "status", "requested_at"))
    if isinstance(data, dict) and isinstance(data.get("shipment"), dict):
        values += _shipment(data["shipment"])
    return values


def _orders(data: Any) -> list[str]:
    orders = data.get("orders") if isinstance(data, dict) else None
    return [
        v
        for order in (orders if isinstance(orders, list) else [])
        for v in _fields(order, _ORDER_FIELDS) + _item_names(order)
    ]


def _articles(data: Any) -> list[str]:
    articles = data.get("articles") if isinstance(data, dict) else None
    return [v for a in (articles if isinstance(articles, list) else []) for v in _fields(a, ("id", "title"))]


MUST_KEEP: dict[str, Callable[[Any], list[str]]] = {
    "lookup_order": _order,
    "track_shipment": _shipment,
    "list_my_orders": _orders,
    "search_policies": _articles,
}


def must_keep(tool: str, result: Any) -> list[str]:
    """The values of ``result`` (a tool's JSON result, parsed) that a shortened copy must carry, in order."""
    values = MUST_KEEP.get(tool, lambda data: [])(result)
    if isinstance(result, dict) and result.get("error"):
        values.append(str(result["error"]))
    return list(dict.fromkeys(values))


def kept_share(tool: str, result: Any, shortened: str) -> tuple[int, int]:
    """How many of ``must_keep``'s values ``shortened`` carries, of how many."""
    values = must_keep(tool, result)
    return sum(value in shortened for value in values), len(values)


LONG_TEXT_CHARS = 300  # longer than a policy snippet (240 characters): a whole article, cut to its passage
KEEP_EVENTS = 1  # tracking events the model reads: the latest ones; the rest is counted


def _latest_events(shipment: JSONObject) -> JSONObject:
    events = shipment.get("events")
    if not isinstance(events, list) or len(events) <= KEEP_EVENTS:
        return shipment
    ordered = sorted(
        (e for e in events if isinstance(e, dict)), key=lambda e: str(e.get("time", ""))
    )  # times are ISO-like, so text order is time order
    return {**shipment, "events": ordered[-KEEP_EVENTS:], "events_total": len(events)}


_SENTENCE = re.compile(r"(?<=[。！？!?])|(?<=[.;；])\s+")


def _terms(text: str) -> set[str]:
    han = re.findall(r"[\u4e00-\u9fff]", text)
    return {w.lower() for w in re.findall(r"[A-Za-z]{3,}", text)} | {a + b for a, b in zip(han, han[1:], strict=False)}


def _passage(text: str, query: str, sentences: int = 2) -> str:
    """The ``sentences`` sentences of ``text`` that share most words with ``query``, in their order."""
    parts = [p.strip() for p in _SENTENCE.split(text) if p and p.strip()]
    if len(text) <= LONG_TEXT_CHARS or len(parts) <= sentences:
        return text
    wanted = _terms(query)
    ranked = sorted(range(len(parts)), key=lambda i: (-len(_terms(parts[i]) & wanted), i))[:sentences]
    joiner = "" if re.search(r"[\u4e00-\u9fff]", text) else " "
    return joiner.join(parts[i] for i in sorted(ranked))


def compact(tool: str, arguments: JSONObject, result: Any) -> Any:
    """``result`` as the model reads it: the latest tracking events and their count, a shipment's fields
    that repeat its order's dropped, policy text cut to the passage asked about. Everything ``must_keep``
    names stays; the raw result is kept for audit. A result with nothing to cut is returned as it is (the
    same object)."""
    if not isinstance(result, dict):
        return result
    if tool == "track_shipment":
        return _latest_events(result)
    if tool == "lookup_order" and isinstance(result.get("shipment"), dict):
        shipment = _latest_events(result["shipment"])
        repeated = [k for k in ("order_number", "status") if k in shipment and shipment[k] == result.get(k)]
        if repeated:  # the order's own fields, said again by its shipment
            shipment = {k: v for k, v in shipment.items() if k not in repeated}
        return result if shipment is result["shipment"] else {**result, "shipment": shipment}
    if tool == "search_policies" and isinstance(result.get("articles"), list):
        query = str(arguments.get("query", ""))
        articles = [
            {k: (_passage(v, query) if k in ("body", "snippet") and isinstance(v, str) else v) for k, v in a.items()}
            if isinstance(a, dict)
            else a
            for a in result["articles"]
        ]
        return {**result, "articles": articles}
    return result


def append(
    buffer: WorkingMemory, call_id: str, tool: str, arguments: JSONObject, result: Any, summarise: Callable[[str], str]
) -> tuple[Entry, str]:
    """Put ``result`` into working memory as the model should read it (compacted, then summarised if long,
    with every ``must_keep`` value kept); return the entry and the raw JSON the session keeps for audit."""
    raw = json.dumps(result, ensure_ascii=False, default=str)
    compacted = compact(tool, arguments, result)
    shown = None if compacted is result else json.dumps(compacted, ensure_ascii=False, default=str)
    entry = buffer.append_tool_result(call_id, raw, summarise, shown=shown, keep=must_keep(tool, result))
    if "summary" in entry.metadata:  # a long result: an operator sees summaries refused for lost values
        metrics.count_tool_result_summary(entry.metadata["summary"])
    return entry, raw
