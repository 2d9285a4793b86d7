"""The shop's English words in a Chinese sentence are read as their Chinese ones (round 18: "hi 我想把notification关掉，
太烦了，还有contact channel现在是啥？" was answered with a greeting alone): each is answered as its Chinese twin is."""

from __future__ import annotations

import pytest

from tests.offline_model.systems import WANG


@pytest.mark.parametrize(
    ("mixed", "chinese"),
    [
        ("hi 我想把notification关掉", "hi 我想把通知关掉"),
        ("帮我refund一下 ORD-2025-0816", "帮我退款一下 ORD-2025-0816"),
        ("我的address是啥", "我的地址是啥"),
        ("contact channel现在是啥？", "联系方式现在是啥？"),
        ("我的notifs开着吗", "我的通知开着吗"),
    ],
)
def test_an_english_word_in_a_chinese_sentence_is_read_as_its_chinese_one(say, mixed, chinese):
    said, twin = say(mixed, system=WANG), say(chinese, system=WANG)

    assert (said.content, said.calls) == (twin.content, twin.calls), (said, twin)
    assert "没有完全理解" not in (said.content or ""), said


def test_an_english_sentence_with_a_chinese_address_keeps_its_english():
    from agentsite.offline_model import nlu

    assert nlu.as_mandarin("change my address to 上海市浦东新区世纪大道100号") == (
        "change my address to 上海市浦东新区世纪大道100号"
    )
