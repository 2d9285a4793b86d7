"""Red team, session 27 (round 35): the readings under tests/chat/test_round35.py."""

from __future__ import annotations

import pytest

from agentsite.offline_model import described, nlu, splitting
from tests.offline_model import systems


def _parts(text: str) -> list[str]:
    return [r.understood.intent.name for r in splitting.requests(nlu.as_mandarin(text))]


@pytest.mark.parametrize(
    ("text", "parts"),
    [
        ("我的联系方式和ORD-2025-0817的退款记录是什么？", ["ASK_FACT", "STATUS"]),
        (
            "查一下我的跑步鞋到哪了，还有订单ORD-2025-0923耳机的状态，顺便把我的通知关掉",
            ["TRACK", "STATUS", "SET_NOTIFICATION"],
        ),
        ("幫我熄咗啲通知，同埋以後用電郵聯絡我", ["SET_NOTIFICATION", "SET_CHANNEL"]),
        ("ORD-2025-0816和ORD-2025-0817都退了吧", ["REFUND"]),
    ],
)
def test_each_request_is_a_part(text, parts):
    assert _parts(text) == parts


def test_a_thing_named_keeps_its_own_order_beside_another_order_number():
    parts = splitting.requests(nlu.as_mandarin("查一下我的跑步鞋到哪了，还有订单ORD-2025-0923耳机的状态"))
    assert "ORD-2025-0923" not in parts[0].text


@pytest.mark.parametrize(
    ("text", "read"),
    [
        ("我而家嘅通知設定同聯絡方式係咩？", "我现在的通知设置和联系方式是什么？"),
        ("個空氣淨化器仲可唔可以退錢呀？", "那个空气净化器还可不可以退钱呀？"),
        ("係呀，退個空氣淨化器", "是呀，退掉那个空气净化器"),
        ("退啦", "退掉吧"),
        ("已经退啦", "已经退啦"),
    ],
)
def test_cantonese_read_in_mandarin(text, read):
    assert nlu.as_mandarin(text) == read


@pytest.mark.parametrize("text", ["退啦", "係呀，退個空氣淨化器"])
def test_a_refund_said_in_a_few_cantonese_words_is_a_refund(text):
    assert nlu.classify(nlu.as_mandarin(text)).intent is nlu.Intent.REFUND


def test_a_refund_question_naming_its_thing_asks_about_that_thing():
    text = nlu.as_mandarin("個空氣淨化器仲可唔可以退錢呀？")
    assert nlu.asks_if_refundable(text) and described.thing_named(text) == "空气净化器"


def test_the_thing_whose_refund_is_spoken_of_is_read():
    assert described.thing_named("上次你们答应给我的瑜伽垫退款，按之前说的办吧") == "瑜伽垫"


def test_the_refundability_asked_among_several_requests_is_looked_up(say):
    said = say("帮我把通知关掉，联系方式改成短信，另外机械键盘还能退吗", system=systems.WANG)
    assert ("list_my_orders", {"item": "机械键盘"}) in said.calls, said


def test_promises_about_a_thing_asked_of_the_shop(say):
    said = say("What did the shop promise me about my desk lamps?", system=systems.ALICE)
    assert said.content and "promise" in said.content, said
