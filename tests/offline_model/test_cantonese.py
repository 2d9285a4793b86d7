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
        ("唔該幫我退款 ORD-2025-0816", "请帮我退款 ORD-2025-0816"),  # 唔該 before a verb: please
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
        ("我嘅地址同通知設定係咩？", "我的地址和通知设置是什么？"),
        ("最平嗰張係咩嚟㗎？", "最便宜那张是什么？"),
        ("佢而家點樣", "他现在怎么样"),
        ("我同意", "我同意"),  # Mandarin's 同 stays when nothing is Cantonese
        # round 24: a measure word where Mandarin says "my"/"that", 喇 for 了, "咗佢"/"取消佢" for "…掉"
        ("我部空气净化器去到边度喇？", "我那部空气净化器到哪里了？"),
        ("盏台灯唔要喇，帮我取消咗佢", "那盏台灯不要了，帮我取消掉"),
        ("幫我將個耳機單退咗佢啦", "帮我把耳机那单退掉啦"),
        ("個喇叭壞咗", "那个喇叭坏了"),  # 喇叭 is a loudspeaker; 個 opening a sentence is "that"
    ],
)
def test_cantonese_words_read_in_mandarin(cantonese, mandarin):
    assert nlu.as_mandarin(cantonese) == mandarin


@pytest.mark.parametrize(
    ("cantonese", "intent", "thing"),
    [
        ("我部空气净化器去到边度喇？几时到？", nlu.Intent.TRACK, "空气净化器"),
        ("盏台灯唔要喇，帮我取消咗佢", nlu.Intent.HUMAN, "台灯"),  # cancelling an order is a colleague's
        ("幫我將個耳機單退咗佢啦", nlu.Intent.REFUND, "耳机"),
    ],
)
def test_cantonese_requests_name_their_thing(cantonese, intent, thing):
    from agentsite.offline_model import described

    said = nlu.as_mandarin(cantonese)
    assert (nlu.classify(said).intent, described.thing_named(said)) == (intent, thing)


@pytest.mark.parametrize(
    "text",
    [
        "确认关闭通知。另外帮我将地址改做上海市浦东新区世纪大道100号",
        "搞错咗！应该系上海市浦东新区世纪大道100号，前面嗰啲字唔系地址",
        "唔啱，地址淨係：上海市浦東新區世紀大道100號，冇其他字",
    ],
)
def test_an_address_after_cantonese_words_of_change_is_the_address_alone(text):
    """Round 26: "改做" (改成) and "系" (是) were not read as leading into the address, which was proposed, and saved,
    with the request's words in it."""
    from agentsite.offline_model import slots

    assert slots.address(nlu.as_mandarin(text)) == "上海市浦东新区世纪大道100号"
