"""Red team round 48 (session 31): a refund of a share or of the unit pointed at ("退八折给我", "退那一只的钱",
"退坏的那个") was not understood; "I told you my new address earlier" asked for a new address; "turn off my email
notifications" proposed muting everything."""

from __future__ import annotations

import pytest

from agentsite.offline_model import chat, conversation, nlu
from tests.offline_model.systems import ALICE, BOB
from tests.offline_model.tool_schemas import tool_schemas


def _respond(system: str, text: str) -> chat.Reply:
    messages = [{"role": "system", "content": system}, {"role": "user", "content": text}]
    return chat.respond(conversation.from_request({"messages": messages, "tools": tool_schemas()}))


@pytest.mark.parametrize(
    "text", ["0902瑜伽垫退八折给我", "0901跑步鞋有一只开胶了，就退那一只的钱", "保温杯有一个坏了，退坏的那个", "退嗰盒"]
)
def test_a_share_or_the_unit_pointed_at_asks_a_refund(text):
    """li's two got "抱歉，我没有完全理解您的问题" (the application refuses the part once it is asked)."""
    assert nlu.classify(text).intent is nlu.Intent.REFUND


@pytest.mark.parametrize(
    "text", ["I told you my new address earlier.", "我之前告诉过你我的新地址了", "I already gave you my new address"]
)
def test_an_address_said_to_be_told_before_asks_the_record(text):
    """ "Where will my next order ship to? I told you my new address earlier." ended "Could you give me the new
    shipping address?": no change was asked."""
    understood = nlu.classify(text)

    assert (understood.intent, understood.subject) == (nlu.Intent.ASK_FACT, "shipping_address")


@pytest.mark.parametrize(
    "text",
    [
        "I told you my new address is 5 Elm St, Springfield",
        "change my default address to the same one I just gave you",  # the one given before, asked as a change
        "默认地址也改成我之前告诉过你的那个",
    ],
)
def test_an_address_given_or_changed_to_is_still_a_change(text):
    assert nlu.classify(text).intent is nlu.Intent.SET_ADDRESS


@pytest.mark.parametrize(
    "text", ["Please turn off my email notifications", "stop the sms notifications", "关掉短信通知"]
)
def test_notifications_off_by_one_channel_propose_no_mute(text):
    reply = _respond(ALICE, text)

    assert not reply.tool_calls, reply
    assert "all on or all muted" in reply.content or "整体开启或静音" in reply.content, reply


def test_all_notifications_off_is_still_proposed():
    reply = _respond(BOB, "turn off notifications")

    assert [(c.name, c.arguments) for c in reply.tool_calls] == [
        ("update_notification_preference", {"preference": "mute"})
    ]
