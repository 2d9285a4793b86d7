"""Extractive summaries that never drop an identifier: text cut to its highest-scoring lines in their order, JSON
reduced to its key fields, and every order number, tracking number, date, amount, phone, email and capitalised
name of the input still in the summary. See docs/offline-model.md.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from typing import Any

from . import cards, dates, slots, speech, tokens
from .conversation import Conversation

SHORT_INPUT_TOKENS = 80
MAX_SUMMARY_TOKENS = 350

_ISO_DATETIME = re.compile(r"\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+\-]\d{2}:?\d{2})?)?")
_AMOUNT = re.compile(
    r"[¥$￥€£]\s?\d[\d,]*(?:\.\d+)?|\d[\d,]*(?:\.\d+)?\s?(?:元|块钱|块|美元|USD|CNY|RMB|EUR)(?![A-Za-z])"
)
_TRACKING = re.compile(r"(?<![A-Za-z0-9])[A-Z]{1,4}\d{8,}(?![0-9])|(?<![A-Za-z0-9])1Z[0-9A-Z]{10,}")
_TIME = re.compile(r"(?<![\d:])\d{1,2}:\d{2}(?::\d{2})?(?![\d:])")
_NAME_SEQ = re.compile(r"(?<![A-Za-z])[A-Z][a-z]+(?:\s+[A-Z][a-z]+){1,3}(?![A-Za-z])")
_CAP_WORD = re.compile(r"(?<![A-Za-z'])[A-Z][A-Za-z'\-]+(?![A-Za-z])")
_PERSON_VERB = re.compile(
    r"\s+(?:said|says|called|asked|wrote|replied|wants|wanted|needs|needed|here|from|is\s+(?:my|the|our)|"
    r"will\s+(?:call|pick|collect)|approved|confirmed|signed)\b"
)
_NOT_NAMES = {
    "I",
    "The",
    "A",
    "An",
    "And",
    "But",
    "Or",
    "If",
    "It",
    "Its",
    "This",
    "That",
    "These",
    "Those",
    "We",
    "You",
    "Your",
    "Our",
    "He",
    "She",
    "They",
    "My",
    "Me",
    "Hi",
    "Hello",
    "Dear",
    "Thanks",
    "Thank",
    "Please",
    "Yes",
    "No",
    "Ok",
    "Okay",
    "Customer",
    "Agent",
    "User",
    "Assistant",
    "Order",
    "Orders",
    "Status",
    "When",
    "Where",
    "What",
    "Which",
    "Who",
    "Why",
    "How",
    "Is",
    "Are",
    "Was",
    "Were",
    "Do",
    "Does",
    "Did",
    "Can",
    "Could",
    "Will",
    "Would",
    "Should",
    "Have",
    "Has",
    "Had",
    "Not",
    "So",
    "Then",
    "Also",
    "Sure",
    "Key",
    "Summary",
    "In",
    "On",
    "At",
    "For",
    "To",
    "From",
    "With",
    "By",
    "Of",
    "As",
    "After",
    "Before",
    "Today",
    "Yesterday",
    "Tomorrow",
    "Sorry",
    "Great",
}


def must_keep(text: str) -> list[str]:
    """The identifiers a summary of `text` must carry, as they are written in it."""
    found: list[str] = []

    def add(value: str) -> None:
        value = value.strip()
        if value and value not in found:
            found.append(value)

    for m in re.finditer(r"(?<![A-Za-z0-9])ORD[-_ ]?\d{4}[-_ ]?\d{4,6}(?![0-9])", text, re.I):
        add(m.group())
    for m in _TRACKING.finditer(text):
        add(m.group())
    for m in _ISO_DATETIME.finditer(text):
        add(m.group())
    for d in dates.find_dates(text):
        add(text[d.start : d.end])
    for m in _AMOUNT.finditer(text):
        add(m.group())
    for written, _ in slots.phone_spans(text):
        add(written)
    for m in re.finditer(r"[A-Za-z0-9._%+\-]+@[A-Za-z0-9\-]+(?:\.[A-Za-z0-9\-]+)*\.[A-Za-z]{2,}", text):
        add(m.group().rstrip("."))
    for m in _NAME_SEQ.finditer(text):
        words = m.group().split()
        while words and words[0] in _NOT_NAMES:
            words.pop(0)
        if len(words) >= 2:
            add(" ".join(words))
        elif words and not _sentence_initial(text, m.start()):
            add(words[0])
    for m in _CAP_WORD.finditer(text):
        word = m.group()
        if word in _NOT_NAMES or any(word in f for f in found):
            continue
        # At a sentence start a capital says nothing, unless a person's verb follows ("Alice said").
        if not _sentence_initial(text, m.start()) or _PERSON_VERB.match(text, m.end()):
            add(word)
    # A value inside a longer kept value ("2025-03-01" in "2025-03-01T10:00:00Z") needs no entry.
    return [v for v in found if not any(v != other and v in other for other in found)]


def _sentence_initial(text: str, start: int) -> bool:
    before = text[:start].rstrip(" \t\"'(“")
    return (
        not before
        or before[-1] in ".!?。！？\n:："
        or re.search(r"(?i)(?:customer|agent|user|assistant)\s*[:：]\s*$", text[:start]) is not None
    )


_SENTENCE_SPLIT = re.compile(r"(?<=[。！？!?])|(?<=[.;；])\s+")
LONG_LINE_CHARS = 300


def _units(text: str) -> list[str]:
    """Lines (a transcript keeps its speaker prefixes), each long line split into sentences."""
    units: list[str] = []
    for line in text.splitlines():
        if len(line) > LONG_LINE_CHARS or "\n" not in text:
            units.extend(u.strip() for u in _SENTENCE_SPLIT.split(line) if u and u.strip())
        elif line.strip():
            units.append(line.strip())
    return units


_STOP = frozenset(
    re.findall(
        r"\S+",
        "the a an and or to of in on at for is are was were be been it this that with as by i you we my your "
        "please thanks hello hi 的 了 是 我 你 您 吗 呢 吧 啊 和 在 有 就 也 都 请 好",
    )
)


def _terms(text: str) -> list[str]:
    words = [w.lower() for w in re.findall(r"[A-Za-z]{3,}", text)]
    han = speech.HAN.findall(text)
    bigrams = ["".join(p) for p in zip(han, han[1:], strict=False)]
    return [w for w in words + bigrams if w not in _STOP]


def _shorten(unit: str, limit: int = 160) -> str:
    unit = re.sub(r"\s+", " ", unit)
    return unit if len(unit) <= limit else unit[: limit - 1].rstrip() + "…"


def summarise_text(text: str, cap: int | None = None) -> str:
    """Pick the lines or sentences that carry the most, within a budget (``cap`` if the request names one),
    in their order."""
    total = tokens.count(text)
    if total <= SHORT_INPUT_TOKENS:
        return re.sub(r"[ \t]+", " ", text).strip()
    units = _units(text)
    keep = must_keep(text)
    frequency = Counter(_terms(text))
    scored = []
    for i, unit in enumerate(units):
        score = 3.0 * sum(1 for k in keep if k in unit)
        terms = set(_terms(unit))
        score += sum(frequency[t] for t in terms) / (1 + len(terms)) / 2
        if i == 0 or i == len(units) - 1:
            score += 1
        scored.append((score, i))
    budget = min(MAX_SUMMARY_TOKENS, max(40, total // 4), cap or MAX_SUMMARY_TOKENS)
    chosen: list[int] = []
    used = 0
    for _score, i in sorted(scored, key=lambda s: (-s[0], s[1])):
        cost = tokens.count(_shorten(units[i]))
        if used + cost > budget and chosen:
            continue
        chosen.append(i)
        used += cost
    lines = [_shorten(units[i]) for i in sorted(chosen)]
    picked = " ".join(lines) if "\n" not in text else "\n".join(lines)
    summary = _with_missing(picked, keep, text)
    if cap and tokens.count(summary) > cap:  # a cap asked for is kept: the values not picked go first
        summary = picked
    while cap and tokens.count(summary) > cap and len(summary) > 1:
        summary = summary[: int(len(summary) * 0.9)].rstrip(" ;；,，") + "…"
    return summary


def _with_missing(summary: str, keep: list[str], source: str) -> str:
    missing = [k for k in keep if k not in summary]
    if not missing:
        return summary
    label = "关键信息：" if speech.detect_language(source) == "zh" else "Key details: "
    return f"{summary}\n{label}{'; '.join(missing)}"


_IMPORTANT_KEY = re.compile(
    r"(?i)(?:^|_)(?:id|number|no|order|tracking|status|state|date|time|at|eta|total|amount|price|cost|fee|"
    r"refund|currency|name|title|email|phone|carrier|city|address|quantity|qty|sku|code|error|summary|"
    r"reason|location|count|description)(?:$|_)|^(?:placed_at|created_at|updated_at|delivered_at)$"
)


def _scalar(value: Any) -> str:
    if isinstance(value, float) and value.is_integer():
        return str(value)
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


_IDENTIFIER_KEY = re.compile(
    r"(?i)(?:^|_)(?:id|number|no|order|tracking|date|time|at|eta|total|amount|price|cost|fee|refund)(?:$|_)"
)


_SAID_ONCE = {"currency", "country", "carrier", "type", "unit", "object"}


def _compact(obj: Any, seen: set[tuple[str, str]], depth: int = 0) -> str:
    """One line for a JSON value: important scalar fields as k=v, lists counted.

    A unit-like field repeated with the same value (currency=CNY on every order) is said once.
    """
    if isinstance(obj, dict):
        parts = []
        for key, value in obj.items():
            if isinstance(value, list):
                inner = _compact(value, seen, depth + 1)
                parts.append(f"{key}[{len(value)}]" + (f": {inner}" if inner else ""))
            elif isinstance(value, dict):
                inner = _compact(value, seen, depth + 1)
                if inner:
                    parts.append(f"{key}: {inner}")
            elif value is None or value == "":
                continue
            elif _IMPORTANT_KEY.search(str(key)) or must_keep(_scalar(value)):
                text = _scalar(value)
                if len(text) > 60 and not must_keep(text):
                    text = text[:57] + "…"
                if str(key).lower() in _SAID_ONCE:
                    if (str(key), text) in seen:
                        continue
                    seen.add((str(key), text))
                parts.append(f"{key}={text}")
        return "(" + ", ".join(parts) + ")" if depth and parts else ", ".join(parts)
    if isinstance(obj, list):
        table = _table(obj)
        if table is not None:
            return table
        return "; ".join(filter(None, (_compact(item, seen, depth + 1) for item in obj)))
    text = _scalar(obj)
    return text if (must_keep(text) or len(text) <= 40) else ""


def _table(items: list[Any]) -> str | None:
    """Like records (the same scalar fields, nothing nested) as their field names once, then rows of values."""
    if len(items) < 2 or not all(isinstance(i, dict) and i for i in items):
        return None
    names = list(items[0])
    if any(list(i) != names or any(isinstance(v, (dict, list)) for v in i.values()) for i in items):
        return None
    kept = [n for n in names if _IMPORTANT_KEY.search(str(n)) or any(must_keep(_scalar(i[n])) for i in items)]
    if not kept:
        return None
    # Free text (an event's description) is kept for the last record only: the latest says where things stand.
    prose = {n for n in kept if _FREE_TEXT_KEY.search(str(n)) and not any(must_keep(_scalar(i[n])) for i in items)}
    rows = [
        ", ".join("" if i[n] is None else _scalar(i[n]) for n in kept if n not in prose or last)
        for last, i in ((k == len(items) - 1, i) for k, i in enumerate(items))
    ]
    return f"({', '.join(map(str, kept))}) " + "; ".join(rows)


_FREE_TEXT_KEY = re.compile(r"(?i)description|message|detail|note|text|body|comment|remark")


def _json_identifiers(obj: Any) -> list[str]:
    """Scalar values under identifier/date/amount keys; they must survive like text ones."""
    found: list[str] = []
    if isinstance(obj, dict):
        for key, value in obj.items():
            if isinstance(value, (dict, list)):
                found.extend(_json_identifiers(value))
            elif value is not None and _IDENTIFIER_KEY.search(str(key)):
                found.append(_scalar(value))
    elif isinstance(obj, list):
        for item in obj:
            found.extend(_json_identifiers(item))
    return found


def summarise_json(data: Any, source: str) -> str:
    """Reduce a JSON document to its key fields, keeping every ID, date and amount."""
    if isinstance(data, list):
        head = f"{len(data)} items: "
    elif isinstance(data, dict):
        left_out = [
            str(k) for k, v in data.items() if not _IMPORTANT_KEY.search(str(k)) and not isinstance(v, (dict, list))
        ]
        head = f"Also: {', '.join(left_out[:12])}. " if left_out else ""
    else:
        return _scalar(data)
    card = cards.write(data)
    summary = card if card is not None else head + _compact(data, set()) or "(empty)"
    keep = list(dict.fromkeys(must_keep(source) + _json_identifiers(data)))
    return _with_missing(summary, keep, source)


_CAP = re.compile(r"(?i)at most (\d+) tokens")


def summarise(conv: Conversation) -> str:
    """Summarise the text of the latest user message (within the cap the instructions name, if any)."""
    text = conv.latest_user_text.strip()
    cap = int(m.group(1)) if (m := _CAP.search(conv.system)) else None
    if text[:1] in "{[":
        try:
            data = json.loads(text)
        except ValueError:
            pass
        else:
            return summarise_json(data, text)
    return summarise_text(text, cap)


# ---- reading a summary back: the chat reads the shorthand ``summarise_json`` writes ------------------

_ITEM = re.compile(r"([A-Za-z_]\w*)(=|\[\d+\](?:: )?|: \()")
_NEXT_ITEM = re.compile(r", (?=[A-Za-z_]\w*(?:=|\[\d+\]|: \())")
_WRAPPER = re.compile(r"^\[summary\] ")
_MISSING_LINE = re.compile(r"\n(?:Key details: |关键信息：).*$", re.S)


def _close(text: str, start: int) -> int:
    """The index of the ``)`` that closes the ``(`` at ``start``."""
    depth = 0
    for i in range(start, len(text)):
        depth += {"(": 1, ")": -1}.get(text[i], 0)
        if depth == 0:
            return i
    return len(text)


def _end(text: str, start: int) -> int:
    """Where the value starting at ``start`` ends: the next item at this level, or the end."""
    depth = 0
    for i in range(start, len(text)):
        depth += {"(": 1, ")": -1}.get(text[i], 0)
        if depth == 0 and _NEXT_ITEM.match(text, i):
            return i
    return len(text)


def _read_list(region: str) -> list[Any]:
    if not region.startswith("("):
        return []
    close = _close(region, 0)
    header = region[1:close]
    if "=" not in header:  # a table: field names once, then rows
        names = header.split(", ")
        rows = [r for r in region[close + 1 :].strip().split("; ") if r]
        return [dict(zip(names, r.split(", ", len(names) - 1), strict=False)) for r in rows]
    records, i = [], 0
    while i < len(region) and region[i] == "(":
        close = _close(region, i)
        records.append(_read_dict(region[i + 1 : close]))
        i = close + 3  # past ")" and "; "
    return records


def _read_dict(text: str) -> dict[str, Any]:
    out: dict[str, Any] = {}
    i = 0
    while (m := _ITEM.match(text, i)) is not None:
        key, kind = m.group(1), m.group(2)
        if kind == ": (":
            close = _close(text, m.end() - 1)
            out[key], end = _read_dict(text[m.end() : close]), close + 1
        else:
            end = _end(text, m.end())
            out[key] = text[m.end() : end] if kind == "=" else _read_list(text[m.end() : end])
        i = end + 2  # past ", "
    return out


def read_back(text: str) -> dict[str, Any] | None:
    """The fields of a JSON summary (``summarise_json``'s shorthand) as a dict, or None for another text."""
    body = _WRAPPER.sub("", text.strip())
    card = cards.read(_MISSING_LINE.sub("", body))
    if card is not None:
        return card
    body = re.sub(r"^Also: [^.]*\. ", "", body.split("\n")[0])
    data = _read_dict(body)
    return data or None
