"""Remove card numbers, national ID numbers and passwords from text before it is kept anywhere.

Applied to what the customer types before it is logged, consolidated into long-term memory or
sent to the model in any later turn. Card numbers must pass the Luhn check and Chinese resident ID
numbers their checksum, so order numbers, phone numbers and amounts are left alone.
"""

from __future__ import annotations

import json
import logging
import re
from typing import Any

CARD_MARK = "[card number removed]"
ID_MARK = "[ID number removed]"
PASSWORD_MARK = "[password removed]"

# Not after or before a letter either: tracking numbers such as SF1234567890123 are not cards.
_CARD = re.compile(r"(?<![\dA-Za-z-])(?:\d[ -]?){12,18}\d(?![\dA-Za-z-])")
_CN_ID = re.compile(r"(?<![\dA-Za-z])\d{17}[\dXx](?![\dA-Za-z])")
_US_SSN = re.compile(r"(?<!\d)\d{3}-\d{2}-\d{4}(?!\d)")
_PASSWORD = re.compile(
    r"(?P<label>(?<![A-Za-z])(?:password|passcode|passwd|pwd|pin)(?![A-Za-z])|密码|口令)"
    r"(?P<sep>\s*(?:is|was|=|:|：|是|为)\s*|\s+|(?<=[码令]))"
    r"(?P<value>[^\s,，。;；]+)",
    re.IGNORECASE,
)
_CN_ID_WEIGHTS = (7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2)
_CN_ID_CHECK = "10X98765432"


def luhn_valid(digits: str) -> bool:
    """Return whether ``digits`` passes the Luhn checksum used by payment cards."""
    total = 0
    for position, char in enumerate(reversed(digits)):
        value = int(char)
        if position % 2 == 1:
            value = value * 2 - 9 if value > 4 else value * 2
        total += value
    return total % 10 == 0


def cn_id_valid(number: str) -> bool:
    """Return whether an 18-character Chinese resident ID number has a correct check character."""
    body, check = number[:17], number[17].upper()
    return _CN_ID_CHECK[sum(int(d) * w for d, w in zip(body, _CN_ID_WEIGHTS, strict=True)) % 11] == check


def _card(match: re.Match) -> str:
    digits = re.sub(r"\D", "", match.group())
    return CARD_MARK if 13 <= len(digits) <= 19 and luhn_valid(digits) else match.group()


def _cn_id(match: re.Match) -> str:
    return ID_MARK if cn_id_valid(match.group()) else match.group()


def _password(match: re.Match) -> str:
    return f"{match.group('label')}{match.group('sep')}{PASSWORD_MARK}"


def redact(text: str) -> str:
    """Return ``text`` with card numbers, national ID numbers and passwords replaced by marks."""
    text = _CN_ID.sub(_cn_id, text)
    text = _CARD.sub(_card, text)
    text = _US_SSN.sub(ID_MARK, text)
    return _PASSWORD.sub(_password, text)


def redact_json(text: str) -> str:
    """Redact the strings and numbers inside a JSON document, keeping it valid JSON (not JSON: ``redact``)."""
    try:
        value = json.loads(text)
    except (TypeError, ValueError):
        return redact(text)
    if not contains_secret(text):
        return text

    def walk(item: Any) -> Any:
        if isinstance(item, str):
            return redact(item)
        if isinstance(item, bool) or not isinstance(item, int | float):
            if isinstance(item, dict):
                return {key: walk(inner) for key, inner in item.items()}
            return [walk(inner) for inner in item] if isinstance(item, list) else item
        return redacted if (redacted := redact(str(item))) != str(item) else item

    return json.dumps(walk(value), ensure_ascii=False)


def contains_secret(text: str) -> bool:
    """Return whether ``redact`` would change ``text``."""
    return redact(text) != text


class RedactingFilter(logging.Filter):
    """A logging filter that redacts each record's message and exception text before any handler writes it.

    Put it on handlers (a logger's own filters do not see records propagated from its children).
    """

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        redacted = redact(message)
        if redacted != message:
            record.msg, record.args = redacted, None
        if record.exc_info and not record.exc_text:
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = redact(record.exc_text)
        return True
