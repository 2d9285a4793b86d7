"""Red team, session 28 (round 38): the readings under tests/chat/test_round38.py."""

from __future__ import annotations

import pytest

from agentsite.offline_model import splitting


@pytest.mark.parametrize(
    ("text", "parts"),
    [
        ("0943可以退款吗？0942呢？", ["0943可以退款吗？0942呢？"]),
        ("0816发货了吗？0817呢", ["0816发货了吗？0817呢"]),
        ("where is 0931? and 0932?", ["where is 0931? and 0932?"]),
    ],
)
def test_another_order_asked_as_the_one_before_is_the_same_request(text, parts):
    assert [r.text for r in splitting.requests(text)] == parts


def test_the_same_of_another_order_takes_the_words_of_the_part_before():
    assert splitting._the_same_of_another("can I return 0924?", "and 0923?") == "can I return 0923?"
    assert splitting._the_same_of_another("0943可以退款吗？", "0942呢？") == "0942可以退款吗？"
    assert splitting._the_same_of_another("where is 0931?", "and my address?") == ""
