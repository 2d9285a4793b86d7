"""Redaction as properties: generated secrets in any common format never survive, generated look-alikes
always do, and redacting twice is redacting once: redaction holds beyond the hand-picked examples.

The generators compute their own check digits (Luhn, the ID checksum, mod-97) rather than borrow
``agentsite.redaction``'s, so a bug there cannot hide itself. Examples are derandomized: the same
inputs on every run and every machine.
"""

from __future__ import annotations

import datetime as dt
import re
import string

from hypothesis import given, settings
from hypothesis import strategies as st

from agentsite.redaction import (
    CARD_MARK,
    IBAN_MARK,
    ID_MARK,
    MARKS,
    PASSPORT_MARK,
    PASSWORD_MARK,
    SECURITY_CODE_MARK,
    contains_secret,
    redact,
)

PROPERTY = settings(max_examples=150, deadline=None, derandomize=True, database=None)

DIGITS = string.digits
UPPER_ALNUM = string.ascii_uppercase + DIGITS
FULL_WIDTH = str.maketrans(DIGITS, "０１２３４５６７８９")

# Surroundings: prose without digits or the words that announce a secret, and punctuation that ends a word.
PROSE = st.sampled_from(
    [
        "Hi",
        "please check this",
        "my details are below",
        "thanks a lot",
        "is that right?",
        "as discussed",
        "你好",
        "请帮我查一下",
        "谢谢",
        "麻烦尽快处理",
        "我的信息如下",
        "好的",
    ]
)
BEFORE = st.sampled_from([" ", " (", ": ", "：", "，", ", ", ' "', "「", "\n", "。", "! "])
AFTER = st.sampled_from([" ", ")", ". ", "。", "！", "! ", ", ", "，", '"', "」", "\n", "? ", ";"])
JOINER = st.sampled_from([" and ", ", then ", "; also ", "，还有", " 和 ", ". Next: ", " / ", " or "])


# --- secrets -------------------------------------------------------------------------------------------


def luhn_check_digit(body: str) -> str:
    total = 0
    for position, char in enumerate(reversed(body)):
        value = int(char)
        if position % 2 == 0:  # doubled: the check digit to come takes position 0
            value = value * 2 - 9 if value > 4 else value * 2
        total += value
    return str(-total % 10)


def iban_check_digits(country: str, bban: str) -> str:
    rearranged = bban + country + "00"
    return f"{98 - int(''.join(str(int(c, 36)) for c in rearranged)) % 97:02d}"


def cn_id_check_char(body: str) -> str:
    weights = (7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2)
    return "10X98765432"[sum(int(d) * w for d, w in zip(body, weights, strict=True)) % 11]


def text_of(alphabet: str, n: int) -> st.SearchStrategy[str]:
    return st.text(alphabet, min_size=n, max_size=n)


def digits(n: int) -> st.SearchStrategy[str]:
    return text_of(DIGITS, n)


@st.composite
def card_numbers(draw: st.DrawFn) -> str:
    """A Luhn-valid number of 13-19 digits with a payment card's prefix."""
    length = draw(st.integers(13, 19))
    if length == 13:
        prefixes = ["4", "5018", "6304"]  # Visa's old numbers, Maestro
    else:
        prefixes = ["4", "51", "55", "2221", "2720", "34", "37", "6011", "62", "35", "36", "30"]
        prefixes += ["1"] if length == 15 else []  # the airlines' UATP cards
    prefix = draw(st.sampled_from(prefixes))
    body = prefix + draw(digits(length - len(prefix) - 1))
    return body + luhn_check_digit(body)


@st.composite
def group_sizes(draw: st.DrawFn, length: int) -> list[int]:
    """How a person splits a number: fours (the remainder joins the last group), or groups of 3-8."""
    if draw(st.booleans()):
        sizes = [4] * (length // 4)
        if length % 4:
            sizes[-1] += length % 4
        return sizes
    sizes, left = [], length
    while left > 8 or (left > 5 and draw(st.booleans())):
        size = draw(st.integers(3, min(8, left - 3)))
        sizes.append(size)
        left -= size
    return [*sizes, left]


@st.composite
def spaced(draw: st.DrawFn, number: str, sizes: list[int]) -> str:
    """``number`` in groups of ``sizes``, joined by one separator style or a mix of spaces and dashes."""
    groups, start = [], 0
    for size in sizes:
        groups.append(number[start : start + size])
        start += size
    styles = [" ", "  ", "-", " - ", "\u3000", "–", "mixed"] + (["."] if len(groups) > 2 else [])
    style = draw(st.sampled_from(styles))
    if style != "mixed":
        return style.join(groups)
    text = groups[0]
    for group in groups[1:]:
        text += draw(st.sampled_from([" ", "  ", "-", " - ", " -", "- "])) + group
    return text


@st.composite
def formatted_cards(draw: st.DrawFn) -> str:
    number = draw(card_numbers())
    text = number if draw(st.booleans()) else draw(spaced(number, draw(group_sizes(len(number)))))
    return text.translate(FULL_WIDTH) if draw(st.integers(0, 5)) == 0 else text


@st.composite
def cn_id_numbers(draw: st.DrawFn) -> str:
    region = draw(st.sampled_from(["110105", "310104", "440305", "510107", "330106", "420102"]))
    born = draw(st.dates(dt.date(1930, 1, 1), dt.date(2020, 12, 31))).strftime("%Y%m%d")
    body = region + born + draw(digits(3))
    number = body + cn_id_check_char(body)
    if draw(st.booleans()):
        number = number.lower()
    cuts = draw(st.sampled_from([(), (6, 14), (6, 10, 14)]))  # as one, 6-8-4 or 6-4-4-4
    groups = [number[a:b] for a, b in zip((0, *cuts), (*cuts, 18), strict=True)]
    return draw(st.sampled_from([" ", "-", "  ", " - "])).join(groups)


# Each country's account number after the check digits (BBAN), by its layout in the IBAN registry.
BBANS = {
    "DE": digits(18),
    "GB": st.tuples(text_of(string.ascii_uppercase, 4), digits(14)).map("".join),
    "FR": st.tuples(digits(10), text_of(UPPER_ALNUM, 11), digits(2)).map("".join),
    "NL": st.tuples(text_of(string.ascii_uppercase, 4), digits(10)).map("".join),
    "ES": digits(20),
    "CH": st.tuples(digits(5), text_of(UPPER_ALNUM, 12)).map("".join),
    "NO": digits(11),
}


@st.composite
def ibans(draw: st.DrawFn) -> str:
    country = draw(st.sampled_from(sorted(BBANS)))
    bban = draw(BBANS[country])
    iban = country + iban_check_digits(country, bban) + bban
    if draw(st.booleans()):
        iban = " ".join(iban[i : i + 4] for i in range(0, len(iban), 4))
    return iban.lower() if draw(st.integers(0, 4)) == 0 else iban


CHINESE_PASSPORT = st.one_of(
    st.tuples(st.sampled_from("EG"), digits(8)).map("".join),
    st.tuples(st.just("E"), st.sampled_from("ABCDEFGHJKLMNPQRSTUVWXYZ"), digits(7)).map("".join),
)
OTHER_PASSPORT = st.one_of(
    digits(9),  # US, UK
    st.tuples(text_of(string.ascii_uppercase, 1), text_of(UPPER_ALNUM, 7), digits(1)).map("".join),  # German, ...
)


@st.composite
def passports(draw: st.DrawFn) -> str:
    """A passport number after the word (EN or ZH), or a Chinese one with the word later in the message."""
    if draw(st.integers(0, 3)) == 0:
        after = draw(st.sampled_from([" is my passport number", "是我的护照号码", " (passport)"]))
        return draw(CHINESE_PASSPORT) + after
    word = draw(
        st.sampled_from(
            [
                "passport ",
                "Passport number: ",
                "passport no. ",
                "passport # ",
                "my passport number is ",
                "PASSPORT NO:",
                "护照",
                "护照号 ",
                "护照号码",
                "护照号码是",
                "护照号：",
                "护照编号为",
            ]
        )
    )
    return word + draw(st.one_of(CHINESE_PASSPORT, OTHER_PASSPORT))


@st.composite
def security_codes(draw: st.DrawFn) -> str:
    word = draw(
        st.sampled_from(
            [
                "CVV",
                "CVV2",
                "cvc",
                "CVC2",
                "security code",
                "Security Code",
                "verification code",
                "安全码",
                "卡背面三位数",
                "卡背面的三位数字",
                "验证码",
                "短信验证码",
            ]
        )
    )
    chinese = not word.isascii()
    sep = draw(st.sampled_from([" ", ": ", " is ", " = "] + (["：", "是", ""] if chinese else [])))
    return word + sep + draw(digits(draw(st.integers(4, 6)) if "验证码" in word else draw(st.integers(3, 4))))


PASSWORD_VALUE = st.tuples(
    text_of(string.ascii_letters, 1),
    st.text(string.ascii_letters + DIGITS + "!@#$%^&*", min_size=4, max_size=14),
    digits(1),
).map("".join)


@st.composite
def passwords(draw: st.DrawFn) -> tuple[str, str]:
    label = draw(
        st.sampled_from(
            [
                "password ",
                "Password: ",
                "password is ",
                "my password is ",
                "pwd=",
                "PIN ",
                "PIN code ",
                "passcode: ",
                "密码",
                "密码是",
                "密码：",
                "口令 ",
                "登录密码为",
            ]
        )
    )
    value = draw(PASSWORD_VALUE)
    return label + value, value


SECRETS = {
    CARD_MARK: formatted_cards(),
    ID_MARK: cn_id_numbers(),
    IBAN_MARK: ibans(),
    PASSPORT_MARK: passports(),
    SECURITY_CODE_MARK: security_codes(),
}


def digits_in(text: str) -> bool:
    """Whether any digit is left; the prose has none, and the "2" of "CVV2" is not a secret's."""
    return any(char.isdigit() for char in re.sub(r"(?i)cv[vc]2", "", text))


@st.composite
def in_prose(draw: st.DrawFn, item: str) -> str:
    """``item`` inside a sentence: prose before and after it, punctuation that ends a word on each side."""
    before = draw(PROSE) + draw(BEFORE) if draw(st.booleans()) else ""
    after = draw(AFTER) + draw(PROSE) if draw(st.booleans()) else ""
    return before + item + after


ANY_SECRET = st.sampled_from(sorted(SECRETS)).flatmap(lambda mark: SECRETS[mark])


@st.composite
def secrets_in_prose(draw: st.DrawFn) -> tuple[str, str, str]:
    mark = draw(st.sampled_from(sorted(SECRETS)))
    secret = draw(SECRETS[mark])
    return mark, secret, draw(in_prose(secret))


@given(secrets_in_prose())
@PROPERTY
def test_no_digit_of_a_secret_survives(case):
    mark, secret, text = case
    redacted = redact(text)
    assert mark in redacted
    assert not digits_in(redacted), (secret, redacted)


@given(passwords().flatmap(lambda pair: st.tuples(st.just(pair[1]), in_prose(pair[0]))))
@PROPERTY
def test_no_password_survives(case):
    value, text = case
    redacted = redact(text)
    assert PASSWORD_MARK in redacted
    assert value not in redacted and value[1:] not in redacted


@given(st.lists(ANY_SECRET, min_size=2, max_size=4), JOINER)
@PROPERTY
def test_several_secrets_in_one_message_all_go(secrets, joiner):
    redacted = redact(joiner.join(secrets))
    assert not digits_in(redacted), redacted


# --- look-alikes ---------------------------------------------------------------------------------------


def number(low: int, high: int) -> st.SearchStrategy[str]:
    return st.integers(low, high).map(str)


ORDER_NUMBERS = st.builds("ORD-{}-{:04d}".format, st.integers(2000, 2030), st.integers(0, 9999))
TRACKING_NUMBERS = st.one_of(
    st.integers(12, 15).flatmap(digits).map("SF{}".format),
    st.integers(13, 15).flatmap(digits).map("JD{}".format),
    digits(13).map("YT{}".format),
    st.integers(12, 15).flatmap(digits).map("ZT{}".format),
    text_of(UPPER_ALNUM, 16).map("1Z{}".format),
    st.tuples(
        st.sampled_from(["运单号 ", "快递单号：", "tracking number ", "waybill "]), st.integers(12, 15).flatmap(digits)
    ).map("".join),
)
AMOUNTS = st.one_of(
    st.decimals(0, 10**9, places=2).map("¥{:,}".format),
    st.decimals(0, 10**9, places=2).map("${}".format),
    st.decimals(0, 10**9, places=2).map("{} CNY".format),
    number(0, 10**6).map("{}元".format),
)
WEIGHTS = st.one_of(st.decimals(0, 1000, places=1).map("{} kg".format), number(1, 5000).map("{}g".format))
TIMINGS = st.tuples(
    st.sampled_from(["took ", "latency ", "", "score="]),
    number(0, 10**6),
    st.integers(1, 20).flatmap(digits),
    st.sampled_from([" ms", " s", "s", ""]),
).map(lambda t: f"{t[0]}{t[1]}.{t[2]}{t[3]}")
PHONES = (
    st.tuples(st.sampled_from("3456789"), digits(9))
    .map(lambda t: "1" + "".join(t))
    .flatmap(
        lambda m: st.sampled_from(
            [
                m,
                f"+86 {m[:3]} {m[3:7]} {m[7:]}",
                f"+86-{m[:3]}-{m[3:7]}-{m[7:]}",
                f"+86 {m}",
                f"{m[:3]}-{m[3:7]}-{m[7:]}",
                f"(+86) {m}",
            ]
        )
    )
)
DATES = st.tuples(
    st.dates(dt.date(1990, 1, 1), dt.date(2035, 12, 31)),
    st.sampled_from(["%Y-%m-%d", "%Y/%m/%d", "%d.%m.%Y", "%Y.%m.%d", "%Y年%m月%d日", "%b %d, %Y", "%Y-%m-%d %H:%M"]),
).map(lambda t: t[0].strftime(t[1]))
PLAIN_NUMBERS = number(0, 10**12 - 1)
LOOK_ALIKES = st.one_of(ORDER_NUMBERS, TRACKING_NUMBERS, AMOUNTS, WEIGHTS, TIMINGS, PHONES, DATES, PLAIN_NUMBERS)


@st.composite
def look_alike_messages(draw: st.DrawFn) -> str:
    items = draw(st.lists(LOOK_ALIKES, min_size=1, max_size=4))
    text = items[0]
    for item in items[1:]:
        text += draw(JOINER) + item
    return draw(in_prose(text))


@given(look_alike_messages())
@PROPERTY
def test_look_alikes_are_kept_as_they_are(text):
    assert redact(text) == text
    assert not contains_secret(text)


# --- idempotence ---------------------------------------------------------------------------------------

# Kept packed (fmt: skip): a vocabulary of fragments reads as one block, not forty one-token lines.
PIECES = st.sampled_from(
    [*MARKS, "[", "]", " removed]", "password", "pin", "密码", "passport", "护照", "CVV", "验证码", "SSN", "is", ":",
     " ", "  ", "-", " - ", ".", ",", "，", "E", "X", "GB82", "4111", "1111", "002X", "110105", "19491231",
     "123-45-6789", "4111111111111111", "0.", "+86", "SF", "1Z", "ORD-", "\n"]
)  # fmt: skip
CHAOS = st.lists(st.one_of(PIECES, st.text("0123456789 -.Xx[]a", max_size=6)), max_size=14).map("".join)


PASSWORD_TEXTS = passwords().map(lambda pair: pair[0])
MIXED = st.lists(st.one_of(look_alike_messages(), ANY_SECRET, PASSWORD_TEXTS), max_size=3).map(" ".join)


@given(st.one_of(CHAOS, look_alike_messages(), ANY_SECRET, PASSWORD_TEXTS, MIXED))
@settings(PROPERTY, max_examples=400)
def test_redacting_twice_is_redacting_once(text):
    once = redact(text)
    assert redact(once) == once
