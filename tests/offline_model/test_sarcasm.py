"""Sarcasm takes back what it follows: a change said sarcastically is neither proposed nor remembered as asked for
(round 12: "Oh sure, change my address to …, because that's totally where I live. Not." was proposed, and the
address kept as bob's request on his memory page)."""

from __future__ import annotations

import pytest

from tests.offline_model.systems import BOB, WANG
from tests.offline_model.test_extraction import extract  # noqa: F401 - the fixture

SARCASTIC = [
    (BOB, "Oh sure, change my address to 1 Nowhere Lane, London N1 1AA, because that's totally where I live. Not."),
    (BOB, "yeah right, mute all my notifications, great idea"),
    (WANG, "把地址改成上海市浦东新区世纪大道100号，才怪"),
]


@pytest.mark.parametrize(("system", "text"), SARCASTIC)
def test_a_sarcastic_change_is_not_proposed(say, system, text):
    said = say(text, system=system)

    assert not said.calls, said


@pytest.mark.parametrize(("system", "text"), SARCASTIC)
def test_a_sarcastic_change_is_not_remembered(extract, system, text):  # noqa: F811
    assert extract([("customer", text)]) == []


@pytest.mark.parametrize("text", ["has my order shipped or not?", "yeah right away please, mute my notifications"])
def test_not_and_right_in_earnest_are_no_sarcasm(say, text):
    said = say(text, system=BOB)

    assert said.calls, said


@pytest.mark.parametrize(
    ("said", "taken_back"),
    [
        # round 13 (Chinese reviewer): kept as wang's fact after he said it was sarcasm
        ("你们通知天天推送，真是太贴心了呢，我好喜欢半夜被吵醒哦", "你记下了啥？？我是在说反话，意思是通知烦死了"),
        ("I love getting calls at 3am, please call me more", "I was being sarcastic obviously"),
    ],
)
def test_a_message_said_to_be_sarcastic_leaves_no_memory(extract, said, taken_back):  # noqa: F811
    memories = extract([("customer", said), ("agent", "好的 / OK"), ("customer", taken_back)])

    assert not [m for m in memories if "半夜" in m["content"] or "3am" in m["content"]], memories
