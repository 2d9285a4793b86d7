"""Remove card, identity document and bank account numbers, security codes and passwords from text, before what
the customer types is logged, stored, consolidated, summarised, sent to the model again or shown to staff.
Numbers are found by shape and check digits, the rest by the word before them, so that order, tracking and
phone numbers, amounts and dates are kept; redacting twice is redacting once. See docs/operations.md ("Logs").
"""

from __future__ import annotations

import functools
import itertools
import json
import logging
import re
from collections.abc import Iterator
from typing import Any

CARD_MARK = "[card number removed]"
ID_MARK = "[ID number removed]"
PASSWORD_MARK = "[password removed]"
PASSPORT_MARK = "[passport number removed]"
IBAN_MARK = "[IBAN removed]"
SECURITY_CODE_MARK = "[security code removed]"
MARKS = (CARD_MARK, ID_MARK, PASSWORD_MARK, PASSPORT_MARK, IBAN_MARK, SECURITY_CODE_MARK)

_DIGIT = re.compile(r"\d")
# Words without which a pattern cannot match, looked for in the lowered text first: most log lines and
# messages name no secret, and a substring test costs far less than a pattern starting with a lookbehind.
_PASSWORD_HINTS = ("pass", "pwd", "pw", "pin", "密码", "密碼", "口令")
_PASSPORT_HINTS = ("passport", "护照", "護照")
_SSN_HINTS = ("ssn", "social")
_SECURITY_CODE_HINTS = (
    "cvv",
    "cvc",
    "security",
    "verification",
    "otp",
    "one-time",
    "one time",
    "sms",
    "back",
    "安全",
    "验证",
    "驗證",
    "动态",
    "背面",
)

_MARK = "|".join(re.escape(mark) for mark in MARKS)
_SPACE = r"[ \t\u00a0\u3000]"
_LETTER = r"A-Za-z\uff21-\uff3a\uff41-\uff5a"  # ASCII and full-width: CJK next to a number does not glue to it
# A number stands alone: no letter or digit glued to it ("SF1234567890123", "ORD-2025-0816"), no "+" of a
# country code, not the digits after a decimal point, and not glued to a mark (so a second pass finds
# nothing the first left). The lookbehinds follow the first digit and look past it: a pattern that starts
# with a digit is searched for digit by digit, far faster than by trying lookbehinds at every position.
_FIRST_DIGIT = rf"\d(?<![\d{_LETTER}+]\d)(?<![\d{_LETTER}][-_]\d)(?<!\d\.\d)(?<!removed\]\d)(?<!removed\][-_]\d)"
_ALONE_AFTER = rf"(?![-_]?[\d{_LETTER}])(?!\.\d)(?![-_]?(?:{_MARK}))"

# Cards and resident IDs: digit groups joined by spaces, dashes or dots, in any mix, as people type them.
_GROUP = r"\d++[XxＸｘ]?+"  # an ID's check character may be X
_SEPARATOR = (
    rf"(?:{_SPACE}{{1,3}}|{_SPACE}{{0,3}}[-\u2010-\u2015\u2212\uff0d\u00b7\u2022\u30fb]{_SPACE}{{0,3}}"
    r"|[._/,](?=\d))"  # a dot, an underscore, a slash or a comma only between digits: not "1, 2" in prose
)
_DIGIT_RUN = re.compile(rf"{_FIRST_DIGIT}\d*+[XxＸｘ]?+(?:{_SEPARATOR}{_GROUP})*{_ALONE_AFTER}")
_GROUPS = re.compile(_GROUP)
_MIN_GROUP = 3  # groups of one or two digits are dates, country codes, list numbers, expiry months: never a card's
_LONGEST = 19  # a card has 13-19 digits, a resident ID 18 characters
# A plain 12-15 digit number right after a carrier's name or "tracking number" is a waybill number. After a
# password mark too: a password can be any word, a carrier's name included ("pwd SF 773012345678908"), and
# the second pass must keep the number the first pass kept.
_WAYBILL_BEFORE = re.compile(
    r"(?:(?<![A-Za-z])(?:tracking|waybill|SF|JD|YTO|ZTO|STO|EMS)(?![A-Za-z])|运单|快递|单号|顺丰|中通|圆通|申通|韵达|京东"
    rf"|{re.escape(PASSWORD_MARK)})\s*(?:(?:number|no\.?|num|#|号码|号|单号|[:：])\s*){{0,3}}$",
    re.IGNORECASE,
)
_WAYBILL_DIGITS = range(12, 16)

_US_SSN = re.compile(rf"{_FIRST_DIGIT}\d\d-\d\d-\d{{4}}{_ALONE_AFTER}")
_CN_ID_WEIGHTS = (7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2)
_CN_ID_CHECK = "10X98765432"

# IBAN: country code, two check digits, then the country's fixed number of letters and digits, printed in
# groups of four or not. Lengths from the SWIFT IBAN registry.
_IBAN_HINT = re.compile(r"\d(?<=[A-Za-z]{2}\d)\d")
_IBAN_START = re.compile(
    rf"(?<![\d{_LETTER}])(?<![\d{_LETTER}][-_])(?<!removed\])(?<!removed\][-_])([A-Za-z]{{2}})\d\d"
)
_IBAN_LENGTHS = {
    "AD": 24, "AE": 23, "AL": 28, "AT": 20, "AZ": 28, "BA": 20, "BE": 16, "BG": 22, "BH": 22, "BI": 27, "BR": 29,
    "BY": 28, "CH": 21, "CR": 22, "CY": 28, "CZ": 24, "DE": 22, "DJ": 27, "DK": 18, "DO": 28, "EE": 20, "EG": 29,
    "ES": 24, "FI": 18, "FK": 18, "FO": 18, "FR": 27, "GB": 22, "GE": 22, "GI": 23, "GL": 18, "GR": 27, "GT": 28,
    "HN": 28, "HR": 21, "HU": 28, "IE": 22, "IL": 23, "IQ": 23, "IS": 26, "IT": 27, "JO": 30, "KW": 30, "KZ": 20,
    "LB": 28, "LC": 32, "LI": 21, "LT": 20, "LU": 20, "LV": 21, "LY": 25, "MC": 27, "MD": 24, "ME": 22, "MK": 19,
    "MN": 20, "MR": 27, "MT": 31, "MU": 30, "NI": 28, "NL": 18, "NO": 15, "OM": 23, "PK": 24, "PL": 28, "PS": 29,
    "PT": 25, "QA": 29, "RO": 24, "RS": 22, "RU": 33, "SA": 24, "SC": 31, "SD": 18, "SE": 24, "SI": 19, "SK": 24,
    "SM": 27, "SO": 23, "ST": 25, "SV": 28, "TL": 23, "TN": 24, "TR": 26, "UA": 29, "VA": 22, "VG": 24, "XK": 20,
    "YE": 30,
}  # fmt: skip  # a table: IBAN length by country code

# Secrets known by the word before them. Between word and value: spaces, ":", "#", "is", "number", "号码" ...
_FILLER = r"(?>(?:\s+|[:：=#＃-]|(?:is|was|are|number|no|nr|num|code)(?![A-Za-z])\.?|是|为|為|号码|號碼|号|號|编号)*)"
_PASSPORT_WORD = r"(?:(?<![A-Za-z])passport(?![A-Za-z])(?! number removed\])|护照|護照)"
_PASSPORT_WORDS = re.compile(_PASSPORT_WORD, re.IGNORECASE)
_PASSPORT = re.compile(
    rf"(?P<context>{_PASSPORT_WORD}{_FILLER})(?=[A-Za-z]*[ -]?\d)"
    rf"(?:[A-Za-z]{{1,2}}[ -]?)?[A-Za-z\d]*\d(?:[ -]?\d)*+{_ALONE_AFTER}",
    re.IGNORECASE,
)
# The shape of a Chinese passport number (E or G and eight digits, or E, a letter, seven digits) is
# redacted anywhere on a line that mentions a passport, before or after it.
_CN_PASSPORT = re.compile(rf"(?<![\d{_LETTER}])(?:[EeGg]\d{{8}}|[Ee][A-HJ-NP-Za-hj-np-z]\d{{7}})(?![\d{_LETTER}])")
_SSN_AFTER_WORD = re.compile(
    rf"(?P<context>(?<![A-Za-z])(?:ssn|social\s+security)(?![A-Za-z]){_FILLER})"
    rf"\d{{3}}[- ]?\d{{2}}[- ]?\d{{4}}{_ALONE_AFTER}",
    re.IGNORECASE,
)
# A card's security code, and a one-time code sent by SMS (验证码): either lets someone act as the customer.
_SECURITY_CODE = re.compile(
    r"(?P<context>(?:(?<![A-Za-z])(?:cvv2?|cvc2?|security\s+code|card\s+verification\s+(?:code|value)"
    r"|verification\s+code|one[- ]time\s+(?:code|password|passcode)|otp|sms\s+code)(?![A-Za-z])"
    r"|(?:(?:three|3|four|4)\s+)?(?:digits?|code|number)\s+on\s+(?:the\s+)?back(?:\s+of\s+(?:the|my)\s+card)?"
    rf"|安全码|安全碼|验证码|驗證碼|动态码|动态密码|(?:卡片?)?背面的?[三3]位(?:数字?|码)?){_FILLER})"
    rf"\d{{3,8}}+{_ALONE_AFTER}",
    re.IGNORECASE,
)
# A password runs to the next space or comma. The separator is atomic, so "password is [password removed]"
# cannot fall back to taking "is" as the separator and the mark as the password; and glued to 密码 only an
# ASCII character starts one (密码abc123), so 密码错误 ("wrong password") is prose. The value is never "code"
# or "number" alone: that is the end of the label ("PIN code [password removed]").
_PASSWORD = re.compile(
    r"(?P<label>(?<![A-Za-z])(?:password(?! removed\])|passcode|passwd|pwd|pw|pin(?:\s*(?:code|number)|码)?)"
    r"(?![A-Za-z])|密码|密碼|口令)"
    r"(?P<sep>(?>(?:\s*(?:(?:is|was)(?![A-Za-z\d])|[=:：]|是|为))+\s*|\s+|(?<=[码碼令])(?=[!-~])))"
    rf"(?P<value>(?!(?:code|number)(?![A-Za-z\d]))(?:(?!{_MARK})[^\s,，。;；])+)",
    re.IGNORECASE,
)
# JSON keys that name a secret: their value is one, whatever it looks like ({"pin": "0000"}).
_SECRET_KEYS = (
    (re.compile(r"(?:\w+_)?(?:password|passwd|pwd|passcode|pin|pin_code)|.*密码|口令"), PASSWORD_MARK),
    (
        re.compile(r"cvv2?|cvc2?|(?:card_)?security_code|otp|(?:sms_)?verification_code|安全码|验证码"),
        SECURITY_CODE_MARK,
    ),
    (re.compile(r"passport(?:_number|_no)?|护照(?:号码?)?"), PASSPORT_MARK),
    (re.compile(r"ssn|social_security_number"), ID_MARK),
)


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


def iban_valid(iban: str) -> bool:
    """Return whether ``iban`` (spaces and dashes allowed) passes the ISO 13616 mod-97 check."""
    compact = iban.replace(" ", "").replace("-", "").upper()
    rearranged = compact[4:] + compact[:4]
    return int("".join(str(int(char, 36)) for char in rearranged)) % 97 == 1


def _is_card(digits: str) -> bool:
    if not (13 <= len(digits) <= 19 and digits.isdigit()) or not luhn_valid(digits):
        return False
    # Issuers by first digit (ISO/IEC 7812): none start with 0; with 1 only the airlines' 15-digit UATP cards;
    # 13 digits only Visa's old numbers and Maestro. Millisecond timestamps (17...) and "86" + a mobile are not cards.
    first = digits[0]
    return first != "0" and (first != "1" or len(digits) == 15) and (len(digits) != 13 or first in "456")


def _is_cn_id(chars: str) -> bool:
    if len(chars) != 18 or not chars[:17].isdigit():
        return False
    year, month, day = int(chars[6:10]), int(chars[10:12]), int(chars[12:14])
    return 1900 <= year <= 2099 and 1 <= month <= 12 and 1 <= day <= 31 and cn_id_valid(chars)


def _plain(chars: str) -> str:
    """ASCII digits for any digits (full-width ones come from Chinese keyboards), X for the check character."""
    return "".join(str(int(char)) if char.isdecimal() else "X" for char in chars)


def _usable(run: str, groups: list[re.Match[str]]) -> list[bool]:
    """Which groups of a run may be part of a card or ID: long enough, and not one side of a decimal number."""
    usable = [len(group.group()) >= _MIN_GROUP for group in groups]
    dots = [run[a.end() : b.start()] == "." for a, b in itertools.pairwise(groups)]
    for i, dot in enumerate(dots):
        # One dot alone is a decimal point ("0.4111111111111111"); a chain of them separates ("4111.1111.1111.1111").
        if dot and not (i > 0 and dots[i - 1]) and not (i + 1 < len(dots) and dots[i + 1]):
            usable[i] = usable[i + 1] = False
    return usable


def _numbers_in(chars: list[str], usable: list[bool]) -> Iterator[tuple[int, int, str]]:
    """Yield (first group, last group, mark) for each card or ID number made of consecutive groups.

    From each group, the longest valid number starting there wins: a card followed by its expiry
    or security code in the same run ("4111111111111111 123") is still found.
    """
    first = 0
    while first < len(chars):
        found, number = None, ""
        for last in range(first, len(chars)):
            if not usable[last] or "X" in number or len(number) + len(chars[last]) > _LONGEST:
                break
            number += chars[last]
            if _is_cn_id(number):
                found = (last, ID_MARK)
            elif _is_card(number):
                found = (last, CARD_MARK)
        if found:
            yield first, found[0], found[1]
            first = found[0] + 1
        else:
            first += 1


def _digit_run(match: re.Match[str]) -> str:
    run = match.group()
    if len(run) < 13:  # fewer characters than the shortest card: most runs are amounts, dates and timings
        return run
    groups = list(_GROUPS.finditer(run))
    if len(groups) == 1 and len(run) in _WAYBILL_DIGITS and run.isdecimal():
        before = match.string[max(0, match.start() - 24) : match.start()]
        if _WAYBILL_BEFORE.search(before):
            return run
    pieces, kept_from = [], 0
    for first, last, mark in _numbers_in([_plain(g.group()) for g in groups], _usable(run, groups)):
        pieces += [run[kept_from : groups[first].start()], mark]
        kept_from = groups[last].end()
    return "".join(pieces) + run[kept_from:] if pieces else run


@functools.cache
def _iban_body(length: int) -> re.Pattern[str]:
    return re.compile(rf"(?:[ -]?+[A-Za-z0-9]){{{length}}}{_ALONE_AFTER}")


def _redact_ibans(text: str) -> str:
    pieces, kept_from = [], 0
    for start in _IBAN_START.finditer(text):
        length = _IBAN_LENGTHS.get(start.group(1).upper())
        if start.start() < kept_from or length is None:
            continue
        body = _iban_body(length - 4).match(text, start.end())
        if body and iban_valid(text[start.start() : body.end()]):
            pieces += [text[kept_from : start.start()], IBAN_MARK]
            kept_from = body.end()
    return "".join(pieces) + text[kept_from:] if pieces else text


def _redact_passports(text: str) -> str:
    text = _PASSPORT.sub(rf"\g<context>{PASSPORT_MARK}", text)
    if not _PASSPORT_WORDS.search(text):
        return text
    return "".join(
        _CN_PASSPORT.sub(PASSPORT_MARK, line) if _PASSPORT_WORDS.search(line) else line
        for line in text.splitlines(keepends=True)
    )


def _mentions(text: str, hints: tuple[str, ...]) -> bool:
    lowered = text.lower()
    return any(hint in lowered for hint in hints)


def redact(text: str) -> str:
    """Return ``text`` with every card, ID, passport and IBAN number, security code and password replaced by a mark."""
    # Numbers first, by shape, so that a card after "password" becomes a card mark and not a cut-off password.
    if _DIGIT.search(text):
        if _IBAN_HINT.search(text):
            text = _redact_ibans(text)
        text = _US_SSN.sub(ID_MARK, text)
        text = _DIGIT_RUN.sub(_digit_run, text)
        if _mentions(text, _SSN_HINTS):
            text = _SSN_AFTER_WORD.sub(rf"\g<context>{ID_MARK}", text)
        if _mentions(text, _PASSPORT_HINTS):
            text = _redact_passports(text)
        if _mentions(text, _SECURITY_CODE_HINTS):
            text = _SECURITY_CODE.sub(rf"\g<context>{SECURITY_CODE_MARK}", text)
    if _mentions(text, _PASSWORD_HINTS):  # a password needs no digit
        text = _PASSWORD.sub(rf"\g<label>\g<sep>{PASSWORD_MARK}", text)
    return text


def _secret_key_mark(key: str) -> str | None:
    name = re.sub(r"[\s-]+", "_", key.strip().lower())
    return next((mark for pattern, mark in _SECRET_KEYS if pattern.fullmatch(name)), None)


def _redact_value(item: Any, key: str | None = None) -> Any:
    if isinstance(item, dict):
        return {name: _redact_value(inner, name) for name, inner in item.items()}
    if isinstance(item, list):
        return [_redact_value(inner) for inner in item]
    if isinstance(item, bool) or not isinstance(item, str | int | float):
        return item
    if key is not None and item != "" and (mark := _secret_key_mark(key)):
        return mark
    if isinstance(item, str):
        return redact(item)
    return redacted if (redacted := redact(str(item))) != str(item) else item


def redact_json(text: str) -> str:
    """Redact the strings and numbers inside a JSON document, keeping it valid JSON (not JSON: ``redact``).

    Decoded first: tool arguments arrive as ASCII JSON, where 密码 is spelled \\u5bc6\\u7801. Returned
    unchanged, byte for byte, when there is nothing to redact.
    """
    try:
        value = json.loads(text)
        redacted = _redact_value(value)
    except (TypeError, ValueError, RecursionError):  # not JSON, or nested too deep to walk: redact it as text
        return redact(text)
    return text if redacted == value else json.dumps(redacted, ensure_ascii=False)


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
