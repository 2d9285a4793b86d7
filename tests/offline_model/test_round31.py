"""Red team, session 26 (round 31): the readings under tests/chat/test_round31.py."""

from __future__ import annotations

import pytest

from agentsite.offline_model import nlu


@pytest.mark.parametrize(
    ("text", "mandarin"),
    [
        ("唔係呢張，係跑步鞋嗰張", "不是这单，是跑步鞋那单"),
        ("我講錯咗，係跑步鞋嗰張", "我说错了，是跑步鞋那单"),
        ("唔啱，係跑步鞋嗰單", "不对，是跑步鞋那单"),
    ],
)
def test_a_cantonese_correction_is_read_in_mandarin(text, mandarin):
    assert nlu.as_mandarin(text) == mandarin
