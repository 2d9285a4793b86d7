"""Pure pieces: date wordings, relative dates, stream pieces (no server needed)."""

from __future__ import annotations

import calendar
import datetime as dt

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from agentsite.offline_model import dates, tokens

ORDINALS = {
    1: "first",
    2: "second",
    3: "third",
    5: "fifth",
    8: "eighth",
    9: "ninth",
    12: "twelfth",
    15: "fifteenth",
    20: "twentieth",
    21: "twenty-first",
    22: "twenty-second",
    23: "twenty-third",
    28: "twenty-eighth",
    30: "thirtieth",
    31: "thirty-first",
}
ZH = "零一二三四五六七八九"


def _zh(n: int) -> str:
    tens, units = divmod(n, 10)
    if not tens:
        return ZH[units]
    return ("" if tens == 1 else ZH[tens]) + "十" + (ZH[units] if units else "")


valid_days = st.dates(min_value=dt.date(2024, 1, 1), max_value=dt.date(2024, 12, 31))


@settings(deadline=None, max_examples=150)
@given(day=valid_days, year=st.integers(1950, 2010))
def test_every_wording_of_a_date_reads_the_same(day, year):
    m, d = day.month, day.day
    assume(calendar.isleap(year) or (m, d) != (2, 29))  # 1950年2月29日 is no date at all
    name = dates.MONTH_NAMES_EN[m]
    wordings = [
        f"{m}月{d}日",
        f"{_zh(m)}月{_zh(d)}号",
        f"{year}年{m}月{d}日",
        f"{year}-{m:02d}-{d:02d}",
        f"{name} {d}",
        f"{name} {d}th, {year}",
        f"{d} {name}",
        f"the {d}th of {name}",
        f"{name[:3]}. {d}",
        f"{m}/{d}",
    ]
    if d in ORDINALS:
        wordings += [f"the {ORDINALS[d]} of {name}", f"{name} {ORDINALS[d]}"]
    if d > 12:
        wordings.append(f"{d}/{m}")
    for wording in wordings:
        found = dates.find_dates(f"my birthday: {wording}!")
        assert [f.mm_dd for f in found] == [f"{m:02d}-{d:02d}"], wording


def test_impossible_dates_and_non_dates_are_not_read():
    for text in ["2月30日", "February 30", "ORD-2025-0816", "¥19.99", "I may one day", "13/13", "price 3.5"]:
        assert dates.find_dates(text) == [], text


def test_relative_dates_need_a_reference_date():
    today = dt.date(2025, 3, 20)  # a Thursday
    said = {r.phrase: r.date for r in dates.find_relative("昨天 前天 上周三 yesterday last Monday 3 days ago", today)}
    assert said == {
        "昨天": dt.date(2025, 3, 19),
        "前天": dt.date(2025, 3, 18),
        "上周三": dt.date(2025, 3, 12),
        "yesterday": dt.date(2025, 3, 19),
        "last Monday": dt.date(2025, 3, 17),
        "3 days ago": dt.date(2025, 3, 17),
    }
    assert all(r.date is None for r in dates.find_relative("昨天 last Monday", None))
    assert dates.today_from("You are an agent.\nCurrent date: 2025-03-20\n") == today


@settings(deadline=None, max_examples=300)
@given(st.text())
def test_stream_pieces_join_back_to_the_text(text):
    assert "".join(tokens.pieces(text)) == text


def test_replies_stream_in_many_small_pieces():
    pieces = tokens.pieces("您好！我可以帮您查询订单 ORD-2025-0816 的物流。Hello there, how are you?")
    assert len(pieces) > 20 and max(len(p) for p in pieces) <= 8
