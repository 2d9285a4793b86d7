"""A conversation's recap for the customer's file: what they wanted, what was done, how it ended, what is open,
built from the transcript and never copied from it. See docs/offline-model.md ("Conversation recap").
"""

from __future__ import annotations

import re

from . import reported, speech, splitting, tokens
from .conversation import Conversation
from .nlu import Intent

DEFAULT_CAP = 80
_LINE = re.compile(r"^\s*(customer|agent)\s*[:：]\s*(.*)$", re.I)
_ORDER = re.compile(r"(?i)ORD[-_ ]?\d{4}[-_ ]?\d{4,6}")
_AMOUNT = re.compile(r"[¥$￥€£]\s?\d[\d,]*(?:\.\d+)?|\d[\d,]*(?:\.\d+)?\s?(?:元|USD|CNY|RMB|EUR|GBP)(?![A-Za-z])")
# What was done, to the end of its sentence: a full stop before a space or the end, not one of "$129.00" or
# of an abbreviation ("17 St. John's Road").
_DONE = re.compile(rf"(?:Done:\s*|已完成：)(.+?)(?:。|{speech.NOT_ABBREVIATED}\.(?=\s|$)|\n|$)")
_PROPOSED = re.compile(
    r"Shall I ([^?\n]+)\?|需要我([^？?\n]+)吗[？?]|"
    r"You also asked me to ([^:\n]+): shall I|您还要求：([^。\n]+)。需要继续"
)
# What a proposal says beside the change itself: "(for new orders; orders already placed keep theirs)".
_ASIDE = re.compile(r"\s*[（(][^）)]*[）)]")
# The agent listing what it remembers of earlier chats, and a change that no longer waits.
_LISTING = re.compile(r"\s*(?:Here is what I have noted|我记得这些信息)")
_DROPPED = re.compile(r"cancelled that|dropped that|has lapsed|dropped for this one|已取消|已失效|已被这项新请求取代")
# The agent saying it found no such order (another customer's, or none): not the customer's to recall.
_NOT_FOUND = re.compile(
    r"没有找到订单|找不到订单|(?i:couldn'?t\s+find\s+(?:an?\s+)?order|no\s+order\s+(?:number\s+)?ORD|not\s+found)"
)
WANTS = {
    Intent.REFUND: ("退款", "a refund"),
    Intent.TRACK: ("物流", "a delivery"),
    Intent.STATUS: ("订单状态", "an order's status"),
    Intent.LIST_ORDERS: ("订单列表", "their orders"),
    Intent.SET_NOTIFICATION: ("通知设置", "notifications"),
    Intent.SET_CHANNEL: ("联系方式", "the contact channel"),
    Intent.SET_ADDRESS: ("收货地址", "the shipping address"),
    Intent.POLICY: ("店铺政策", "shop policy"),
    Intent.ASK_FACT: ("记录的信息", "what we have on record"),
    Intent.RECALL: ("记录的信息", "what we have on record"),
    Intent.HUMAN: ("人工客服", "a person"),
}
OUTCOMES = {
    "resolved": ("已解决", "resolved"),
    "escalated": ("已转人工", "handed to our staff"),
    # A change still waits when the chat ends; it can only lapse afterwards, so the recap never says "waiting".
    "confirming": ("有改动未确认（未改动）", "a change was not confirmed (nothing changed)"),
    "open": ("未结束", "still open"),
}


def _settings(conv: Conversation) -> tuple[str, int]:
    lang = re.search(r"(?im)^\s*Language\s*:\s*(zh|en)\b", conv.system)
    cap = re.search(r"(?i)at most (\d+) tokens", conv.system)
    return (lang.group(1) if lang else ""), (int(cap.group(1)) if cap else DEFAULT_CAP)


def _lines(text: str) -> tuple[str, list[tuple[str, str]]]:
    ended = re.search(r"(?im)^\s*Ended\s*:\s*(\w+)", text)
    said: list[tuple[str, str]] = []
    for line in text.splitlines():
        if m := _LINE.match(line):
            said.append((m.group(1).lower(), m.group(2).strip()))
        elif said and line.strip():  # a message of several lines goes on
            said[-1] = (said[-1][0], f"{said[-1][1]} {line.strip()}")
    return (ended.group(1).lower() if ended else ""), said


def _wants(said: list[tuple[str, str]], lang: str) -> list[str]:
    found: list[str] = []
    for speaker, text in said:
        if speaker != "customer":
            continue
        for request in splitting.requests(reported.without_reported(text)):  # what someone else asked is not theirs
            words = WANTS.get(request.understood.intent)
            if words and words[lang == "en"] not in found:
                found.append(words[lang == "en"])
    return found


# A sentence ends at a full stop before a space or the end (never one of "$129.00"), or a line.
_SENTENCE_END = re.compile(rf"(?<=[。！？!?；;])|{speech.NOT_ABBREVIATED}(?<=\.)(?=\s)|\n")


def _orders(said: list[tuple[str, str]]) -> list[str]:
    """Each order spoken of, with the first amount said of it, an agent's line mostly. An amount belongs to the
    order named before it on the line, up to the next number (each order of a list has its own); one said
    before any number ("a refund of ¥199.00 for order …") to the first. An order with none stays without."""
    found: dict[str, str] = {}
    missing: set[str] = set()
    # Read sentence by sentence: "Shall I request a refund of $320.00 for order …0870? … whether you also want me to
    # request a refund of $129.00 for order …0931" once gave 0870 the $129.00 said before 0931.
    sentences = [
        (speaker, sentence) for speaker, text in said for sentence in _SENTENCE_END.split(text) if sentence.strip()
    ]
    for speaker, text in sentences:
        shops_words = speaker == "agent" and not _LISTING.match(text)  # an amount the customer gave is not the shop's
        matches = list(_ORDER.finditer(text))
        for i, m in enumerate(matches):
            number = re.sub(r"(?i)ORD[-_ ]?(\d{4})[-_ ]?(\d+)", r"ORD-\1-\2", m.group())
            end = matches[i + 1].start() if i + 1 < len(matches) else len(text)
            before = list(_AMOUNT.finditer(text, 0, m.start())) if i == 0 else []
            amount = (_AMOUNT.search(text, m.end(), end) or (before[-1] if before else None)) if shops_words else None
            if number not in found or (not found[number] and amount):
                found[number] = amount.group().strip() if amount else ""
            if speaker == "agent" and _NOT_FOUND.search(text):
                missing.add(number)
    # an order the shop did not find ("没有找到订单…", another customer's or none) is no order of theirs to recall
    return [f"{number} {amount}".strip() for number, amount in found.items() if number not in missing]


def _done_and_open(said: list[tuple[str, str]]) -> tuple[list[str], list[str], str]:
    """What was done, what was proposed and then not done (declined, lapsed or replaced), and the change still
    proposed when the transcript ends."""
    done: list[str] = []
    dropped: list[str] = []
    open_item = ""
    for speaker, text in said:
        if speaker != "agent" or _LISTING.match(text):  # what memory said of earlier chats was not done here
            continue
        if _DROPPED.search(text) and open_item:  # declined, lapsed or replaced: it waits no longer
            dropped.append(open_item)
            open_item = ""
        for m in _DONE.finditer(text):
            done.append(m.group(1).strip().rstrip("。."))
            open_item = ""
        proposed = _PROPOSED.search(text)
        if proposed:
            open_item = _ASIDE.sub("", next(group for group in proposed.groups() if group)).strip()
    made = {_the_change(d) for d in done}  # "Done: …muted. Not done: set … to muted" reads as a contradiction
    not_done = [d for d in dict.fromkeys(dropped) if d != open_item and _the_change(d) not in made]
    return list(dict.fromkeys(done)), not_done, open_item


# The words that only say a change was proposed or made ("set your … to", "are now", "已设置为").
_CHANGE_FRAME = re.compile(r"(?i)\b(?:set|your|are|is|now|to|the|from|on|we|will|you|will)\b|[您的已将为了设置成改]")


def _the_change(said: str) -> frozenset[str]:
    """What a change proposed or made is of and to, without the words saying which of the two it was."""
    return frozenset(re.findall(r"[A-Za-z0-9]{2,}|[\u4e00-\u9fff]", _CHANGE_FRAME.sub(" ", said.lower())))


# The recap's words per language: the request, its orders, and the labelled parts that follow it.
WORDS = {
    "zh": {
        "asked": "咨询{}",
        "none": "一般问题",
        "and": "、",
        "orders": "（{}）",
        "order_and": "，",
        "done": "已办：",
        "done_and": "；",
        "dropped": "未办理（未改动）：",
        "outcome": "结果：",
        "open": "对话结束时未确认（未改动）：",
        "end": "。",
        "join": "。",
    },
    "en": {
        "asked": "Asked about {}",
        "none": "general questions",
        "and": ", ",
        "orders": " ({})",
        "order_and": ", ",
        "done": "Done: ",
        "done_and": "; ",
        "dropped": "Not done (nothing changed): ",
        "outcome": "Outcome: ",
        "open": "Not confirmed when the chat ended (nothing changed): ",
        "end": ".",
        "join": ". ",
    },
}


def _compose(
    lang: str, wants: list[str], orders: list[str], done: list[str], dropped: list[str], outcome: str, open_item: str
) -> str:
    w = WORDS[lang]
    first = w["asked"].format(w["and"].join(wants) or w["none"])
    parts = [first + (w["orders"].format(w["order_and"].join(orders)) if orders else "")]
    labelled = [
        ("done", w["done_and"].join(done)),
        ("dropped", w["done_and"].join(dropped)),
        ("outcome", outcome),
        ("open", open_item),
    ]
    parts += [w[label] + text for label, text in labelled if text]
    return w["join"].join(parts) + w["end"]


def recap(conv: Conversation) -> str:
    """One or two sentences within the cap the request names, in its language."""
    lang, cap = _settings(conv)
    ended, said = _lines(conv.latest_user_text)
    if not lang:
        customer = " ".join(text for speaker, text in said if speaker == "customer")
        lang = speech.detect_language(customer or conv.latest_user_text)
    wants, orders = _wants(said, lang), _orders(said)
    done, dropped, open_item = _done_and_open(said)
    outcome = OUTCOMES.get(ended, ("未结束", "still open"))[lang == "en"] if ended else ""
    if ended != "confirming":
        open_item = ""  # answered, or dropped: nothing waits
    elif open_item:
        outcome = ""  # the change not confirmed is named by itself
    if ended == "resolved" and dropped and not done:
        outcome = ""  # every change asked for was dropped: "resolved" would read as handled; "not done" says it
    # Shorter and shorter until it fits: what was done and not done is the recap's point, so fewer orders and
    # requests go first, then the outcome, then what was not done, and only then what was done.
    shorter = [(keep, keep, outcome, len(dropped), len(done)) for keep in (6, 4, 3, 2, 1)]
    shorter += [(1, 0, outcome, len(dropped), len(done)), (1, 0, "", len(dropped), len(done))]
    shorter += [(1, 0, "", n, len(done)) for n in range(len(dropped) - 1, -1, -1)]
    shorter += [(1, 0, "", 0, n) for n in range(len(done) - 1, 0, -1)]
    for wanted, ordered, said_outcome, not_done, made in shorter:
        text = _compose(
            lang, wants[:wanted], orders[:ordered], done[:made], dropped[:not_done], said_outcome, open_item
        )
        if tokens.count(text) <= cap:
            return text
    while tokens.count(text) > cap and len(text) > 1:  # one very long request or order list
        text = text[: int(len(text) * 0.9)].rstrip() + "…"
    return text
