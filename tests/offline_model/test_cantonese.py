"""Traditional characters and common Cantonese words are read as the Mandarin the rules know (round 12: "我嘅訂單
去咗邊？" and the like got "I didn't understand"): each is answered as its Mandarin twin is, in simplified Chinese."""

from __future__ import annotations

import pytest

from agentsite.offline_model import nlu
from tests.offline_model.systems import WANG


@pytest.mark.parametrize(
    ("cantonese", "mandarin"),
    [
        ("我嘅訂單去咗邊？", "我的订单到哪了？"),
        ("點解仲未發貨？", "为什么还没发货？"),
        ("唔該幫我退款 ORD-2025-0816", "谢谢帮我退款 ORD-2025-0816"),
        ("ORD-2025-0817 嘅狀態係點？", "ORD-2025-0817 的状态是什么？"),
        ("我想睇下我嘅地址", "我想看下我的地址"),
        # round 19: 係 was read as 系 (the traditional form of 系), so "唔係唔係" took nothing back and the mute was proposed
        (
            "幫我把通知關掉……唔係唔係，通知保持開住，係想改聯絡方式做電話",
            "帮我把通知关掉……不是不是，通知保持开着，是想改联系方式做电话",
        ),
        ("我嘅訂單係咪發咗貨？", "我的订单是不是发了货？"),
        # round 20: not understood
        ("聯絡方式轉做電郵啦", "联系方式改成邮件啦"),
        ("幫我開返通知", "帮我打开通知"),
    ],
)
def test_cantonese_is_answered_as_mandarin(say, cantonese, mandarin):
    said, twin = say(cantonese, system=WANG), say(mandarin, system=WANG)

    assert (said.content, said.calls) == (twin.content, twin.calls), (said, twin)
    assert "没有完全理解" not in (said.content or ""), said


@pytest.mark.parametrize(
    ("cantonese", "mandarin"),
    [
        ("點解仲未發貨", "为什么还没发货"),  # 點 was made 点 before the word list could read 點解
        ("我嘅地址同通知設定係咩？", "我的地址和通知設定是什么？"),
        ("最平嗰張係咩嚟㗎？", "最便宜那张是什么？"),
        ("佢而家點樣", "他现在怎么样"),
        ("我同意", "我同意"),  # Mandarin's 同 stays when nothing is Cantonese
    ],
)
def test_cantonese_words_read_in_mandarin(cantonese, mandarin):
    assert nlu.as_mandarin(cantonese) == mandarin
