"""Find calendar dates in Chinese and English text and say them back. Relative dates are resolved only against a
date the caller supplies: the server has no clock of its own, so the same request always means the same thing.
See docs/offline-model.md.
"""

from __future__ import annotations

import calendar
import datetime as dt
import re
from dataclasses import dataclass

MONTHS_EN = {
    "january": 1,
    "jan": 1,
    "february": 2,
    "feb": 2,
    "march": 3,
    "mar": 3,
    "april": 4,
    "apr": 4,
    "may": 5,
    "june": 6,
    "jun": 6,
    "july": 7,
    "jul": 7,
    "august": 8,
    "aug": 8,
    "september": 9,
    "sept": 9,
    "sep": 9,
    "october": 10,
    "oct": 10,
    "november": 11,
    "nov": 11,
    "december": 12,
    "dec": 12,
}
MONTH_NAMES_EN = [calendar.month_name[i] for i in range(13)]

_UNITS = [
    "zero",
    "one",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "eleven",
    "twelve",
    "thirteen",
    "fourteen",
    "fifteen",
    "sixteen",
    "seventeen",
    "eighteen",
    "nineteen",
]
_UNIT_ORDINALS = [
    "zeroth",
    "first",
    "second",
    "third",
    "fourth",
    "fifth",
    "sixth",
    "seventh",
    "eighth",
    "ninth",
    "tenth",
    "eleventh",
    "twelfth",
    "thirteenth",
    "fourteenth",
    "fifteenth",
    "sixteenth",
    "seventeenth",
    "eighteenth",
    "nineteenth",
]


def _day_words() -> dict[str, int]:
    words: dict[str, int] = {}
    for n in range(1, 20):
        words[_UNITS[n]] = n
        words[_UNIT_ORDINALS[n]] = n
    for tens, card, ordinal in ((20, "twenty", "twentieth"), (30, "thirty", "thirtieth")):
        words[card] = tens
        words[ordinal] = tens
        for n in range(1, 10):
            if tens + n > 31:
                break
            for sep in ("-", " ", ""):
                words[f"{card}{sep}{_UNITS[n]}"] = tens + n
                words[f"{card}{sep}{_UNIT_ORDINALS[n]}"] = tens + n
    return words


DAY_WORDS = _day_words()
WEEKDAYS_EN = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]
WEEKDAYS_ZH = {"一": 0, "二": 1, "三": 2, "四": 3, "五": 4, "六": 5, "日": 6, "天": 6, "七": 6}

_ZH_DIGITS = {
    "〇": 0,
    "零": 0,
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
_ZH_NUM = "[〇零一二两三四五六七八九十廿]"


def zh_number(text: str) -> int | None:
    """Read a small Chinese numeral (一 … 三十一, 廿五) or ASCII digits."""
    if text.isdigit():
        return int(text)
    text = text.replace("廿", "二十")
    if not text or any(ch not in _ZH_DIGITS and ch != "十" for ch in text):
        return None
    if "十" not in text:
        if len(text) == 4:  # a year written digit by digit: 二〇二五
            return int("".join(str(_ZH_DIGITS[ch]) for ch in text))
        return _ZH_DIGITS[text] if len(text) == 1 else None
    tens, _, units = text.partition("十")
    value = (_ZH_DIGITS.get(tens, 0) if tens else 1) * 10
    if units:
        if len(units) != 1:
            return None
        value += _ZH_DIGITS[units]
    return value


@dataclass(frozen=True)
class DateMention:
    """A calendar date found in text, with where it was found."""

    month: int
    day: int
    year: int | None
    start: int
    end: int

    @property
    def mm_dd(self) -> str:
        return f"{self.month:02d}-{self.day:02d}"


def _valid(month: int, day: int, year: int | None = None) -> bool:
    if not 1 <= month <= 12 or day < 1:
        return False
    days = calendar.monthrange(year or 2024, month)[1]  # 2024 is a leap year: allow 02-29
    return day <= days


_MONTH_ALT = "|".join(sorted(MONTHS_EN, key=len, reverse=True))
_DAY_WORD_ALT = "|".join(sorted(DAY_WORDS, key=len, reverse=True))
_YEAR_TAIL = r"(?:,?\s*(?P<year>\d{4}))?"

_PATTERNS: list[tuple[str, re.Pattern[str]]] = [
    (
        "ymd",
        re.compile(
            r"(?<![0-9A-Za-z\-])(?P<year>\d{4})\s*(?:[-/.年])\s*(?P<month>\d{1,2})\s*(?:[-/.月])\s*"
            r"(?P<day>\d{1,2})\s*[日号]?"
        ),
    ),
    (
        "zh",
        re.compile(
            rf"(?:(?P<year>\d{{4}}|[〇零一二三四五六七八九]{{4}})\s*年\s*)?"
            rf"(?P<month>\d{{1,2}}|{_ZH_NUM}{{1,3}})\s*月\s*份?\s*"
            rf"(?P<day>\d{{1,2}}|{_ZH_NUM}{{1,3}})\s*(?:[日号]|(?![0-9]))"
        ),
    ),
    (
        "en_month_first",
        re.compile(
            rf"(?i)\b(?P<month>{_MONTH_ALT})\.?\s+(?:the\s+)?"
            rf"(?P<day>\d{{1,2}}(?:st|nd|rd|th)?|{_DAY_WORD_ALT})\b{_YEAR_TAIL}"
        ),
    ),
    (
        "en_day_first",
        re.compile(
            rf"(?i)\b(?:the\s+)?(?P<day>\d{{1,2}}(?:st|nd|rd|th)?|{_DAY_WORD_ALT})\s+(?:day\s+)?"
            rf"(?:of\s+)?(?P<month>{_MONTH_ALT})\b\.?{_YEAR_TAIL}"
        ),
    ),
    (
        "numeric",
        re.compile(
            r"(?<![0-9A-Za-z/\-.])(?P<a>\d{1,2})(?P<sep>[/.])(?P<b>\d{1,2})"
            r"(?:(?P=sep)(?P<year>\d{4}|\d{2}))?(?![0-9/])"
            r"(?!(?<=/\d)\s*(?:of\b|的(?:钱|款|金额|价)))"  # "refund 3/4 of it", "退3/4的钱": a fraction
        ),
    ),
    ("mm_dd", re.compile(r"(?<![0-9A-Za-z\-])(?P<a>\d{2})-(?P<b>\d{2})(?![0-9\-])")),
]


def _day_value(text: str) -> int | None:
    text = text.lower().strip()
    digits = re.match(r"\d{1,2}", text)
    if digits:
        return int(digits.group())
    return DAY_WORDS.get(re.sub(r"\s+", " ", text))


def _mention(kind: str, m: re.Match[str]) -> DateMention | None:
    year: int | None = None
    if m.groupdict().get("year"):
        year = zh_number(m.group("year")) if kind == "zh" else int(m.group("year"))
        if year is not None and year < 100:
            year += 2000
    if kind in ("numeric", "mm_dd"):
        a, b = int(m.group("a")), int(m.group("b"))
        if kind == "numeric" and m.group("sep") == "." and not m.group("year"):
            return None  # 3.5 is a decimal far more often than a date
        month, day = (b, a) if a > 12 else (a, b)
    elif kind == "zh":
        month_v, day_v = zh_number(m.group("month")), zh_number(m.group("day"))
        if month_v is None or day_v is None:
            return None
        month, day = month_v, day_v
    elif kind in ("en_month_first", "en_day_first"):
        month = MONTHS_EN[m.group("month").lower().rstrip(".")]
        day_v = _day_value(m.group("day"))
        if day_v is None:
            return None
        if kind == "en_month_first" and m.group("month") == "may" and not m.group("day")[0].isdigit():
            return None  # "I may one day…" is not the first of May
        day = day_v
    else:
        month, day = int(m.group("month")), int(m.group("day"))
    if not _valid(month, day, year):
        return None
    return DateMention(month, day, year, m.start(), m.end())


def find_dates(text: str) -> list[DateMention]:
    """Return every absolute date in `text`, in reading order, without overlaps."""
    found: list[DateMention] = []
    for kind, pattern in _PATTERNS:
        for m in pattern.finditer(text):
            if any(m.start() < f.end and f.start < m.end() for f in found):
                continue
            mention = _mention(kind, m)
            if mention:
                found.append(mention)
    return sorted(found, key=lambda d: d.start)


def format_month_day(month: int, day: int, lang: str) -> str:
    """Say a birthday-style date: 3月15日 / March 15."""
    if lang == "zh":
        return f"{month}月{day}日"
    return f"{MONTH_NAMES_EN[month]} {day}"


def format_mm_dd(mm_dd: str, lang: str) -> str:
    """Say an `MM-DD` value; anything else is returned unchanged."""
    m = re.fullmatch(r"(\d{2})-(\d{2})", mm_dd.strip())
    if not m:
        return mm_dd
    return format_month_day(int(m.group(1)), int(m.group(2)), lang)


_TODAY_RE = re.compile(
    r"(?im)^\s*(?:current date|today(?:'s date)?(?: is)?|date|今天是|今天|当前日期|日期)\s*[:：]?\s*"
    r"(\d{4})-(\d{2})-(\d{2})"
)


def today_from(text: str) -> dt.date | None:
    """Read the `Current date: YYYY-MM-DD` line a prompt may carry."""
    m = _TODAY_RE.search(text)
    if not m:
        return None
    try:
        return dt.date(int(m.group(1)), int(m.group(2)), int(m.group(3)))
    except ValueError:
        return None


@dataclass(frozen=True)
class RelativeDate:
    """A relative date phrase and, when the reference date is known, the date it names."""

    phrase: str
    date: dt.date | None


_REL_DAYS_ZH = {"大前天": -3, "前天": -2, "昨天": -1, "昨日": -1, "今天": 0, "今日": 0, "明天": 1, "后天": 2}
_REL_DAYS_EN = {"the day before yesterday": -2, "yesterday": -1, "today": 0, "tomorrow": 1}
_REL_RE = re.compile(
    r"(?P<zhday>大前天|前天|昨天|昨日|今天|今日|明天|后天)"
    r"|(?P<zhago>\d+|[一二两三四五六七八九十]+)\s*天(?:以)?前"
    r"|(?P<zhweek>上上|上|这|本|下)(?:个)?(?:周|星期|礼拜)(?P<zhwd>[一二三四五六日天七])"
    r"|(?i:(?P<enday>the day before yesterday|yesterday|today|tomorrow))"
    r"|(?i:(?P<enago>\d+|a|one|two|three|four|five|six|seven)\s+(?P<unit>days?|weeks?)\s+ago)"
    r"|(?i:(?P<enweek>last|this|next)\s+(?P<enwd>monday|tuesday|wednesday|thursday|friday|saturday|sunday)\b)"
)
_EN_SMALL = {"a": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7}


def _weekday_in_week(today: dt.date, weeks: int, weekday: int) -> dt.date:
    monday = today - dt.timedelta(days=today.weekday()) + dt.timedelta(weeks=weeks)
    return monday + dt.timedelta(days=weekday)


def find_relative(text: str, today: dt.date | None) -> list[RelativeDate]:
    """Return relative date phrases; `date` is None when `today` is unknown.

    上周三 is Wednesday of the previous calendar week; "last Wednesday" is the most recent
    Wednesday before today, as English speakers mostly mean it.
    """
    found: list[RelativeDate] = []
    for m in _REL_RE.finditer(text):
        offset: int | None = None
        day: dt.date | None = None
        if m.group("zhday"):
            offset = _REL_DAYS_ZH[m.group("zhday")]
        elif m.group("zhago"):
            offset = -(zh_number(m.group("zhago")) or 0)
        elif m.group("enday"):
            offset = _REL_DAYS_EN[m.group("enday").lower()]
        elif m.group("enago"):
            n = m.group("enago").lower()
            count = int(n) if n.isdigit() else _EN_SMALL[n]
            offset = -count * (7 if m.group("unit").lower().startswith("week") else 1)
        elif m.group("zhweek") and today:
            weeks = {"上上": -2, "上": -1, "这": 0, "本": 0, "下": 1}[m.group("zhweek")]
            day = _weekday_in_week(today, weeks, WEEKDAYS_ZH[m.group("zhwd")])
        elif m.group("enweek") and today:
            target = WEEKDAYS_EN.index(m.group("enwd").lower())
            which = m.group("enweek").lower()
            if which == "last":
                back = (today.weekday() - target) % 7 or 7
                day = today - dt.timedelta(days=back)
            elif which == "this":
                day = _weekday_in_week(today, 0, target)
            else:
                day = _weekday_in_week(today, 1, target)
        if offset is not None and today:
            day = today + dt.timedelta(days=offset)
        found.append(RelativeDate(m.group(0), day))
    return found
