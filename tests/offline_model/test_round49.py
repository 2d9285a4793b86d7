"""Red team round 49 (session 31): "Order 0870: …" read as an unreadable order number, a replacement instead of
money answered "no change" or proposed as a refund, "请只退运费" answered with the status, and "我只要…" read as a
thing named "要"."""

from __future__ import annotations

import pytest

from agentsite.offline_model import chat, conversation, described, nlu, slots
from tests.offline_model.systems import BOB, LI
from tests.offline_model.tool_schemas import tool_schemas


def _respond(system: str, text: str) -> chat.Reply:
    messages = [{"role": "system", "content": system}, {"role": "user", "content": text}]
    return chat.respond(conversation.from_request({"messages": messages, "tools": tool_schemas()}))


@pytest.mark.parametrize(
    ("text", "tails"),
    [
        ("Order 0870: the tent arrived missing one tent pole.", ["0870"]),
        ("Order 0931: please refund just the shipping fee, keep the rest.", ["0931"]),
        ("at 10:30 please", []),
    ],
)
def test_an_order_end_before_a_colon_is_read(text, tails):
    assert slots.order_tails(text) == tails
    assert not slots.unreadable_order(text)


@pytest.mark.parametrize(
    ("system", "text", "said"),
    [
        (BOB, "Order 0870: the tent arrived missing one tent pole. I'd like a replacement pole rather than money.",
         "arranged by a colleague"),
        (LI, "ORD-2025-0902 我想换货，不要退钱，换个别的颜色。", "人工客服安排"),
        (LI, "0902换个颜色可以吗", "人工客服安排"),
    ],
)  # fmt: skip
def test_a_replacement_is_a_colleagues_and_asks_no_refund(system, text, said):
    reply = _respond(system, text)

    assert not reply.tool_calls and said in reply.content, reply


def test_a_replacement_or_a_refund_is_still_a_refund():
    assert not nlu.asks_for_an_exchange("replace it or refund me, 0870")
    assert nlu.classify("replace it or refund me, 0870").intent is nlu.Intent.REFUND


@pytest.mark.parametrize("text", ["ORD-2025-0816 请只退运费。", "淨係退返運費俾我"])
def test_only_refunding_something_is_a_refund(text):
    """ "ORD-2025-0816 请只退运费。" got the order's status (the application refuses the part)."""
    assert nlu.classify(text).intent is nlu.Intent.REFUND


def test_a_verb_after_only_is_no_thing():
    assert described.thing_named(nlu.as_mandarin("我只要退坏的那一个的钱，八十九块。")) == ""
