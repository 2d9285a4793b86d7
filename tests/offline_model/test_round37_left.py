"""Red team, session 27 (round 37): the readings under tests/chat/test_round37_left.py."""

from __future__ import annotations

import pytest

from agentsite.offline_model import described, nlu, splitting
from agentsite.offline_model.nlu import Intent


@pytest.mark.parametrize(
    ("text", "parts"),
    [
        (
            "我的默认地址、通知、联系方式、0902退款情况分别是什么？",
            ["我的默认地址、通知、联系方式？", "0902退款情况分别是什么？"],
        ),
        ("我的地址、0902的状态、通知是什么", ["我的地址、通知是什么？", "0902的状态？"]),
        ("0902的退款、我的地址和通知？", ["我的地址和通知？", "0902的退款？"]),
        (
            "What's on file for me: notifications, contact channel, and any refunds on 0880, 0923, 0924?",
            ["What's on file for me: notifications, contact channel?", "any refunds on 0880, 0923, 0924?"],
        ),
    ],
)
def test_an_orders_question_listed_among_facts_is_its_own_request(text, parts):
    assert [r.text for r in splitting.requests(text)] == parts


def test_commas_between_order_numbers_list_orders():
    assert [r.text for r in splitting.requests("any refunds on 0880, 0923, 0924?")] == [
        "any refunds on 0880, 0923, 0924?"
    ]
    # an order number then another request is still two
    assert len(splitting.requests("refund 0880, 0923 where is it?")) == 2


@pytest.mark.parametrize(
    ("text", "intent"),
    [
        ("Switch my contact channel to SMS unless I'm already on SMS", Intent.SET_CHANNEL),
        ("If my backpack hasn't arrived yet, refund it", Intent.REFUND),
        ("Refund the headphones if they haven't shipped yet", Intent.REFUND),
        ("can I get a refund if the price drops after I buy?", Intent.POLICY),
        ("0942綠茶可唔可以退返一半錢？", Intent.REFUND),
        ("0790可以退50块吗", Intent.REFUND),
        ("可不可以退钱？", Intent.POLICY),
    ],
)
def test_requests_with_conditions_and_parts_are_read(text, intent):
    assert nlu.classify(text).intent is intent


@pytest.mark.parametrize(
    ("text", "thing"),
    [
        ("瑜伽垫如果还没发货的话就帮我退款", "瑜伽垫"),
        ("Refund the headphones if they haven't shipped yet", "headphones"),
    ],
)
def test_a_condition_is_not_part_of_the_thing(text, thing):
    assert described.thing_named(nlu.as_mandarin(text)) == thing
