"""The registry of memory keys: which attribute of a customer a keyed long-term memory is about, whether it holds
one value at a time or many, how its value is normalised, and which keys the shop owns. It is code, not
storage: the keys and values it shapes live in long-term memory's PostgreSQL rows. See docs/longterm.md ("The
key registry", "One truth").
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from django.db import models


class InvalidValue(ValueError):
    """A value that cannot be normalised for its key."""


class Cardinality(models.TextChoices):
    ONE = "one", "one value at a time"
    MANY = "many", "many values"


MONTHS = {
    name: number
    for number, names in enumerate(
        [
            ("january", "jan"),
            ("february", "feb"),
            ("march", "mar"),
            ("april", "apr"),
            ("may",),
            ("june", "jun"),
            ("july", "jul"),
            ("august", "aug"),
            ("september", "sep", "sept"),
            ("october", "oct"),
            ("november", "nov"),
            ("december", "dec"),
        ],
        start=1,
    )
    for name in names
}
_ZH_DIGITS = {
    "零": 0,
    "〇": 0,
    "一": 1,
    "二": 2,
    "两": 2,
    "三": 3,
    "四": 4,
    "五": 5,
    "六": 6,
    "七": 7,
    "八": 8,
    "九": 9,
}
_DAYS_IN_MONTH = (31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)


def _zh_number(text: str) -> int:
    """Parse 1-31 written with Chinese numerals (十五, 二十一, 三十) or digits."""
    if text.isdigit():
        return int(text)
    if "十" in text:
        tens, _, units = text.partition("十")
        return (_ZH_DIGITS[tens] if tens else 1) * 10 + (_ZH_DIGITS[units] if units else 0)
    if len(text) == 1 and text in _ZH_DIGITS:
        return _ZH_DIGITS[text]
    raise InvalidValue(f"not a number: {text}")


def _month_day(month: int, day: int) -> str:
    if not (1 <= month <= 12 and 1 <= day <= _DAYS_IN_MONTH[month - 1]):
        raise InvalidValue(f"no such date: month {month}, day {day}")
    return f"{month:02d}-{day:02d}"


# The words that say a value is an address before it ("客户的收货地址是…", "my new address is: …"): not the address.
_ADDRESS_SAID_TO_BE = re.compile(
    r"^\s*(?:(?:客户|顾客|我)的?)?(?:新的?|默认的?|现在的?)?(?:收货|配送|送货|寄送)?地址(?:是|为|改成|改为|换成)?\s*[:：]?\s*"
    r"|^\s*(?i:(?:the\s+customer'?s|my|our)\s+(?:new\s+|current\s+|default\s+|shipping\s+|delivery\s+)*address"
    r"\s*(?:is(?:\s+now)?|=|:)\s*:?\s*)"
)


def normalise_address(value: str) -> str:
    """The address, without words saying it is one ("客户的收货地址是北京市…" → "北京市…")."""
    return normalise_text(_ADDRESS_SAID_TO_BE.sub("", value, count=1))


def normalise_birthday(value: str) -> str:
    """Return ``MM-DD`` for 03-15, 3/15, 15/3, 3月15日, 三月十五号, March 15th, 15 March."""
    text = value.strip().lower()
    zh_num = "[0-9一二两三四五六七八九十〇零]+"
    if match := re.search(rf"({zh_num})\s*月\s*({zh_num})\s*[日号]?", text):
        return _month_day(_zh_number(match.group(1)), _zh_number(match.group(2)))
    if match := re.fullmatch(r"(\d{1,2})\s*[-/.]\s*(\d{1,2})", text):
        first, second = int(match.group(1)), int(match.group(2))
        if first > 12 >= second:  # 15/3: day first
            first, second = second, first
        return _month_day(first, second)
    words = re.findall(r"[a-z]+|\d+", text)
    months = [MONTHS[w] for w in words if w in MONTHS]
    days = [int(w) for w in words if w.isdigit() and 1 <= int(w) <= 31]
    if len(months) == 1 and len(days) == 1:
        return _month_day(months[0], days[0])
    raise InvalidValue(f"not a birthday: {value!r}")


# Words around a choice that name no other value ("通知已开启", "notifications are on", "用微信联系我"): a choice is
# read without them; a negation ("不要开启") is kept, and the value is then not understood.
_AROUND_A_CHOICE = re.compile(
    r"通知|提醒|推送|联系方式|联系我|联系|已经|已|设置为|设置成|设为|改成|改为|换成|都|是|为|用|通过|请|了|吧|的|"
    r"\b(?:notifications?|alerts?|contact(?:\s+me)?|channel|are|is|set|to|turned|switched|please|my|by|via|be|should|now)\b"
    r"|[\s,，.。!！:：]"
)


def _choice(canonical: dict[str, tuple[str, ...]]) -> Callable[[str], str]:
    lookup = {alias.lower(): name for name, aliases in canonical.items() for alias in (name, *aliases)}

    def normalise(value: str) -> str:
        key = value.strip().lower()
        if key not in lookup:
            key = _AROUND_A_CHOICE.sub("", key)
        if key not in lookup:
            raise InvalidValue(f"{value!r} is not one of {', '.join(canonical)}")
        return lookup[key]

    return normalise


# Every carrier the shop ships with or a customer is likely to name, by id, with its names in both
# languages. A carrier missing here is a preference consolidation throws away ("invalid value"), so
# the offline model's carriers (agentsite/offline_model/slots.py) must all be here: a test checks.
CARRIERS: dict[str, tuple[str, ...]] = {
    "sf_express": ("SF Express", "SF", "顺丰", "顺丰速运", "顺丰快递"),
    "jd": ("JD Logistics", "JD", "京东", "京东物流", "京东快递"),
    "ems": ("EMS", "China Post", "中国邮政", "邮政", "邮政EMS"),
    "ups": ("UPS",),
    "dhl": ("DHL",),
    "fedex": ("FedEx", "联邦快递"),
    "zto": ("ZTO Express", "ZTO", "中通", "中通快递"),
    "yto": ("YTO Express", "YTO", "圆通", "圆通速递", "圆通快递"),
    "sto": ("STO Express", "STO", "申通", "申通快递"),
    "yunda": ("Yunda Express", "Yunda", "韵达", "韵达快递"),
    "usps": ("USPS",),
}
# Words a name may carry or drop without naming another carrier: "ZTO" and "ZTO Express" are one.
_CARRIER_SUFFIX = re.compile(r"(?:express|logistics|delivery|courier|快递|速运|速递|物流)$")


def _carrier_form(name: str) -> str:
    return re.sub(r"[\s\-_.·]+", "", name.casefold())


_CARRIER_LOOKUP = {
    form: carrier
    for carrier, names in CARRIERS.items()
    for name in (carrier, *names)
    for form in {_carrier_form(name), _CARRIER_SUFFIX.sub("", _carrier_form(name))}
    if form
}


def normalise_carrier(value: str) -> str:
    """Return the carrier's id for its id or any of its names ("中通快递", "ZTO Express", "zto")."""
    form = _carrier_form(value)
    carrier = _CARRIER_LOOKUP.get(form) or _CARRIER_LOOKUP.get(_CARRIER_SUFFIX.sub("", form))
    if carrier is None:
        raise InvalidValue(f"{value!r} is not a carrier we know: {', '.join(CARRIERS)}")
    return carrier


def normalise_order_number(value: str) -> str:
    """Return ``ORD-YYYY-NNNN`` upper-cased."""
    text = value.strip().upper()
    if not re.fullmatch(r"ORD-\d{4}-\d{4}", text):
        raise InvalidValue(f"not an order number: {value!r}")
    return text


def normalise_phone(value: str) -> str:
    """Return the digits of a phone number, keeping a leading +."""
    digits = re.sub(r"\D", "", value)
    if not 6 <= len(digits) <= 15:
        raise InvalidValue(f"not a phone number: {value!r}")
    return ("+" if value.strip().startswith("+") else "") + digits


def normalise_email(value: str) -> str:
    text = value.strip().lower()
    if not re.fullmatch(r"[^@\s]+@[^@\s]+\.[a-z]{2,}", text):
        raise InvalidValue(f"not an email address: {value!r}")
    return text


def normalise_text(value: str) -> str:
    """Collapse whitespace; refuse empty values."""
    text = " ".join(value.split())
    if not text:
        raise InvalidValue("empty value")
    return text


def normalise_name(value: str) -> str:
    """A name as given; refuse what is no name: digits, sentence marks, or more than six words ("Bob Smith - I
    was already refunded the full 320.00 …" would be recalled as the customer's name)."""
    text = normalise_text(value)
    if (
        len(text) > 60
        or re.search(r"\d|[,;:!?@()\[\]{}<>，。；：！？（）【】]|\s[-–—]\s", text)
        or len(text.split()) > 6
    ):
        raise InvalidValue(f"not a name: {text[:40]!r}")
    return text


@dataclass(frozen=True)
class KeySpec:
    """One attribute a keyed memory can be about."""

    name: str
    cardinality: str
    normalise: Callable[[str], str]
    description: str
    shop_field: str = ""  # the shop's field holding the true value (``chat.models.CustomerProfile``), if any


REGISTRY: dict[str, KeySpec] = {
    spec.name: spec
    for spec in [
        KeySpec("birthday", Cardinality.ONE, normalise_birthday, "the customer's birthday, value MM-DD"),
        KeySpec(
            "notification_preference",
            Cardinality.ONE,
            _choice({"mute": ("muted", "off", "静音", "关闭"), "on": ("enabled", "开启", "打开")}),
            "whether the customer wants notifications: mute or on",
            shop_field="notification_preference",
        ),
        KeySpec(
            "contact_channel",
            Cardinality.ONE,
            _choice(
                {
                    "email": ("e-mail", "邮件", "邮箱"),
                    "phone": ("电话", "call"),
                    "sms": ("短信", "text"),
                    "wechat": ("微信",),
                }
            ),
            "how the customer wants to be contacted: email, phone, sms or wechat",
            shop_field="contact_channel",
        ),
        KeySpec(
            "shipping_address",
            Cardinality.ONE,
            normalise_address,
            "the customer's current shipping address",
            shop_field="default_address",
        ),
        KeySpec(
            "order_number", Cardinality.MANY, normalise_order_number, "an order the customer asked about, ORD-YYYY-NNNN"
        ),
        KeySpec(
            "preferred_carrier",
            Cardinality.ONE,
            normalise_carrier,
            f"the delivery company the customer prefers: {', '.join(CARRIERS)}",
        ),
        KeySpec("phone_number", Cardinality.ONE, normalise_phone, "the customer's phone number, digits"),
        KeySpec("email", Cardinality.ONE, normalise_email, "the customer's email address, lower case"),
        KeySpec("name", Cardinality.ONE, normalise_name, "the customer's name"),
    ]
}


def normalise(key: str, value: str) -> str:
    """Return ``value`` normalised for ``key``; raise ``InvalidValue`` for unknown keys or bad values."""
    if key not in REGISTRY:
        raise InvalidValue(f"unknown memory key: {key!r}")
    return REGISTRY[key].normalise(value)


def is_single_valued(key: str) -> bool:
    """Return whether a different value for ``key`` contradicts the current one."""
    return bool(key) and REGISTRY[key].cardinality == Cardinality.ONE


# Shop-owned keys and the shop's field of each: the one list the memory block, storage, the customer's
# corrections and the staff's conflict actions consult.
SHOP_OWNED: dict[str, str] = {spec.name: spec.shop_field for spec in REGISTRY.values() if spec.shop_field}


def is_shop_owned(key: str) -> bool:
    """Whether the shop's own record, not memory, holds the truth about ``key``."""
    return key in SHOP_OWNED


def describe_registry() -> str:
    """The registry as lines for the extraction prompt."""
    return "\n".join(f"- {spec.name}: {spec.description}" for spec in REGISTRY.values())
