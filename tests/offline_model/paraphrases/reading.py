"""How a wording of the corpus is read, and the accuracy tables docs/offline-model.md publishes.

A wording is read as the family of what the agent would do with it, in a chat with every tool offered and
nothing remembered: the offline model's understanding of the message (``splitting.requests``: one request,
the family of its intent, the subject of a question about the customer), or the change it proposes for
a statement ("I've moved to …"). Confirmations and declines are read by the application
(``chat.tools``), which alone decides them; a prompt injection is the model's flag.

Run as a script to print the tables: ``python -m tests.offline_model.paraphrases.reading``.
"""

from __future__ import annotations

from collections import defaultdict

from agentsite.offline_model import chat, conversation, nlu, splitting
from chat.answers import is_cancellation, is_confirmation

from .corpus import HELD_BACK, LANGUAGES, TUNING, Wording, families, load

CHANGES = {
    "update_contact_channel": "set_channel",
    "update_notification_preference": "set_notification",
    "update_shipping_address": "set_address",
    "update_order_address": "set_address",
}


# The demo shop's tools by name (the model decides on names; their schemas are chat.tools').
TOOLS = [
    {"type": "function", "function": {"name": name, "parameters": {"type": "object", "properties": {}}}}
    for name in (
        "lookup_order",
        "list_my_orders",
        "track_shipment",
        "request_expedite",
        "request_refund",
        "update_notification_preference",
        "update_contact_channel",
        "update_shipping_address",
        "update_order_address",
        "search_policies",
        "recall_memory",
        "escalate_to_human",
    )
]


def reading(text: str) -> tuple[str, str]:
    """The family (and ask_fact subject) the agent reads ``text`` as; "several" for more than one request."""
    found = splitting.requests(text)
    if len(found) != 1:
        return "several", ""
    understood = found[0].understood
    family, subject = understood.intent.value, understood.subject
    if family.startswith("set_"):
        return family, ""
    body = {"messages": [{"role": "user", "content": text}], "tools": TOOLS}
    planned = chat.respond(conversation.from_request(body)).tool_calls
    changes = [CHANGES[c.name] for c in planned if c.name in CHANGES]
    return (changes[0], "") if changes else (family, subject)


def is_read_right(wording: Wording) -> bool:
    """A positive read as its family (and subject); a negative read as anything else."""
    if wording.family == "confirm":
        hit = is_confirmation(wording.text)
    elif wording.family == "deny":
        hit = is_cancellation(wording.text)
    elif wording.family == "injection":
        hit = nlu.classify(wording.text).injection
    else:
        family, subject = reading(wording.text)
        hit = family == wording.family and (not wording.positive or subject == wording.subject)
    return hit == wording.positive


def accuracy(wordings: list[Wording]) -> tuple[int, int]:
    return sum(is_read_right(w) for w in wordings), len(wordings)


def table() -> dict[tuple[str, str, str, bool], tuple[int, int]]:
    """(family, lang, half, positive) → (read right, wordings)."""
    groups: dict[tuple[str, str, str, bool], list[Wording]] = defaultdict(list)
    for w in load():
        groups[w.family, w.lang, w.half, w.positive].append(w)
    return {key: accuracy(ws) for key, ws in groups.items()}


def _percent(right: int, total: int) -> str:
    return f"{100 * right / total:.0f}% ({right}/{total})" if total else "–"


def markdown() -> str:
    """The tables for docs/offline-model.md: positives per half, and negatives, per family and language."""
    figures = table()
    head = "| family | " + " | ".join(f"{lang} tuning | {lang} held back | {lang} negatives" for lang in LANGUAGES)
    lines = [head + " |", "|---" * (1 + 3 * len(LANGUAGES)) + "|"]
    for family in families():
        cells = []
        for lang in LANGUAGES:
            cells.append(_percent(*figures.get((family, lang, TUNING, True), (0, 0))))
            cells.append(_percent(*figures.get((family, lang, HELD_BACK, True), (0, 0))))
            negatives = [figures.get((family, lang, half, False), (0, 0)) for half in (TUNING, HELD_BACK)]
            cells.append(_percent(sum(r for r, _ in negatives), sum(t for _, t in negatives)))
        lines.append(f"| `{family}` | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def failures(half: str = TUNING) -> list[tuple[Wording, tuple[str, str]]]:
    return [(w, reading(w.text)) for w in load() if w.half == half and not is_read_right(w)]


def failures_markdown() -> str:
    """The held-back wordings and the negatives read wrong, per family: where the rules stop
    (reports/paraphrase-failures.md)."""
    lines = ["# Held-back paraphrases and negatives the offline model reads wrong", ""]
    lines += [
        "Written by `python -m tests.offline_model.paraphrases.reading --failures`; see docs/offline-model.md.",
        "",
    ]
    by_family: dict[str, list[str]] = defaultdict(list)
    wrong = [(w, reading(w.text)) for w in load() if (w.half == HELD_BACK or not w.positive) and not is_read_right(w)]
    for w, (family, subject) in wrong:
        expected = "not " + w.family if not w.positive else w.family + (f" ({w.subject})" if w.subject else "")
        got = family + (f" ({subject})" if subject else "")
        if w.family in ("confirm", "deny", "injection"):
            got = "read as " + (w.family if not w.positive else "something else")
        by_family[w.family].append(f"- {w.lang}: {w.text!r} — expected {expected}, read {got}")
    for family in families():
        if by_family[family]:
            lines += [f"## `{family}` ({len(by_family[family])})", "", *by_family[family], ""]
    return "\n".join(lines)


if __name__ == "__main__":
    import sys

    print(failures_markdown() if "--failures" in sys.argv else markdown())
