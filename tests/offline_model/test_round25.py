"""Red team, session 24 (round 25): questions read as greetings, things not found in Chinese sentences, and
questions about what a chat did.

"hey can u tell me when my running shoes arrive? thx" and "hey where will my water bottles be shipped to?" got a
greeting; "我的帐篷订单状态是什么？" and "瑜伽垫会寄到哪个地址？" named no thing; "what changed on my account in this
chat? be specific", "wait what did that yes do?" and "我刚才说了什么要求？你帮我做了什么？" were not understood; "yeah
ok but make it 400 bucks since i had to buy a tarp too" was not either.
"""

from __future__ import annotations

import pytest

from agentsite.offline_model import described, nlu
from tests.offline_model.systems import BOB


@pytest.mark.parametrize(
    ("text", "intent"),
    [
        ("hey can u tell me when my running shoes arrive? thx", nlu.Intent.TRACK),
        ("when do my running shoes arrive", nlu.Intent.TRACK),
        ("hey where will my water bottles be shipped to?", nlu.Intent.STATUS),  # the order's record says
        ("键盘用了几天，想退款", nlu.Intent.REFUND),
        ("发货要几天", nlu.Intent.POLICY),
        ("不想退款了", nlu.Intent.OTHER),
        ("今天一共帮我提交了哪些退款？列出来", nlu.Intent.STATUS),
        ("保温杯那单退了多少？", nlu.Intent.STATUS),
        ("帮我退了吧", nlu.Intent.REFUND),
    ],
)
def test_questions_and_requests_are_read(text, intent):
    assert nlu.classify(nlu.as_mandarin(text)).intent is intent


@pytest.mark.parametrize(
    ("text", "thing"),
    [
        ("我的帐篷订单状态是什么？", "帐篷"),
        ("瑜伽垫会寄到哪个地址？", "瑜伽垫"),
        ("keyboard那单refund一下 pls", "keyboard"),
        ("我那个键盘有个键不灵了，想退款", "键盘"),
        ("我的订单状态", ""),
    ],
)
def test_the_thing_in_a_chinese_sentence_is_found(text, thing):
    assert described.thing_named(nlu.as_mandarin(text)) == thing


@pytest.mark.parametrize(
    "text",
    [
        "what changed on my account in this chat? be specific",
        "wait what did that yes do?",
        "我刚才说了什么要求？你帮我做了什么？",
    ],
)
def test_what_this_chat_did_is_asked(text):
    assert nlu.ASKS_WHAT_CHANGED_HERE.search(nlu.as_mandarin(text))


def test_more_money_than_the_refund_is_no_refund_of_ours(say):
    said = say("yeah ok but make it 400 bucks since i had to buy a tarp too", system=BOB)

    assert not said.calls and "full amount" in said.content, said
