"""Slot patterns: the values a customer's words carry (order numbers, phones, emails, addresses, notification
preferences, contact channels, carriers, names), normalised; none of them decides what the customer wants.
Boundaries are ASCII classes rather than ``\\b``, because Chinese characters count as word characters (in
"订单ORD-2025-0816" there is no ``\\b`` before "ORD"). See docs/offline-model.md.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from dataclasses import dataclass

from . import dates
from .speech import HAN, NOT_ABBREVIATED

# ---- order numbers ---------------------------------------------------------------------------

_ORDER_RE = re.compile(r"(?<![A-Za-z0-9])ORD[-_ ]?(\d{4})[-_ ]?(\d{4,6})(?![0-9])", re.I)


# Order numbers as people paste them: full-width or styled letters and digits (NFKC folds them), other dashes,
# and invisible characters between.
_DASHES = dict.fromkeys(map(ord, "\u2010\u2011\u2012\u2013\u2014\u2015\u2212\ufe58\ufe63"), "-")
_INVISIBLE = re.compile("[\u00ad\u200b-\u200f\u202a-\u202e\u2060-\u2064\ufeff]")
# Something given as an order number ("ORD 2025/0931", "order 0931", "订单号0931", "#0931") that is not one.
_ORDER_LIKE = re.compile(
    r"(?i)(?<![A-Za-z])ORD\W{0,3}\d|(?:订单号?|单号|\border(?:\s+(?:no\.?|number|num|#))?)\s*[#:：]?\s*\d{3,}|#\s*\d{3,}"
)


def _plain(text: str) -> str:
    return _INVISIBLE.sub("", unicodedata.normalize("NFKC", text)).translate(_DASHES)


def order_numbers(text: str) -> list[str]:
    """Return the order numbers in `text`, upper-cased as ORD-YYYY-NNNN, first mention first; the ends listed
    right after one in full are of the same year ("ORD-2025-0816和0901", "ORD-2025-0941, 0942 and 0943")."""
    plain = _plain(text)
    seen: list[str] = []
    for m in _ORDER_RE.finditer(plain):
        year, digits, at = m.group(1), m.group(2), m.end()
        for value in [f"ORD-{year}-{digits}", *_listed_after(plain, at, year, len(digits))]:
            if value not in seen:
                seen.append(value)
    return seen


def _listed_after(text: str, at: int, year: str, width: int) -> list[str]:
    """The order numbers whose ends of ``width`` digits are listed from ``at`` on, of ``year``."""
    listed = []
    while found := _another_end(width).match(text, at):
        listed.append(f"ORD-{year}-{found.group(1)}")
        at = found.end()
    return listed


@functools.cache
def _another_end(width: int) -> re.Pattern[str]:
    """Another order's end of ``width`` digits, after a word or mark that lists it; never an amount or a time."""
    return re.compile(
        rf"\s*(?:和|与|跟|同|及|、|,|，|/|&|(?i:and|or|plus))\s*(\d{{{width}}})(?![\d:/%.-])"
        r"(?!\s*(?:元|块|蚊|号|年|月|日|天|小时|分|楼|室|件|个|次|(?i:usd|rmb|yuan|dollars?|bucks|euros?|pounds?)\b))"
    )


# The end of an order number given alone ("0790", "尾号0901", "order #0931"): 3 to 6 digits standing on their
# own, not an amount, a date, a time, a size or part of an address.
_ORDER_TAIL = re.compile(
    r"(?<![\d:/¥$￥€£A-Za-z-])(?<!\d[.,])(?!(?<=[退赔补返减扣])\d{3}(?!\d))(\d{3,6})"  # "退500的", "减100": money
    r"(?![\d/%A-Za-z-]|:\d|[.,]\d|\s*(?:元|块|号|年|月|日|天|小时|分(?!别)|楼|室|栋|层|件|个|次|斤|米|克|岁|(?i:usd|rmb|yuan|dollars?)\b)"
    # a sum of money: "599减100", "320 minus 50"
    r"|\s*(?:减去?|扣|加|(?i:minus|plus|less)\b)\s*[$¥￥]?\s*[\d一二两三四五六七八九十百]"
    # a house number: "221 baker st", "12 oak lane" (a street word within two words after it)
    r"|\s+(?:(?!(?i:on|the|its|to|my|is|in|at|an?|and|or|still|now)\b)[A-Za-z'-]+\s+){1,2}?"
    r"(?i:st|street|rd|road|ave|avenue|lane|ln|blvd|boulevard|terrace|crescent|square|sq)\b)"
)


# The end of an order number said as such ("尾号17", "以02结尾", "最后三位816", "ending in 31"): any length.
_CUED_TAIL = re.compile(
    r"(?:尾号|尾数|末尾是?|结尾是?|最后[一二两三四五六1-6]位(?:是|数)?|后[一二两三四五六1-6]位(?:是)?)\s*(\d{1,6})"
    r"|(?:以|是)?\s*(\d{1,6})\s*(?:结尾|收尾)"
    r"|(?i:\b(?:ending|ends)\s+(?:in\s+|with\s+)?(\d{1,6})\b|\blast\s+(?:\w+\s+)?digits?\s+(?:are\s+|is\s+)?(\d{1,6})\b)"
)


_ORDER_WORD = re.compile(r"单|包裹|快递|货|(?i:\b(?:orders?|parcels?|packages?|shipments?|purchases?)\b)")


# A carrier's tracking number ("SF1234567890", "JD014600006281", "1Z999AA10123456784"): never an order's.
_TRACKING_NUMBER = re.compile(
    r"(?<![A-Za-z0-9])(?:1Z[0-9A-Z]{16}|(?:SF|JD|YT|ZTO|YD|STO|EMS|JT)[0-9]{9,15}|[A-Z]{2}[0-9]{9}[A-Z]{2})(?![A-Za-z0-9])",
    re.I,
)


def tracking_numbers(text: str) -> list[str]:
    """The carriers' tracking numbers in ``text``, upper-cased."""
    return [m.group().upper() for m in _TRACKING_NUMBER.finditer(_plain(text))]


# An order named by its end as an order ("0816这单", "订单0816", "order #0816"): never a number of the address.
ORDER_BY_ITS_END = re.compile(
    r"(?<![\d-])\d{3,6}\s*(?:这单|那单|这个订单|订单|的订单|单子|的?(?:收货)?地址)|(?:订单|尾号|(?i:\border\s*#?|#))\s*\d{3,6}(?!\d)"
    # a message that opens with the number ("0902能改地址吗，改到…"): a Chinese address opens with its city, never a
    # bare number, and an English one gives the street after it
    r"|^\s*(?:那|那么|还有|另外|对了|那个)?[，,\s]*\d{3,6}(?=\s*[\u4e00-\u9fff])(?!\s*(?:号|室|楼|栋|层|弄|路|街|巷|元|块))"
    # "the delivery address on 0932", "address for 0816": never a street number, which a street's name follows
    r"|\b(?:[Oo]n|[Ff]or|[Oo]f)\s+#?\d{3,6}(?![\d,]|\s+[A-Z][a-z])"
    r"|(?i:\b(?:send|ship|deliver|redirect|forward|post)\s+#?\d{3,6}(?=\s+(?:to|there)\b))"  # "send 0932 to …"
    r"|(?i:\b(?:is|was|are)\s+#?\d{3,6}\s+(?:going|headed|being\s+sent|sent|shipped|delivered)\b)"  # "is 0923 going to"
    r"|(?i:^\s*#?\d{4}(?=\s*[,:]?\s*(?:can|could|pls|please|change|ship|send|deliver)\b))"
)
# An order spoken of just before, named as "this order": its own address is meant, not the default one.
THIS_ORDER = re.compile(r"这单|这个订单|这笔订单|该订单|那单|(?i:\b(?:this|that|the\s+same)\s+order\b)")


def names_an_order(text: str) -> bool:
    """Whether ``text`` names an order: its number, its end as an order's ("order 0932", "0816这单", "尾号17") or
    "this order". An address in such a sentence is that order's, not the customer's."""
    plain = _plain(text)
    return bool(
        order_numbers(text) or ORDER_BY_ITS_END.search(plain) or THIS_ORDER.search(plain) or _CUED_TAIL.search(plain)
    )


def names_an_order_end(text: str) -> bool:
    """Whether ``text`` gives the end of an order's number as such ("尾数943那单付款了没"): a question about
    that order, whatever else it is read as."""
    return bool(_CUED_TAIL.search(_plain(text))) and bool(_ORDER_WORD.search(text)) and not order_numbers(text)


def order_tail(text: str) -> str | None:
    """The digits an order number ends in, when the message gives only those (one such number, no full order
    number): the customer's orders are looked up for the one that ends in them."""
    tails = order_tails(text)
    return tails[0] if len(tails) == 1 else None


def order_tails(text: str) -> list[str]:
    """Every number in a message without a full order number that may end one ("0941那个…太贵了1299呢": 0941 and
    1299, of which the customer's orders tell which is an order's); a cued one ("尾号17") first, whatever its
    length, then the others ("尾号17的那个退款，还有0790那个也退了吧": 17 and 0790)."""
    if order_numbers(text):
        return []
    plain = _plain(text)
    cued = []
    for found in _CUED_TAIL.finditer(plain):
        cued.append(next(group for group in found.groups() if group))
        plain = plain[: found.start()] + " " * (found.end() - found.start()) + plain[found.end() :]
    for date in dates.find_dates(plain):  # "placed on November 30, 2026": its year is no order's end
        plain = plain[: date.start] + " " * (date.end - date.start) + plain[date.end :]
    return list(dict.fromkeys([*cued, *(m.group(1) for m in _ORDER_TAIL.finditer(plain))]))


def unreadable_order(text: str) -> bool:
    """Whether ``text`` gives something as an order number that is not one: the agent then asks for it again
    rather than answering about another order."""
    return not order_numbers(text) and not order_tails(text) and bool(_ORDER_LIKE.search(_plain(text)))


# ---- things never to keep --------------------------------------------------------------------

_SENSITIVE = [
    re.compile(
        r"(?i)(?:\bpassword\b|\bpasscode\b|\bpasswd\b|\bpin(?:\s*code)?\b|密码|口令)\s*(?:is|was|:|：|是|为|=)?\s*[^\s，。,;；]+"
    ),
    re.compile(
        r"(?i)(?:\bcard(?:\s*number)?\b|卡号|银行卡号?|信用卡号?|\bcvv\b|\bcvc\b|\bsecurity\s+code\b)[^0-9]{0,20}"
        r"[0-9][0-9 \-]{2,25}[0-9]"
    ),
    re.compile(
        r"(?i)(?:身份证(?:号码?)?|\bid\s*(?:card\s*)?number\b|\bnational\s+id\b|\bpassport(?:\s+number)?\b|"
        r"护照号?|\bssn\b|\bsocial\s+security(?:\s+number)?\b)[^0-9A-Za-z]{0,20}[0-9A-Za-z][0-9A-Za-z \-]{4,24}"
    ),
    re.compile(r"(?<![A-Za-z0-9+])(?:[0-9][ \-]?){12,18}[0-9](?![0-9])"),  # card-length digit runs
    re.compile(r"(?<![0-9])[0-9]{17}[0-9Xx](?![0-9A-Za-z])"),  # resident ID
    re.compile(r"(?<![0-9])[0-9]{3}-[0-9]{2}-[0-9]{4}(?![0-9])"),  # SSN
]
REDACTED = "[redacted]"


def redact_sensitive(text: str) -> str:
    """Blank out card numbers, national ID numbers and passwords before anything reads `text`."""
    for pattern in _SENSITIVE:
        text = pattern.sub(REDACTED, text)
    return text


def has_sensitive(text: str) -> bool:
    return redact_sensitive(text) != text


# ---- phones and emails -----------------------------------------------------------------------

# An amount of money the customer names: a currency sign before it, or a unit after ("$50", "150块", "20 quid").
MONEY_RE = re.compile(
    r"[¥￥$€£]\s?(\d[\d,]*(?:\.\d+)?)"
    r"|(\d[\d,]*(?:\.\d+)?)\s?(?:元|块|(?i:rmb|yuan|usd|cny|gbp|eur|dollars?|bucks|quid|pounds?|euros?)\b)"
)


# An amount named as one without a sign or unit: "金额改成500哈", "refund amount 300".
_MONEY_NAMED = re.compile(
    r"(?:金额|退款额)(?:改成|改为|换成|是|为|要|改)?\s*(\d[\d,]*(?:\.\d+)?)(?![\d号%])"
    r"|(?i:\bamount\s+(?:of\s+|to\s+|is\s+|=\s*)?(\d[\d,]*(?:\.\d+)?)\b)"
    r"|(?:只|就)?退(?:给)?我\s*([1-9][\d,]*(?:\.\d+)?)(?![\d号%的单])"  # "0901退我300就行"
)


_ZH_DIGIT = dict(zip("零〇一二两三四五六七八九", (0, 0, 1, 2, 2, 3, 4, 5, 6, 7, 8, 9), strict=True))
_ZH_UNIT = {"十": 10, "百": 100, "千": 1000, "万": 10000}
# An amount in Chinese numerals before its unit: "一百七十八块", "两千二百元", "三十九块钱".
_ZH_AMOUNT = re.compile(r"([零〇一二两三四五六七八九十百千万]+)(?=\s*(?:块|元|蚊|多(?:块|元|蚊|的|那)))")


def zh_integer(numeral: str) -> int | None:
    """A whole number written in Chinese numerals ("一百七十八" → 178, "一百五" → 150, "两千零九" → 2009), or
    ``None`` when it is not one."""
    total, digit, unit_before = 0, None, 0
    for ch in numeral:
        if ch in _ZH_DIGIT:
            digit = _ZH_DIGIT[ch]
            continue
        unit = _ZH_UNIT.get(ch)
        if unit is None or (unit_before and unit >= unit_before and unit != 10000):
            return None
        total = (total + (1 if digit is None else digit)) * unit if unit == 10000 else total + (digit or 1) * unit
        digit, unit_before = None, unit
    if digit is not None:  # "一百五": the last digit counts one place below the unit before it
        spoken_short = unit_before >= 100 and numeral[-2] in _ZH_UNIT
        total += digit * (unit_before // 10 if spoken_short else 1)
    return total if numeral else None


def with_zh_amounts_as_digits(text: str) -> str:
    """``text`` with amounts in Chinese numerals written in digits ("一百七十八块的那单" → "178块的那单")."""
    return _ZH_AMOUNT.sub(lambda m: str(n) if (n := zh_integer(m.group(1))) is not None else m.group(1), text)


def money_asked(text: str) -> float | None:
    """The one amount of money ``text`` names, or ``None`` (none, or several different ones)."""
    plain = with_zh_amounts_as_digits(_plain(text))
    found = ["".join(groups) for pattern in (MONEY_RE, _MONEY_NAMED) for groups in pattern.findall(plain)]
    amounts = {float(amount.replace(",", "")) for amount in found}
    return amounts.pop() if len(amounts) == 1 else None


_EMAIL_RE = re.compile(r"[A-Za-z0-9._%+\-]+@[A-Za-z0-9\-]+(?:\.[A-Za-z0-9\-]+)*\.[A-Za-z]{2,}")
_PHONE_RE = re.compile(r"(?<![A-Za-z0-9+\-/.])(\+?)([0-9(][0-9 ()\-]{5,20}[0-9])(?![A-Za-z0-9\-/])")
_PHONE_CUE = re.compile(r"(?i)电话|手机|号码|联系方式|phone|mobile|cell|number|tel\b|call|text me|reach me")
_US_FORMAT = re.compile(r"^\(?\d{3}\)?[ \-]\d{3}[ \-]\d{4}$")
_DATE_LIKE = re.compile(r"^\d{4}-\d{1,2}-\d{1,2}$|^\d{1,2}-\d{1,2}$")
_DATE_TIME = re.compile(
    r"(?<!\d)\d{4}[-/.]\d{1,2}[-/.]\d{1,2}(?:[ T]\d{1,2}:\d{2}(?::\d{2})?)?(?!\d)|(?<!\d)\d{1,2}:\d{2}(?!\d)"
)


def emails(text: str) -> list[str]:
    """Return email addresses, lower-cased."""
    return list(dict.fromkeys(m.group().lower().rstrip(".") for m in _EMAIL_RE.finditer(text)))


def phone_spans(text: str) -> list[tuple[str, str]]:
    """Return (as written, normalised) for each phone number in `text`.

    Unambiguous shapes (+country, Chinese mobiles, (555) 123-4567) count anywhere; other digit
    runs only when the sentence talks about a phone.
    """
    blanked = _ORDER_RE.sub(lambda m: " " * len(m.group()), _EMAIL_RE.sub(lambda m: " " * len(m.group()), text))
    # a date and a time are no number to call: "call back by 2026-12-05 17:41" read as 2026120517
    blanked = _DATE_TIME.sub(lambda m: " " * len(m.group()), blanked)
    cue = bool(_PHONE_CUE.search(blanked))
    found: list[tuple[str, str]] = []
    for m in _PHONE_RE.finditer(blanked):
        plus, body = m.group(1), m.group(2).strip()
        digits = re.sub(r"\D", "", body)
        if not 7 <= len(digits) <= 15 or _DATE_LIKE.match(body):
            continue
        strong = bool(plus) or re.fullmatch(r"1[3-9]\d{9}", digits) or _US_FORMAT.match(body)
        if strong or cue:
            found.append((m.group().strip(), plus + digits))
    return found


def phones(text: str) -> list[str]:
    """Return phone numbers as digits (with a leading + if one was written)."""
    return list(dict.fromkeys(value for _, value in phone_spans(text)))


# ---- addresses -------------------------------------------------------------------------------

_ZH_MARKERS = "省市区县镇乡村路街道巷弄号室栋幢楼层座"
# A run of address text. Spaces may stand inside it before a number or a Han character ("科技园路 12 号
# 3 栋 1201 室", as the shop itself writes addresses): where the address ends is decided below.
_ZH_RUN = re.compile(
    r"[\u4e00-\u9fff0-9A-Za-z#\-－]+(?:[ \u3000]+(?=[0-9A-Za-z\u4e00-\u9fff])[\u4e00-\u9fff0-9A-Za-z#\-－]+)*"
)
_ZH_TRIGGERS = re.compile(
    r"(?:地址|收货地址|新地址|住址)?(?:是|为|系|(?:改|换|变|更新|修改|更改|变更|调整|设|设置|写|填)(?:成|为|回|到))"
    r"|(?:改|换|转)(?:做|去)"  # Cantonese: "将地址改做上海市…", "应该系上海市…"
    r"|只要|只需|只写"  # "地址重复了 只要杭州市…": the address alone
    r"|寄到|送到|发到|邮寄到|寄去|搬到|搬去|住在|位于|在|到|："
    r"|[住发寄](?=[^，。\s]{1,5}[省市])"  # "现在住合肥市…", "快递发吉林省…" (not "发展大道")
)
_ZH_TAIL = re.compile(
    r"(?:了|吧|呢|吗|嘛|啊|哦|呀|哈|的|上班|工作|住|就行|就好|即可)+$"
)  # "…11号上班": where they work
_ZH_END = re.compile(
    r"(?:号(?:楼|院)?|室|楼|栋|幢|层|座|单元|区|县|镇|乡|村|路|街|巷|弄|道|大厦|小区|花园|公寓|园|广场|中心)$"
    # a room or floor after the building, in digits and letters: "2 号楼 301", "A 座 2305", "18F", "2栋18-3"
    r"|(?:号|楼|栋|幢|座|层|单元|院|区|大厦|中心|广场|园|苑|小区|公寓|大楼|(?i:soho|tower|plaza))"
    # … or after a park's or a tower's name: "天府软件园 E3", "望京SOHO T3 1802"
    r"\s*[A-Za-z]?\d[0-9A-Za-z]{0,5}(?:[-－]\d{1,4}){0,2}(?:\s+\d{1,5}(?:室)?)?$"
)

_STREET_WORDS = (
    "street|st|road|rd|avenue|ave|lane|ln|boulevard|blvd|drive|dr|way|court|ct|place|pl|terrace|"
    "close|crescent|square|sq|highway|hwy|parkway|pkwy|row|alley"
)
# Street words that are everyday words too ("a walk up the hill"): an address ending in one is taken only
# when its street is written as a name and a town or a postcode follows ("1 Riverside Walk, Nottingham").
_NAMED_STREET_WORDS = (
    "walk|hill|parade|view|gardens|mews|grove|green|rise|quay|wharf|circus|esplanade|promenade|broadway|park|"
    "gate|vale|heights|plaza|circle|cir|trail|path|loop|point|cove|ridge|commons|yard|walkway|embankment"
)
_NAMED_ONLY = frozenset(_NAMED_STREET_WORDS.split("|"))
_POSTCODE = (
    r"[A-Z]{1,2}\d[A-Z\d]?\s*\d[A-Z]{2}"  # UK: "CB4 3HT", "SW1A 1AA"
    r"|[A-Z]\d[A-Z]\s?\d[A-Z]\d"  # Canada: "K1M 1M4"
    r"|[A-Z]\d{2}\s?(?=[A-Z0-9]{0,3}\d)[A-Z0-9]{4}"  # Ireland: "D06 YX21"
)
_POSTAL = rf"(?i:{_POSTCODE})|\d{{4,6}}(?:-\d{{4}})?"  # a postcode in any case, or a ZIP
_UNIT_ID = r"(?:#\s?)?(?:[A-Za-z]?\d[\w/\-]*|[A-Z]\b)"  # "12B", "#5", "B": never a word ("a new flat at …")
_BUILDING = r"(?:[A-Z][\w'\-]*\s+){0,3}[A-Z][\w'\-]*"  # "Flat 5, Harbour View, 12 Marine Parade"
# What may come before the number: a flat or unit ("Unit 5, 120 George St"), a house's name ("Rose Cottage, 2 …").
_LEAD = (
    r"(?:(?i:c/o)\s+[A-Z][\w'\-]*(?:\s+[A-Z][\w'\-]*){0,3},\s*)?"  # "c/o Mary Jones, …": the address is theirs
    r"(?:\d{1,3}(?i:st|nd|rd|th)\s+(?i:floor),\s*)?"  # "4th floor, 1600 …"
    # "Flat B, 12/F, 688 Nathan Road": a Hong Kong floor after the flat
    rf"(?:(?i:apt|apartment|suite|unit|flat|room|rm)\.?\s*{_UNIT_ID},?\s+(?:\d{{1,3}}/[Ff],?\s+)?(?:{_BUILDING},\s+)?"
    r"|(?i:blk|block)\s+(?=\d)"
    r"|(?i:unit|apt|flat)\s+(?=\d+/\d)"  # "Unit 5/22 Smith St": unit 5 at number 22
    r"|(?:[A-Z][\w'\-]*\s+){0,3}(?i:cottage|house|farm|lodge|barn|hall|manor|mill|villa),\s+)?"
)
_HOUSE = r"\d{1,6}[A-Za-z]?(?:[/\-]\d{1,6}[A-Za-z]?)?"  # "2/14 Byres Road", "301-1250 Burnaby Street"
# the street word first, as in French, Spanish, Italian, Portuguese, Welsh: "4567 Rue Saint-Denis"
_STREET_FIRST = r"(?P<first>(?i:rue|chemin|avenida|calle|carrer|via|viale|rua|heol|ffordd)(?:\s+[\w'\-]+){1,3})"


# A flat or a house's name in place of a house number ("Flat 3, Mill Road, …", "Rose Cottage, Mill Lane, …").
_NO_NUMBER_LEAD = (
    rf"(?:(?i:apt|apartment|suite|unit|flat)\.?\s*{_UNIT_ID},?\s+(?:{_BUILDING},\s+)?"
    r"|(?:[A-Z][\w'\-]*\s+){0,3}(?i:cottage|house|farm|lodge|barn|hall|manor|mill|villa),\s+)"
)


def _address_re(town_initial: str, *, postal_last: bool, numbered: bool = True) -> re.Pattern[str]:
    """The English-style address, the town's words starting with ``town_initial``; ``postal_last``: it must
    end in a postcode or ZIP (how an address typed all in lower case is told from the words after it);
    ``numbered``: a house number before the street, else a flat or a house's name (and a postcode)."""
    town_word = town_initial + r"[\w.'\-]*"
    segment = (
        rf",\s*\d{{4,5}}\s+{town_word}"  # the postcode before the town: "…, 75002 Paris"
        rf"|,?\s*(?:{_POSTAL})\b|,\s*{town_word}(?:\s+(?:{_POSTAL})\b|\s+{town_word})*"
        r"|\s+\d{1,2}\b(?![:./]\d)"  # a city's district: "Dublin 2"
    )
    town = rf"(?P<town>(?:{segment})*?,?\s*(?:{_POSTAL})\b)" if postal_last else rf"(?P<town>(?:{segment})*)"
    # an everyday street word ends the street only before a town or a postcode ("6490 Hill Road", not "Hill")
    everyday = rf"(?:{_NAMED_STREET_WORDS})(?=,\s*{town_initial}|,?\s*(?:{_POSTAL})\b)"
    street = (
        rf"(?P<street>(?:(?:[A-Za-z][\w'.\-]*|\d+(?i:st|nd|rd|th))\s+){{0,4}}?"
        rf"(?i:(?P<word>{_STREET_WORDS}|{everyday})))\b\.?|{_STREET_FIRST}"
    )
    country = (
        r"(?:,?\s*(?:United\s+Kingdom|UK|England|Scotland|Wales|Northern\s+Ireland|Ireland|USA|United\s+States|"
        r"Canada|Australia|New\s+Zealand|Singapore)\b)?"
    )
    house = rf"{_LEAD}(?:(?i:no)\.\s*)?{_HOUSE}\s+" if numbered else _NO_NUMBER_LEAD  # "No. 88 Jianguo Road"
    return re.compile(
        rf"(?<![A-Za-z0-9/\-]){house}(?:{street})"
        r"(?:\s+\d{1,3}\b)?(?:\s+(?:NE|NW|SE|SW|N|S|E|W|North|South|East|West|Upper|Lower)\b)?"
        rf"(?:,?\s*(?i:apt|apartment|suite|unit|flat|#)\.?\s*{_UNIT_ID}(?:\s+{_BUILDING})?)?{town}{country}"
    )


# Town words are capitalised ("…, Cambridge CB4 3HT"); typed in lower case they are taken only up to a postcode.
_EN_ADDRESS_RE = _address_re("[A-Z]", postal_last=False)
_EN_ADDRESS_LOWER_RE = _address_re("[A-Za-z]", postal_last=True)
_EN_UNNUMBERED_RE = _address_re("[A-Z]", postal_last=True, numbered=False)  # only with a postcode


def _en_address(text: str) -> str | None:
    """An address ending in a postcode is taken as typed; one whose street word is an everyday word ("walk",
    "via") needs its street written as a name and a town after it."""
    patterns = (_EN_ADDRESS_LOWER_RE, _EN_ADDRESS_RE, _EN_UNNUMBERED_RE)
    found = [m for pattern in patterns if (m := _first_address(pattern, text))]
    if not found:
        return None
    first = min(found, key=lambda m: (m.start(), -m.end()))  # the earliest, and of two there the longer
    address = first.group().strip()
    # a full stop that ends a sentence ends the address: "…, Leeds. Apply it now" (not "St. Albans")
    if ended := _SENTENCE_ENDS.search(address):
        address = address[: ended.start()]
    address = address.rstrip(",.")
    address += _town_typed_after(text[first.start() + len(address) :])
    return _without_the_request_after(address)


# Words of a request or a question, never of a place: where one follows the street, the address has ended
# ("5 Main St, York and refund ORD-2025-0923", "3 Rose Lane, Bath, can you also tell me where order 0924 is").
_REQUEST_WORD = re.compile(
    r"(?i)^(?:and|can|could|would|will|you|please|pls|plz|also|tell|where|what|when|why|how|is|are|refund|cancel|"
    r"track|order|orders|my|me|i|then|thanks?|thx|too|plus|instead|asap|kindly|cheers|now|today|tomorrow|"
    # "…, Portland OR 97201 thats where im living now": the sentence goes on, the address has ended
    r"thats|that's|that|where|im|i'm|i've|ive|living|live|lives|moved|moving|since|staying|been|"
    r"ORD-[\d-]+)$"
)


# A verb in lower case after the street asks us to do something with the address, never names a place: "9 Rose
# Court, Leeds LS2 7AB, send 0932 there" (its "0932" read as a ZIP once saved "…, send 0932" as an address).
_REQUEST_VERB = re.compile(r"^(?:send|ship|deliver|post|put|use|make|set|change|update|move|redirect|forward|there)$")


def _without_the_request_after(address: str) -> str:
    """``address`` up to the first word after its street that asks rather than names a place."""
    street_end = address.find(",")
    if street_end < 0:
        return address
    for m in re.finditer(r"[^\s,]+", address[street_end:]):
        if _REQUEST_WORD.match(m.group()) or _REQUEST_VERB.match(m.group()):
            return address[: street_end + m.start()].rstrip(" ,")
    return address


# The town, state, postcode or country typed after the street in lower case, without a comma ("10 downing
# street london", "12 oak lane apt 4 springfield il 62704 usa", "…, 75002 paris france"): the words up to the
# end of the clause, when none of them is one that speaks to us rather than names a place.
_TOWN_TYPED_AFTER = re.compile(r"^((?:\s+(?:[A-Za-z0-9][A-Za-z0-9'\-]*)){1,8})\s*(?=[,.;!?，。！？)）\n]|$)")
_NOT_A_TOWN_WORD = re.compile(
    r"(?i)^(?:please|pls|plz|kindly|thanks?|thx|ty|cheers|now|asap|today|tomorrow|instead|from|for|and|then|"
    r"ok|okay|right|too|also|is|it|that|this|my|the|to|as|of|on|in|at|by|with|if|so|but|or|yes|no|not|going|"
    r"forward|new|address|default|order|orders|ship|send|deliver|delivery|there|here|thank|you|please|"
    r"i|me|we|us|moved|live|living|change|update|set|make|it's|its|was|be|will|would|can|could|should|"
    r"since|until|till|starting|after|before|next|last|this|weeks?|days?|months?|years?|\d{1,2}|"
    r"mon|tue|wed|thu|fri|sat|sun|(?:mon|tues|wednes|thurs|fri|satur|sun)day|"
    r"jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t|tember)?|oct(?:ober)?|"
    r"nov(?:ember)?|dec(?:ember)?)$"
)


_NEW_PLACE = re.compile(r"(?i)(?:york|jersey|hampshire|mexico|orleans|delhi|zealand|haven|castle|port|bedford)\b")


def _town_typed_after(rest: str) -> str:
    """The place words of ``rest`` up to the first word that is none ("… cambridge cb1 2ad instead"), if every
    word after them is one too; at most five."""
    m = _TOWN_TYPED_AFTER.match(rest)
    if not m:
        return ""
    words = m.group(1).split()
    nots = [
        bool(_NOT_A_TOWN_WORD.match(word))
        and not (word.lower() == "new" and _NEW_PLACE.match(" ".join(words[i + 1 :])))
        for i, word in enumerate(words)
    ]  # "new york ny 10011": "new" names a place there
    for i, word in enumerate(words[:-1]):  # "… Portland OR 97201": a state's code before a ZIP, never the word "or"
        if len(word) == 2 and word.isupper() and re.fullmatch(r"\d{5}(?:-\d{4})?", words[i + 1]):
            nots[i] = False
    place = next((i for i, no in enumerate(nots) if no), len(words))
    if place == 0 or place > 5 or not all(nots[place:]):
        return ""
    return rest[: rest.find(words[place - 1]) + len(words[place - 1])]


_SENTENCE_ENDS = re.compile(NOT_ABBREVIATED + r"\.\s+(?=[A-Z])")


def _first_address(pattern: re.Pattern[str], text: str) -> re.Match[str] | None:
    for m in pattern.finditer(text):
        everyday = m.group("first") or (m.group("word") or "").lower() in _NAMED_ONLY
        if everyday and pattern is _EN_ADDRESS_RE:
            named = all(word[0].isupper() or word[0].isdigit() for word in (m.group("street") or "").split())
            if not (named and m.group("town")):
                continue
        return m
    return None


# Bounds on what is tried in a run with spaces, so that a message of "1 1 1 …" stays cheap: an address is
# shorter than this, and starts and ends within the run's first spaces.
_ZH_ADDRESS_MAX = 120
_ZH_SPACES_TRIED = 16


def _zh_address(text: str) -> str | None:
    """The longest stretch of a run that reads as a Chinese address. A run with spaces may hold words
    before or after it: the address may start or stop at any of its spaces ("想改一下收货地址 广东省…号",
    "…398 号 以后寄这里")."""
    best: str | None = None
    for m in _ZH_RUN.finditer(text):
        whole = m.group()
        spaces = [i for i, ch in enumerate(whole) if ch in " \u3000" and whole[i - 1] not in " \u3000"]
        spaces = spaces[:_ZH_SPACES_TRIED]
        for start in [0, *spaces]:
            for end in [e for e in [*spaces, len(whole)] if start < e <= start + _ZH_ADDRESS_MAX]:
                candidate = _zh_candidate(whole[start:end])
                if candidate and (best is None or len(candidate) > len(best)):
                    best = candidate
    return best and best + _building_after(text, best)


# The building and room after a comma ("…高新南七道18号，深圳湾科技生态园10栋B座 2501"): part of the address.
_ZH_BUILDING = re.compile(
    r"^[，,]\s*([\u4e00-\u9fff0-9A-Za-z#\-－ ]{2,40}?(?:栋|幢|座|楼|层|室|单元|号楼|大厦|中心|广场)"
    r"(?:\s*[A-Za-z]?\d[0-9A-Za-z]{0,5}(?:[-－]\d{1,4}){0,2}(?:室)?)?)(?=\s*(?:[，,。.!！?？；;]|$))"
)
_NOT_A_PLACE = re.compile(r"收件人|联系人|电话|手机|谢谢|麻烦|改成|换成|以后|地址")


def _building_after(text: str, address: str) -> str:
    """The building and room that follow ``address`` after a comma, as written, or nothing."""
    at = text.find(address)
    m = _ZH_BUILDING.match(text[at + len(address) :]) if at >= 0 else None
    if not m or _NOT_A_PLACE.search(m.group(1)):
        return ""
    return m.group()


_LEADS_IN = re.compile(
    r"改|换|变|更|修|搬|迁|移|址|想|要|帮|请|麻烦|收货|寄|送|发|新|是|为|到|成|我|的|吧|下|哈|呢|啊|嗯|一"
)


def _place_without_suffix(part: str) -> bool:
    """Whether a run's first part is a place written without 省/市/区 ("上海", "浦东"): two to four Han
    characters, none of the words that lead into an address."""
    return bool(re.fullmatch(r"[\u4e00-\u9fff]{2,4}", part)) and not _LEADS_IN.search(part)


# Where the words after an address begin, with no comma before them: "…2单元501室我下个月搬过去".
_ZH_AFTER_THE_ADDRESS = re.compile(r"(?<=[号室楼层栋座])(?:我|你|下个?月|下周|以后|之后|从|搬|谢谢|麻烦)")


def _zh_candidate(run: str) -> str | None:
    """``run`` without the words that lead into an address, if what is left reads as one."""
    if after := _ZH_AFTER_THE_ADDRESS.search(run):
        run = run[: after.start()]
    cut = 0
    first_marker = min((run.find(c) for c in "省市区县路街" if c in run), default=len(run))
    for t in _ZH_TRIGGERS.finditer(run):
        if t.end() <= first_marker:  # only a trigger before the first place marker can be filler (改成北京市…)
            cut = t.end()
    candidate = _ZH_TAIL.sub("", run[cut:].strip())
    # lead-in words, but never a place's own first character ("新疆")
    candidate = re.sub(r"^(?:我的|我家|我|的|新(?=的?(?:地址|家|住址))|收货|地址|住址|是|为)+", "", candidate).strip()
    candidate = re.sub(r"(?<=[\u4e00-\u9fff])(?:那个|这个)(?=[\u4e00-\u9fff])", "", candidate)  # "杭州那个文三路…"
    markers = sum(1 for ch in candidate if ch in _ZH_MARKERS)
    parts = candidate.split()
    # "想改一下收货地址 广东省…" leads in; "上海 浦东 张江路…" names the city and district without their suffixes
    lead_in = len(parts) > 1 and not any(ch in _ZH_MARKERS for ch in parts[0]) and not _place_without_suffix(parts[0])
    looks_like_address = markers >= 2 and _ZH_END.search(candidate) and HAN.search(candidate)
    return candidate if looks_like_address and not lead_in else None


# The number of an item in a list the customer writes ("1.通知关掉 2.联系方式改成短信 3.…", "(2) refund …", "②"):
# a boundary, never part of the request (nor a decimal point: "¥3.5" has a digit after it).
LIST_MARKER = re.compile(r"(?:^|(?<=[\s，,；;。]))\s*(?:[(（]?[1-9][0-9]?[.、)）]|[①-⑩])(?=\s+\S|\s*[^\d\s])")


def without_list_numbers(text: str) -> str:
    """``text`` with the numbers of a list it holds (two or more) as boundaries: "…88号 2. 通知打开" ends at 号."""
    return LIST_MARKER.sub("；", text).strip("； ") if len(LIST_MARKER.findall(text)) >= 2 else text


def address(text: str) -> str | None:
    """Return the postal address in `text`, trimmed, or None."""
    text = without_list_numbers(text)
    found = _en_address(text) or _zh_address(text)
    # Cantonese 係 ("it is") before the street is no part of it: "唔係呀，係天河路383号 8楼"
    return re.sub(r"^(?:係|系)(?=[\u4e00-\u9fff]{2})", "", found) if found else found


# ---- notification preference -----------------------------------------------------------------

_NOUN_ZH = r"(?:通知|推送|提醒|消息提醒|消息推送|短信提醒|提示音)"
_NOUN_EN = (  # whole words: "shipping" holds "ping"
    r"\b(?:notif\w*|alerts?|push(?:\s+notifications?)?|ping(?:s|ed|ing)?|reminders?|"
    r"(?:text|sms|email|e-mail|promotional|marketing)\s+(?:messages?|notifications?|alerts?))\b"
)
_UNMUTE = re.compile(
    r"(?:取消|解除|关闭|关掉|退出|去掉)(?:静音|免打扰|勿扰)|(?:不要|别|不再|不用|无需|不必|没必要|不)再?(?:设置?成?|开)?静音|恢复通知|重新开启|不要关闭"
    + _NOUN_ZH
    + r"|别关|把(?:静音|免打扰)(?:模式)?[^，。]{0,2}(?:取消|关掉|关闭|解除|去掉)"
    r"|(?i:\bun-?mute\b|turn\s+off\s+(?:the\s+)?mute|(?:don'?t|do\s+not|stop)\s+mut(?:e|ing)"
    r"|(?:didn'?t|didnt|did\s+not|never)\s+(?:want|ask(?:ed)?\s+for|mean\s+to)\s+(?:[\w']+\s+){0,3}?(?:muted|mute|silenced)"
    r"|(?:don'?t|do\s+not)\s+(?:turn|switch)\s+off)"
)
_OFF = re.compile(
    rf"(?:关闭|关掉|关了|关上|停掉|停止|取消|屏蔽|禁用|不要|别|不用|不想(?:再)?(?:收到|接收|要)|拒收|拒绝)"
    rf"(?:(?!开启|打开)[^，。,.!?！？]){{0,6}}?{_NOUN_ZH}"
    rf"|{_NOUN_ZH}[^，。,.!?！？]{{0,4}}?(?:关(?!于|心|注|系|联)|停掉|静音|屏蔽|别发|不要发|别再发|不用发|不用再发)"
    rf"|(?<![不别要])关(?={_NOUN_ZH})|(?:别|不要|不用)再?推了?"
    rf"|{_NOUN_ZH}[^。!?！？]{{0,12}}?(?:以后|今后)?(?:不用|不要|别)(?:再)?发|取消订阅|退订"
    r"|静音|免打扰|勿扰|(?:别|不要)再?(?:给我)?发(?:消息|通知|短信|推送)"
    rf"|(?i:\bmute\b|\bsilence\b|do\s+not\s+disturb|\bdnd\b|unsubscribe|opt\s+(?:me\s+)?out"
    rf"|(?:turn|switch|shut)\s+(?:(?:all|the|my|your|these|those|of)\s+)*{_NOUN_EN}\s+off"
    rf"|(?:turn|switch|shut)\s+off\s+(?:[\w']+\s+){{0,3}}?{_NOUN_EN}"
    rf"|(?:disable|stop|pause|block|silence|no\s+more|(?:don'?t|do\s+not)\s+(?:want|need|send)|"
    rf"stop\s+sending|quit\s+sending|without)\s+(?:[\w']+\s+){{0,3}}?{_NOUN_EN}"
    rf"|(?:don'?t|do\s+not|never)\s+(?:notify|ping|text)\s+me|stop\W+(?:notifying|pinging|messaging)\W+me|"
    rf"(?:prefer|rather|want)\s+not\s+(?:to\s+)?(?:receive|get)\s+(?:[\w']+\s+){{0,3}}?{_NOUN_EN}|"
    rf"enough\s+(?:with\s+|of\s+)?(?:(?:the|these|all|your)\s+)*{_NOUN_EN}|"
    rf"(?:don'?t|do\s+not)\s+want\s+to\s+be\s+notified|(?:stop|turn\s+off|no\s+more|mute)\s+(?:all\s+)?(?:the\s+)?"
    rf"(?:update\s+messages|updates)\b|{_NOUN_EN}\s*(?:(?:to|as|[:=])\s*)?(?:off|muted|silent|disabled)\b)"
)
_ON = re.compile(
    rf"(?:开启|打开|开通|开一下|恢复|接收|想要|需要|想收到|要收到|重新启用|启用|我要开|要开)[^，。,.!?！？]{{0,4}}?{_NOUN_ZH}"
    rf"|{_NOUN_ZH}[^，。,.!?！？]{{0,4}}?(?:打开|开启|开着|恢复|开起来|开一下|开了|开通|启用|重新启用)"
    rf"|(?i:(?:turn|switch)\s+on\s+(?:[\w']+\s+){{0,3}}?{_NOUN_EN}"
    rf"|(?:turn|switch)\s+(?:(?:all|the|my|your|these|those)\s+)*{_NOUN_EN}\s+(?:back\s+)?on\b"
    rf"|(?:enable|resume|re-?enable|restore|activate|start\s+sending)\s+(?:[\w']+\s+){{0,3}}?{_NOUN_EN}"
    rf"|(?:want|like|love|need|happy|glad|keen)\s+(?:to\s+)?(?:get|receive|have)\s+(?:[\w']+\s+){{0,2}}?{_NOUN_EN}"
    rf"|opt\s+(?:me\s+)?(?:back\s+)?in\b|send\s+(?:me\s+)?(?:the\s+|my\s+)?{_NOUN_EN}\s+(?:again|after\s+all)"
    rf"|{_NOUN_EN}\s*(?:[:=]\s*|\s(?:are|is|be|get)\s+)?(?:(?:turned|switched)\s+)?(?:back\s+)?on\b"
    r"(?!\s+(?:my|the|your|a|an|this|that|these|those|his|her|our|their|every|each|\w+day)\b)"
    rf"|(?:receive|receiving|get|getting)\s+(?:[\w']+\s+){{0,2}}?(?:{_NOUN_EN}|updates)\s+again"
    rf"|(?:set|change|switch|put|turn)\s+(?:[\w']+\s+){{0,2}}?{_NOUN_EN}\s*(?:to|as|[:=])\s*(?:on|enabled|active)\b)"
)
NOTIFICATION_NOUN = re.compile(rf"{_NOUN_ZH}|静音|免打扰|(?i:{_NOUN_EN}|\bmuted?\b)")


# Said of notifications named earlier in the message ("too many updates, switch them off"; "通知太多了，帮我关掉").
_PRONOUN_NOUN = re.compile(NOTIFICATION_NOUN.pattern + r"|消息|促销|营销|广告|(?i:\bupdates\b|\bmessages\b)")
_PRONOUN_OFF = re.compile(
    r"(?i)(?:turn|switch|shut)\s+(?:them|it|those|these|that)\s+off|(?:disable|stop|mute|silence)\s+(?:them|those|these)\b"
    r"|make\s+(?:it|them)\s+stop|把(?:它们?|这些|那些)关|(?:别|不要)再?发了?\s*[。！!.]*$"
    r"|(?:关掉|关了|关闭|关上|屏蔽|停掉)(?:掉|了|吧|呗|它们?)*\s*[。！!.]*$"
)
_PRONOUN_ON = re.compile(
    r"(?i)(?:turn|switch)\s+(?:them|it|those|these|that)\s+(?:back\s+)?on|(?:enable|resume)\s+(?:them|those|these)\b"
    r"|把(?:它们?|这些|那些)(?:重新)?(?:打开|开启)|(?:(?:重新|再)?(?:打开|开启|恢复)|(?:重新|再)开)(?:一下)?(?:吧|了|呗)?\s*[。！!.]*$"
    r"|(?:还是|就)开着(?:吧|就行|就好|呗)?|(?:keep|leave)\s+(?:them|it|those|these)\s+on\b"
)
# "都通知我", "还是通知我吧" ask to be notified ("别通知我" does not; "发短信通知我" names a channel).
_NOTIFY_ME = re.compile(r"(?:都|要|请|记得|还是|也|就)通知我(?!们)")


# The customer's phone on silent is how they live, not a setting of ours: "我手机经常静音", "my phone's on mute".
_PHONE_ON_SILENT = re.compile(
    r"(?:之前|刚才|上次)?(?:是)?(?:关错了|不小心关(?:了|掉了)?)|(?i:(?:muted|turned\s+(?:them|it)\s+off)\s+by\s+(?:mistake|accident))|"
    r"(?:手机|电话)[^，。,.!?！？]{0,4}(?:静音|关机)"
    r"|(?i:phone(?:'s|\s+is)\s+(?:always\s+|usually\s+|often\s+|mostly\s+)?(?:on\s+)?(?:silent|mute|muted|off))"
)


def notification_preference(text: str) -> str | None:
    """Return "mute" or "on" when `text` sets notifications one way or the other.

    Of several settings said, the one said last counts: "之前关了通知，现在想重新打开" is on, "I had them on,
    now mute them" is mute (an unmute beats a mute ending at the same place: "取消静音"). Without a setting
    named in its clause, one said of notifications named elsewhere counts too ("通知太多了，帮我关掉").
    """
    text = _PHONE_ON_SILENT.sub(" ", text)
    said = [(m.end(), 2, "on") for m in _UNMUTE.finditer(text)]
    said += [(m.end(), 1, "mute") for m in _OFF.finditer(text)]
    said += [(m.end(), 0, "on") for m in [*_ON.finditer(text), *_NOTIFY_ME.finditer(text)]]
    if _PRONOUN_NOUN.search(text):
        for clause in re.finditer(r"[^，。,.!?！？；;]+", text):
            said += [(clause.end(), 1, "mute")] if _PRONOUN_OFF.search(clause.group().strip()) else []
            said += [(clause.end(), 0, "on")] if _PRONOUN_ON.search(clause.group().strip()) else []
    return max(said)[2] if said else None


# ---- contact channel -------------------------------------------------------------------------

CHANNEL_PATTERNS = [
    ("wechat", r"微信|(?i:(?<![a-z])we\s?chat(?![a-z])|(?<![a-z])weixin(?![a-z]))"),
    ("sms", r"短信|短讯|(?i:(?<![a-z])sms(?![a-z])|\btext(?:\s+messages?)?\b|\btexts\b|\btexting\b|\btxts?\b)"),
    ("email", r"电子邮件|邮件|邮箱|(?i:(?<![a-z])e-?mails?(?![a-z])|\bmail\b)"),
    (
        "phone",
        r"打电话|电话|電話|致电|来电|打(?:我)?手机|(?i:\bphone(?:\s+calls?)?\b|\bphoned\b|\bphoning\b|\bcall(?:s|ing)?\b|\btelephone\b|\bring\b)",
    ),
]
_CONTACT_CUE = re.compile(
    r"联系|联络|找我|通知我|告诉我|回复我|沟通|就行|就好|就可以|发我|发给我|打给我|给我打|给我发|以后|今后|改成|换成|只用|"
    r"(?:改|换|转)(?:做|为|用)|(?i:\bmake\s+it\s+(?:an?\s+)?)|"  # "改做微信啦", "make it a phone call"
    r"给我|打我|吧|即可|为主|上说|比较好|最好|靠谱|请|(?:发|打|用|走)个?(?:短信|电话|微信|邮件)|"
    r"(?i:contact|reach|get\s+in\s+touch|get\s+hold\s+of|best\s+(?:place|way)|communicat|prefer|rather|instead|\bonly\b|\buse\b|\bvia\b|\bby\b|\bover\b|"
    r"is\s+fine|works?\s+(?:best|better|for\s+me)|(?:is|would\s+be)\s+(?:much\s+|way\s+|far\s+)?(?:best|better|easier|easiest)|text\s+me|"
    r"call\s+me|phoned?\s+me|"
    r"ring\s+me|e-?mail\s+me|(?:give|drop|send|shoot|msg|message|ping)\s+me\b|\bplease\b|\bpls\b|\bplz\b|"
    r"updates?\s+(?:by|via|over)|(?:switch|move|put|change|set)\s+(?:me|it|us)?\s*(?:over\s+)?(?:to|on(?:to)?)\b|"
    r"\bback\s+(?:to|on(?:to)?)\b|(?:notifications?|alerts?|updates)\s+(?:over\s+)?(?:to|by|via|over)\b)|改回|换回|还是用"
)
_NEGATED_BEFORE = re.compile(
    r"(?:除了|不要|别|別|不用|不想|不看|不再|而不是|不是|非|很少|不怎么|不太|不常|不方便|(?<!会)不会|看不了|用不了|(?<!能)不能用|没空看|接不到|收不到|看不到|"
    r"没让|没叫|没要|没说|谁让|"
    # whole words: the "not" of "notifications" negates nothing ("send my notifications by text")
    r"(?i:\b(?:don'?t|do\s+not|didn'?t|didnt|did\s+not|not|never|no(?:\s+more)?|stop(?:\s+the)?|quit|rarely|hardly|"
    r"seldom|barely|anything\s+but|"
    r"other\s+than|apart\s+from|except(?:\s+for)?|"
    r"instead\s+of|rather\s+than|than)\b))"
    r"(?:(?!except|but\b|other\s+than|apart\s+from|除了)[^，。,.!?！？]){0,14}$"  # "rarely … except WeChat"
)
# "I never use anything but email", "rarely check anything except WeChat": the one channel they do use.
_NOTHING_BUT = re.compile(
    r"(?i)\b(?:never|not|don'?t|no|nothing|rarely|hardly|seldom|barely)\b[^,.!?]{0,24}?"
    r"(?:anything\s+but|but|except(?:\s+for)?|other\s+than|apart\s+from)\s+$"
)
# "Phone calls don't really work for me", "电话不方便": the channel named, then turned down.
_NEGATED_AFTER = re.compile(
    r"^[^，。,.!?！？]{0,16}?(?:(?i:(?:don'?t|doesn'?t|do\s+not|does\s+not|won'?t|can'?t|cannot)\s+(?:really\s+)?"
    r"(?:work|suit|help)|(?:is|are)\s*n[o']t\s+(?:good|great|ideal|convenient|an\s+option)|is\s+no\s+good)"
    r"|(?i:(?:'s|\s+is|\s+are)\s+(?:always\s+|usually\s+)?(?:on\s+silent|off|broken|full)|(?:go(?:es)?|going|end\s+up)\s+"
    r"(?:in|to)\s+(?:my\s+)?(?:spam|junk))"
    r"|不方便|不太方便|不行|不好用|看不到|接不到|收不到|没法|用不了|(?:进|在)垃圾箱|静音)"
    r"|^\s*(?:以外|之外)"  # "邮件以外的短信": other than email
)
_PAST_NARRATIVE = re.compile(
    r"昨天|前天|上周|上次|之前|刚才|已经|过了|(?i:\byesterday\b|\blast\s+(?:week|time|month)\b|\balready\b|\bearlier\b|"
    r"\bconfirmed\b|\bcalled\s+me\b|\btold\s+me\b|\bago\b|"
    # how something was done ("I verified my account by email", "paid by phone"), not how to be contacted
    r"\b(?:verified|validated|paid|signed\s+up|registered|logged\s+in|received|got|spoke|talked|chatted|ordered|"
    r"bought|booked|heard|(?:was|were)\s+told|complained|replied|answered)\b)"
    r"|(?:验证|认证|付款|支付|注册|登录|登陆|收到|下单|投诉|回复)(?:过|了|的)"
)
# A "please" counts when it asks to be contacted ("I called yesterday, please text me"), not when it asks
# something else ("please remember that I spoke to someone on the phone last week").
_FROM_NOW_ON = re.compile(
    r"以后|今后|(?<!上次)(?<!之前)(?<!刚才)(?<!已经)(?:改成|换成|改为)(?:用|通过)?(?:短信|电话|微信|邮件|邮箱)|(?i:\bfrom\s+now\s+on\b|\bgoing\s+forward\b|\binstead\b|"
    r"\b(?:please|pls)\s+(?:just\s+)?(?:call|phone|ring|text|sms|e-?mail|message|contact|reach|use|switch|change))"
)


# When, why or how often the shop contacts them ("你们一般几点打电话", "why did you text me at 3am"): a question
# or a complaint ("怎么老给我打电话") about what the shop does, never a channel asked for.
WHEN_OR_WHY_CONTACTED = re.compile(
    r"几点|(?:什么|啥)时候(?!都)|为什么|为啥|干嘛|干吗|怎么(?:老|总|一直|又)|多久|多长时间|"
    r"(?i:^\s*(?:when|why|what\s+time|how\s+often|how\s+come)\b|"
    r"\b(?:when|why|what\s+time|how\s+often)\s+(?:do|did|does|will|would|are|were|is|have|has|can)\s+(?:you|they|your)\b)"
)


_NAMES_THE_ADDRESS = re.compile(
    r"(?i)\s*(?:address\s*)?(?:is|was|[:：=])?\s*(?:actually\s+|now\s+|still\s+)?＠|\s*(?:地址)?(?:是|为|[:：])?\s*＠"
    r"|(?i:\s*(?:address\s+)?(?:has\s+)?changed)|\s*(?:地址)?(?:也)?(?:换了|改了|变了)"
)


def _clause_around(text: str, at: int) -> str:
    """The clause of ``text`` holding position ``at``: between the punctuation marks around it."""
    start = max((text.rfind(mark, 0, at) for mark in "，。,.!?！？；;（）()-—"), default=-1) + 1
    ends = [i for mark in "，。,.!?！？；;（）()-—" if (i := text.find(mark, at)) != -1]
    return text[start : min(ends, default=len(text))]


_OUR_MESSAGES = re.compile(r"(?:促销|营销|广告|推广)$|(?i:\b(?:your|marketing|promotional|promo|sales|spam)\s+$)")
_COURIER_CALL = re.compile(
    r"(?:到了|送到了?|到的时候|送货时|派送时|快递员|送达时?)[^，。,.!?！？]{0,4}$"
    r"|(?i:(?:when|once)\s+(?:it|the\s+\w+)\s+(?:arrives|is\s+here)|(?:driver|courier)\s+(?:should\s+)?)[^,.!?]{0,6}$"
)
# "Email me the invoice": something to send, not a way to be contacted ("drop me an email" is one).
_SEND_ME_A_THING = re.compile(
    r"(?i)\b(?:email|e-mail|text|send|mail|message)\s+me\s+(?:the|a|an|my|this|that|your)\b"
    r"(?!\s+(?:sms|text|texts|email|e-mail|message|call|line|ring|note)\b)"
)
CHANNEL_NAMES = {
    "zh": {"email": "邮件", "phone": "电话", "sms": "短信", "wechat": "微信"},
    "en": {"email": "email", "phone": "phone", "sms": "SMS", "wechat": "WeChat"},
}


def channels_named(text: str) -> set[str]:
    """Every channel a message names, wanted or not ("短信还是邮件": sms and email)."""
    return {channel for channel, pattern in CHANNEL_PATTERNS if re.search(pattern, _EMAIL_RE.sub(" ", text))}


# Notifications asked by a channel: "turn on sms notifications", "开启短信通知", "email alerts please".
_NOTIFICATIONS_BY = re.compile(
    r"(短信|微信|邮件|邮箱|电话)(?:通知|提醒)|"
    r"(?i:\b(sms|text|e-?mail|wechat|phone)\s+(?:notifications?|notifs?|alerts?|updates?|messages?)\b)"
)


def channel_of_notifications(text: str) -> str | None:
    """The channel notifications are asked by ("turn on sms notifications": SMS, the way we contact them), or
    ``None``."""
    found = _NOTIFICATIONS_BY.search(_EMAIL_RE.sub(" ", text))
    named = channels_named(found.group()) if found else set()
    if not named and found and found.group(2) and found.group(2).lower() == "text":
        named = {"sms"}
    return next(iter(named)) if len(named) == 1 else None


# A setting named just before, as items of a list are: "notifications, contact channel, default address, phone".
_SETTINGS_LISTED = re.compile(
    r"(?i)(?:address|notifications?|channel|settings?|e-?mail|number|地址|通知|联系方式|邮箱|设置)\s*(?:[,，、]|\band\b)\s*$"
)


# A condition beside a request, in English: "… unless I'm already on SMS", "If I'm still on email, …".
_CONDITION_CLAUSE_EN = re.compile(
    r"(?i)^\s*(?:only\s+)?(?:if|unless)\s+[^,.?!]{3,60},|[\s,]+(?:(?:only\s+)?if|unless)\s+[^,.?!]{3,60}[.?!]*\s*$"
)


def contact_channel(text: str) -> str | None:
    """Return the channel the customer wants to be contacted by, if `text` says so (never the one a condition
    beside the request names: "switch me to SMS unless I'm already on SMS" asks for SMS, once)."""
    text = _EMAIL_RE.sub(" ＠ ", text)  # an address is no channel; where it stood is kept ("my email is ＠")
    if (asked := _CONDITION_CLAUSE_EN.sub(" ", text)) != text and channels_named(asked):
        text = asked
    if not _CONTACT_CUE.search(text) or _SEND_ME_A_THING.search(text):
        return None
    hits: list[tuple[int, str]] = []
    for channel, pattern in CHANNEL_PATTERNS:
        for m in re.finditer(pattern, text):
            clause = _clause_around(text, m.start())
            if (_PAST_NARRATIVE.search(clause) or WHEN_OR_WHY_CONTACTED.search(clause)) and not _FROM_NOW_ON.search(
                clause
            ):
                continue  # "客服电话里已经确认过了": what happened; "你们几点打电话": what the shop does
            if _OUR_MESSAGES.search(text[max(0, m.start() - 16) : m.start()]):
                continue  # "your marketing texts", "促销短信": the shop's messages, not a way to reach them
            if _COURIER_CALL.search(text[max(0, m.start() - 12) : m.start()]):
                continue  # "到了打电话给我": the courier's call on delivery, not how the shop contacts them
            if channel == "wechat" and re.match(r"(?i)\s*(?:支付|付款|钱包|pay)", text[m.end() : m.end() + 6]):
                continue  # "微信支付": WeChat Pay, a way to pay
            if channel == "email" and _NAMES_THE_ADDRESS.match(text[m.end() : m.end() + 24]):
                continue  # "my email is actually bob@… now", "邮箱是 …": the address, not a channel
            if channel == "phone" and re.match(
                r"(?i)(?:phone\s+)?(?:number|no\.|号码?)|(?:(?:is|was|now|=|是|为)\s*)*[:：]?\s*\+?\d",
                text[m.end() : m.end() + 16].strip(),
            ):
                continue  # "my phone number is…", "my phone is +44…", "电话13900001111" name a number
            if _SETTINGS_LISTED.search(text[max(0, m.start() - 40) : m.start()]) and re.match(
                r"\s*(?:[,，、.。?？!！]|\band\b|$)", text[m.end() :]
            ):
                continue  # "summarise my settings: notifications, contact channel, address, phone": one of a list
            before, after = text[max(0, m.start() - 32) : m.start()], text[m.end() : m.end() + 24]
            negated = _NEGATED_BEFORE.search(before[-24:]) and not _NOTHING_BUT.search(before)
            if not (negated or _NEGATED_AFTER.search(after)):
                hits.append((m.start(), channel))
    return min(hits)[1] if hits else None


def channel_words(text: str) -> bool:
    """Whether `text` names any contact channel at all."""
    return any(re.search(pattern, text) for _, pattern in CHANNEL_PATTERNS)


# ---- carriers --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Carrier:
    id: str
    en: str
    zh: str
    pattern: re.Pattern[str]


CARRIERS = [
    Carrier(
        "sf_express",
        "SF Express",
        "顺丰速运",
        re.compile(r"顺丰(?:速运|快递)?|(?<![A-Za-z])SF(?![A-Za-z])|(?i:\bsf[\s\-]*express\b)"),
    ),
    Carrier(
        "jd",
        "JD Logistics",
        "京东物流",
        re.compile(r"京东(?:物流|快递)?|(?<![A-Za-z])JD(?![A-Za-z])|(?i:\bjd\s*logistics\b)"),
    ),
    Carrier(
        "ems",
        "EMS",
        "EMS",
        re.compile(r"中国邮政|邮政(?:快递|EMS)?|(?<![A-Za-z])EMS(?![A-Za-z])|(?i:\bchina\s+post\b)"),
    ),
    Carrier("ups", "UPS", "UPS", re.compile(r"(?<![A-Za-z])UPS(?![A-Za-z])")),
    Carrier("dhl", "DHL", "DHL", re.compile(r"(?<![A-Za-z])(?i:dhl)(?![A-Za-z])")),
    Carrier("fedex", "FedEx", "联邦快递", re.compile(r"联邦快递|(?i:\bfed\s?ex\b)")),
    Carrier("zto", "ZTO Express", "中通快递", re.compile(r"中通|(?<![A-Za-z])ZTO(?![A-Za-z])")),
    Carrier("yto", "YTO Express", "圆通速递", re.compile(r"圆通|(?<![A-Za-z])YTO(?![A-Za-z])")),
    Carrier("sto", "STO Express", "申通快递", re.compile(r"申通|(?<![A-Za-z])STO(?![A-Za-z])")),
    Carrier("yunda", "Yunda Express", "韵达快递", re.compile(r"韵达|(?i:\byunda\b)")),
    Carrier("usps", "USPS", "USPS", re.compile(r"(?<![A-Za-z])(?i:usps)(?![A-Za-z])")),
]
_CARRIER_CUE = re.compile(
    r"喜欢|偏好|习惯|希望|最好|尽量|请用|用|走|选|发|(?i:prefer|like|love|\buse\b|ship\s+(?:it\s+)?(?:with|via|by)|"
    r"send\s+(?:it\s+)?(?:with|via|by)|rather|want|go\s+with)"
)


def carrier(text: str) -> Carrier | None:
    """Return the first carrier named in `text`."""
    hits = [(m.start(), c) for c in CARRIERS for m in [c.pattern.search(text)] if m]
    return min(hits, key=lambda h: h[0])[1] if hits else None


def preferred_carrier(text: str) -> Carrier | None:
    """Return the carrier the customer says they prefer, skipping ones they reject."""
    if not _CARRIER_CUE.search(text):
        return None
    for c in sorted(CARRIERS, key=lambda c: m.start() if (m := c.pattern.search(text)) else 10**6):
        m = c.pattern.search(text)
        if m and not _NEGATED_BEFORE.search(text[max(0, m.start() - 10) : m.start()]):
            return c
    return None


def carrier_name(value: str, lang: str) -> str:
    """Say a carrier id or name in the reply language; unknown names pass through."""
    for c in CARRIERS:
        if value == c.id or c.pattern.search(value):
            return c.zh if lang == "zh" else c.en
    return value


# ---- names -----------------------------------------------------------------------------------

_NAME_ZH = re.compile(
    r"(?:我叫|我的名字(?:是|叫)|本人(?:姓名)?(?:是|叫)|我的姓名是|叫我)\s*"
    r"([\u4e00-\u9fff·]{2,4}?)(?=[，。！？,.!?\s]|$|就好|就行|吧|哦|呀|啊)"
)
_SURNAME_ZH = re.compile(r"我姓([\u4e00-\u9fff])")
_NAME_EN = re.compile(
    r"(?i:\bmy\s+name\s+is|\bmy\s+name's|\bcall\s+me|\bthis\s+is|\bi\s+am|\bi'm|\bname\s*:)\s+"
    r"([A-Z][a-zA-Z'\-]+(?:\s+[A-Z][a-zA-Z'\-]+){0,2})"
)
_NOT_NAMES = {
    "Not",
    "Sorry",
    "Fine",
    "Good",
    "Here",
    "Just",
    "Still",
    "Really",
    "Very",
    "So",
    "The",
    "A",
    "An",
    "Looking",
    "Trying",
    "Calling",
    "Writing",
    "Asking",
    "Wondering",
    "Going",
    "In",
    "On",
    "At",
    "From",
    "With",
    "Back",
    "Waiting",
    "Happy",
    "Sure",
    "Okay",
    "OK",
    "Ok",
    "Also",
    "Now",
    "Allergic",
}


def name(text: str) -> str | None:
    """Return the name the customer gives for themselves."""
    m = _NAME_ZH.search(text)
    if m:
        return m.group(1)
    m = _NAME_EN.search(text)
    if m:
        words = m.group(1).split()
        while words and words[-1] in _NOT_NAMES:
            words.pop()
        if words and words[0] not in _NOT_NAMES:
            return " ".join(words)
    m = _SURNAME_ZH.search(text)
    if m:
        return m.group(1)
    return None
