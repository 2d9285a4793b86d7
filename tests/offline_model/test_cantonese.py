"""Traditional characters and common Cantonese words are read as the Mandarin the rules know (round 12: "我嘅訂單
去咗邊？" and the like got "I didn't understand"): each is answered as its Mandarin twin is, in simplified Chinese."""

from __future__ import annotations

import pytest

from tests.offline_model.systems import WANG


@pytest.mark.parametrize(
    ("cantonese", "mandarin"),
    [
        ("我嘅訂單去咗邊？", "我的订单到哪了？"),
        ("點解仲未發貨？", "为什么还没发货？"),
        ("唔該幫我退款 ORD-2025-0816", "谢谢帮我退款 ORD-2025-0816"),
        ("ORD-2025-0817 嘅狀態係點？", "ORD-2025-0817 的状态是什么？"),
        ("我想睇下我嘅地址", "我想看下我的地址"),
    ],
)
def test_cantonese_is_answered_as_mandarin(say, cantonese, mandarin):
    said, twin = say(cantonese, system=WANG), say(mandarin, system=WANG)

    assert (said.content, said.calls) == (twin.content, twin.calls), (said, twin)
    assert "没有完全理解" not in (said.content or ""), said
