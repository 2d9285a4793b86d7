"""One language a reply: find words of the other language in a reply that are not data (values of the
conversation's shop rows, what the customer typed, a few ``TERMS``). A Chinese reply fails on a run of
three or more other English words, an English reply on any Chinese that is not data. Used by the tests
of the demo's voice and by the evaluation's scenario checks (docs/offline-model.md, docs/eval.md).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

# English a Chinese reply may carry as it is, committed before the corpus ran.
TERMS = frozenset({"CNY", "USD", "EUR", "GBP", "RMB", "AI", "SMS", "email", "WeChat", "JSON", "ID", "OK"})

_HAN_RUN = re.compile(r"[\u3400-\u9fff]+")
_WORD = re.compile(r"[A-Za-z][A-Za-z'’-]*")
_NOT_WORDS = re.compile(
    r"ORD-\d{4}-\d{4}|[\w.+-]+@[\w-]+(?:\.[\w-]+)+|https?://\S+|\b[A-Z]{1,4}\d[\w-]*|\d[\w.,:/-]*", re.IGNORECASE
)
# What separates two English words of one run inside Chinese text: spaces and Latin punctuation, not Han.
_GAP = re.compile(r"[\s,.;:!?'\"()\[\]/&+-]*")


def _without(text: str, data: Iterable[str]) -> str:
    for value in sorted({d.strip() for d in data if d and d.strip()}, key=len, reverse=True):
        text = text.replace(value, " ")
    return _NOT_WORDS.sub(" ", text)


def english_runs(reply: str, data: Iterable[str] = ()) -> list[str]:
    """Runs of three or more English words in a Chinese reply that are neither data nor ``TERMS``."""
    text = _without(reply, data)
    runs: list[list[str]] = [[]]
    position = 0
    for match in _WORD.finditer(text):
        between = text[position : match.start()]
        if runs[-1] and not _GAP.fullmatch(between):
            runs.append([])
        if match.group() not in TERMS:  # a committed term neither counts nor breaks a run
            runs[-1].append(match.group())
        position = match.end()
    return [" ".join(run) for run in runs if len(run) >= 3]


def chinese_runs(reply: str, data: Iterable[str] = ()) -> list[str]:
    """Chinese characters in an English reply that are not data."""
    return _HAN_RUN.findall(_without(reply, data))


def foreign_runs(reply: str, language: str, data: Iterable[str] = ()) -> list[str]:
    """What in ``reply`` is in the other language than ``language`` ("zh" or "en") and is not data."""
    data = list(data)
    return english_runs(reply, data) if language.startswith("zh") else chinese_runs(reply, data)
