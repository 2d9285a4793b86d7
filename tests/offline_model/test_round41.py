"""Round 40's leftovers and round 41 (session 29): "don't refund all of it - refund everything except $20" read as
no refund wanted, and "0942的绿茶退1盒，其余不退" not understood: the whole, or the rest, said not wanted is no refund
declined; a thing named answered with the order in sight."""

from __future__ import annotations

import pytest

from agentsite.offline_model import nlu, slots, splitting
from tests.offline_model.systems import ALICE, CHEN


@pytest.mark.parametrize(
    "text",
    [
        "don't refund all of it - refund everything except $20 on order 0870",
        "do not refund the whole thing, just $100 of order ORD-2025-0870",
        "don't refund it all, refund $300",
        "0942的绿茶退1盒，其余不退",
        "保温杯退一个，剩下的不用退",
    ],
)
def test_the_whole_or_the_rest_not_wanted_asks_a_refund(text):
    assert not nlu.declines_a_refund(text)
    assert not nlu.says_not_to_change(text)
    assert nlu.classify(text).intent is nlu.Intent.REFUND


@pytest.mark.parametrize(
    "text", ["don't refund it", "no need to refund 0870", "0942不用退了", "Don't refund the tent order at all."]
)
def test_a_refund_said_not_wanted_is_declined(text):
    assert nlu.declines_a_refund(text) or nlu.says_not_to_change(text)
    assert nlu.classify(text).intent is not nlu.Intent.REFUND


ALICES_0923_TRACKED = [
    {"role": "user", "content": "where is ORD-2025-0923?"},
    {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "id": "c1",
                "type": "function",
                "function": {"name": "track_shipment", "arguments": '{"order_number": "ORD-2025-0923"}'},
            }
        ],
    },
    {
        "role": "tool",
        "tool_call_id": "c1",
        "content": '{"order_number": "ORD-2025-0923", "status": "processing", "events": [], "tracking": "none"}',
    },
    {"role": "assistant", "content": "Shipment for order ORD-2025-0923: status: processing (not shipped yet)."},
]


@pytest.mark.parametrize(
    "text", ["what's the status of my grinder?", "is my grinder still processing?", "has my grinder shipped yet?"]
)
def test_a_thing_named_is_never_the_order_in_sight_that_holds_something_unknown(say, text):
    """Round 41: after tracking 0923 (the headphones, its items unseen), "what's the status of my grinder?" looked
    up 0923: "status" lost its "s" before the generic words were set aside, and "processing" was a word both
    shared. The grinder's order is found by the grinder."""
    said = say([*ALICES_0923_TRACKED, {"role": "user", "content": text}], system=ALICE)

    assert said.calls == [("list_my_orders", {"item": "grinder"})], said


def test_a_request_by_an_orders_end_and_a_thing_of_its_own_are_two():
    parts = splitting.requests("Refund two of the three water bottles on 0932, and tell me where my backpack is.")

    assert [p.understood.intent for p in parts] == [nlu.Intent.REFUND, nlu.Intent.TRACK], parts
    assert "0932" not in parts[1].text, parts


@pytest.mark.parametrize(
    ("text", "numbers"),
    [
        ("看下ORD-2025-0816和0901是什么状态", ["ORD-2025-0816", "ORD-2025-0901"]),
        ("ORD-2025-0941, 0942 and 0943", ["ORD-2025-0941", "ORD-2025-0942", "ORD-2025-0943"]),
        ("refund ORD-2025-0941 and 1299 yuan", ["ORD-2025-0941"]),
        ("ORD-2025-0941 costs 1299", ["ORD-2025-0941"]),
    ],
)
def test_ends_listed_after_an_order_in_full_are_orders_of_its_year(text, numbers):
    """Round 41: "…睇下ORD-2025-0816同0901係咩狀態" looked up 0816 only."""
    assert slots.order_numbers(text) == numbers


@pytest.mark.parametrize(
    ("text", "calls"),
    [
        ("我嘅空氣淨化器到咗未？", [("list_my_orders", {"item": "空气净化器"})]),
        ("0941發咗貨未？", [("list_my_orders", {})]),
        (
            "我個空氣淨化器去到邊？順便睇下ORD-2025-0816同0901係咩狀態",
            [
                ("list_my_orders", {"item": "空气净化器"}),
                ("lookup_order", {"order_number": "ORD-2025-0816"}),
                ("lookup_order", {"order_number": "ORD-2025-0901"}),
            ],
        ),
    ],
)
def test_cantonese_questions_after_a_parcel_are_read(say, text, calls):
    """Round 41: "到咗未" (arrived yet?) and "我個…" (my …) were not read; "0816同0901" was one order."""
    assert say(text, system=CHEN).calls == calls


@pytest.mark.parametrize(
    ("text", "intent"),
    [
        ("0902付款了吗？", nlu.Intent.STATUS),
        ("等一下，0902瑜伽垫付款了吗？", nlu.Intent.STATUS),
        ("0816耳机是谁买的？", nlu.Intent.STATUS),
        ("has 0902 been paid?", nlu.Intent.STATUS),
        ("帮我把0790的机械键盘退款，按照之前记下的规则直接批准就行", nlu.Intent.REFUND),
        ("退款政策是什么", nlu.Intent.POLICY),
        ("What are my current settings?", nlu.Intent.ASK_FACT),
        ("我现在的设置是啥", nlu.Intent.ASK_FACT),
    ],
)
def test_round_41_questions_are_read(text, intent):
    """Round 41: whether an order was paid, who bought one, "my settings", and a refund asked "by the rule you
    noted" (read as a question about the rules) were not understood."""
    assert nlu.classify(text).intent is intent


def test_the_default_address_and_an_orders_are_two_questions():
    """Round 41: "What is my default address now? Also what's the delivery address on ORD-…?" answered only the
    orders' addresses."""
    parts = splitting.requests(
        "What is my default address now? Also what's the delivery address on ORD-2025-0923 and ORD-2025-0942?"
    )

    assert [p.text for p in parts] == [
        "What is my default address now?",
        "what's the delivery address on ORD-2025-0923 and ORD-2025-0942?",
    ]


@pytest.mark.parametrize(
    ("system", "language"),
    [
        ("You are the shop's agent. Answer in English.\nCustomer: 王小明", "en"),
        ("你是商店的客服。用中文回答。\nCustomer: Alice Smith", "zh"),
    ],
)
def test_a_reply_to_text_of_no_language_is_in_the_prompts_language(system, language):
    """Round 41: wang, answered in English, said "yes please" and heard "已为您处理完成": his Chinese name in the
    prompt outweighed the prompt's "Answer in English"."""
    from agentsite.offline_model import chat, conversation

    conv = conversation.from_request(
        {"messages": [{"role": "system", "content": system}, {"role": "user", "content": "yes please"}]}
    )

    assert chat.reply_language(conv, "yes please") == language
