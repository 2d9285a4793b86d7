"""A chunk of a long conversation, digested for its compressed history: a dense summary, the values the customer
stated and their words about each order, read with the chat's own intents and fact finder; nothing in the
chunk is followed. See docs/offline-model.md ("Chunk digest").
"""

from __future__ import annotations

import json
import re

from . import described, facts, recap, replies, slots, speech, tokens
from .conversation import Conversation, result_data

DEFAULT_CAP = 40
NOTE_CHARS = 40
_LINE = re.compile(r"^\s*(customer|agent called|agent|tool result)\s*[:：]\s*(.*)$", re.I)
# Words that only say "an order" or "where is it": what is left of a clause is what the customer said about it.
_ORDER_WORDS = re.compile(
    r"订单号?|单号|这个|那个|(?i:\border(?:\s+number)?\b|\bno\.|\bnumber\b|\bis\s+the\b|\bthe\b|\bmy\b|\bit\b)"
)
_CLAUSE = re.compile(r"[，,；;。.!！？?]")


def _lines(text: str) -> list[tuple[str, str]]:
    said: list[tuple[str, str]] = []
    for line in text.splitlines():
        if m := _LINE.match(line):
            said.append((m.group(1).lower(), m.group(2).strip()))
        elif said and line.strip():  # a tool result keeps its lines (a summary's card is read by line)
            joiner = "\n" if said[-1][0] == "tool result" else " "
            said[-1] = (said[-1][0], f"{said[-1][1]}{joiner}{line.strip()}")
    return said


def _cap(conv: Conversation) -> int:
    found = re.search(r"(?i)at most (\d+) tokens", conv.system)
    return int(found.group(1)) if found else DEFAULT_CAP


def stated(said: list[tuple[str, str]]) -> dict[str, str]:
    """The customer's keyed values (an order number excepted), the latest of each, as the chat reads them."""
    values: dict[str, str] = {}
    context = ""
    for speaker, text in said:
        if speaker == "agent":
            context = facts.key_asked_by(text) or context
        if speaker != "customer":
            continue
        found = facts.stated_in(text, context)
        for fact in found:
            if fact.key and fact.key != "order_number":
                values[fact.key] = fact.value
        keyed = [f.key for f in found if f.key]
        context = keyed[-1] if keyed else context
    return values


def order_notes(said: list[tuple[str, str]]) -> dict[str, str]:
    """Each order the customer named, with their own words about it (what it is, what is wrong), if any."""
    notes: dict[str, str] = {}
    for speaker, text in said:
        if speaker != "customer":
            continue
        for clause in _CLAUSE.split(slots.redact_sensitive(text)):
            numbers = slots.order_numbers(clause)
            if not numbers:
                continue
            words = " ".join(_ORDER_WORDS.sub(" ", recap._ORDER.sub(" ", clause)).split())
            asks = speech.is_question(clause) or speech.is_request(clause)
            note = "" if asks or not described.terms(words) else words[:NOTE_CHARS]
            for number in numbers:
                if note or number not in notes:
                    notes[number] = note if len(numbers) == 1 else ""
    return {number: note for number, note in notes.items() if note}


def _statuses(said: list[tuple[str, str]]) -> dict[str, str]:
    """The latest status a tool result gave each order of the chunk."""
    found: dict[str, str] = {}
    for speaker, text in said:
        if speaker != "tool result":
            continue
        data = result_data(text)
        for item in [data, data.get("shipment"), *(data.get("orders") or [])] if isinstance(data, dict) else []:
            number = item.get("order_number") if isinstance(item, dict) else None
            if isinstance(number, str) and isinstance(item.get("status"), str) and len(found) < 6:
                found[number] = item["status"]
    return found


def summary(said: list[tuple[str, str]], lang: str, cap: int) -> str:
    """What was asked, the orders it touched (with a status a tool gave), what was done: within ``cap``."""
    customer = [(s, t) for s, t in said if s == "customer"]
    wants = recap._wants([("customer", t) for _, t in customer], lang)
    statuses = _statuses(said)
    named = [n for _, t in customer for n in slots.order_numbers(t)] + list(statuses)
    words = replies.STATUS_NAMES[lang]
    orders = [f"{n} {words.get(statuses[n], statuses[n])}" if n in statuses else n for n in dict.fromkeys(named)]
    done, _dropped, _open = recap._done_and_open([("agent", t) for s, t in said if s == "agent"])
    if not wants and not orders and not done:
        return ""  # greetings, thanks and small talk: nothing to keep
    w = recap.WORDS[lang]
    for keep in (6, 4, 3, 2, 1):
        first = w["asked"].format(w["and"].join(wants[:keep]) or w["none"])
        parts = [first + (w["orders"].format(w["order_and"].join(orders[:keep])) if orders else "")]
        if done:
            parts.append(w["done"] + w["done_and"].join(done[: max(1, keep // 2)]))
        text = w["join"].join(parts) + w["end"]
        if tokens.count(text) <= cap:
            return text
    return text


def digest(conv: Conversation) -> str:
    """The chunk's digest as the JSON object the request asks for."""
    said = _lines(conv.latest_user_text)
    customer = " ".join(t for s, t in said if s == "customer")
    lang = speech.detect_language(customer or conv.latest_user_text)
    return json.dumps(
        {"summary": summary(said, lang, _cap(conv)), "stated": stated(said), "orders": order_notes(said)},
        ensure_ascii=False,
    )
