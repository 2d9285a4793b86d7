"""Red team round 44 (session 30): a thing named after a question of another kind answered with the order in
sight, "please" in Cantonese read as thanks, notifications switched by a pronoun, parts of an order counted in
words the rules did not read, things named in Cantonese, and delivery wishes that were not kept."""

from __future__ import annotations

import pytest

from agentsite.offline_model import chat, conversation, described, facts, nlu
from tests.offline_model.systems import ALICE, BOB, CHEN, LI, WANG
from tests.offline_model.tool_schemas import tool_schemas


def _reply(system: str, *said: str) -> chat.Reply:
    roles = ["user", "assistant"] * len(said)
    messages = [{"role": "system", "content": system}]
    messages += [{"role": role, "content": text} for role, text in zip(roles, said, strict=False)]
    return chat.respond(conversation.from_request({"messages": messages, "tools": tool_schemas()}))


def _calls(reply: chat.Reply) -> list[tuple[str, dict]]:
    return [(c.name, c.arguments) for c in reply.tool_calls]


def test_a_thing_named_after_another_question_picks_its_own_order():
    """li, with a refund of 0902 (the yoga mat) waiting: "我有什么在等确认吗？顺便跑步鞋到哪了" got 0902's record,
    then 0850's, for the shoes: the thing was looked for in the first clause only."""
    text = "我有什么在等确认吗？顺便跑步鞋到哪了"

    assert described.thing_named(text) == "跑步鞋"
    assert _calls(_reply(LI, text)) == [("list_my_orders", {"item": "跑步鞋"})]


@pytest.mark.parametrize(
    ("text", "read"),
    [
        ("唔該將通知重新開返", "请将通知重新打开"),
        ("唔該你幫我查下", "请帮我查下"),
        ("唔該晒", "谢谢晒"),
        ("唔該，確認", "谢谢，确认"),
        ("我不要了，帮我把订单取消掉", "我不要了，帮我把订单取消掉"),
    ],
)
def test_cantonese_please_before_what_it_asks(text, read):
    """chen's "唔該將通知重新開返" (please turn notifications back on) was read as thanks, then as a wish only noted."""
    assert nlu.as_mandarin(text) == read


def test_notifications_switched_by_a_pronoun_after_the_proposal_naming_them():
    reply = _reply(
        BOB,
        "mute my notifications",
        "Shall I set your notifications to muted? Reply 'yes' to confirm.",
        "actually turn them back on",
    )

    assert _calls(reply) == [("update_notification_preference", {"preference": "on"})], reply.content


def test_a_pronoun_not_switching_anything_is_left_alone():
    reply = _reply(
        BOB, "mute my notifications", "Shall I set your notifications to muted? Reply 'yes' to confirm.", "where is it?"
    )

    assert not reply.tool_calls, reply.content


@pytest.mark.parametrize(
    ("system", "text"),
    [
        (CHEN, "三盒绿茶退两盒可以吗？"),
        (CHEN, "唔該，三盒綠茶退返兩盒得唔得？"),
        (WANG, "两个保温杯退其中一个"),
        (ALICE, "please refund one of the two desk lamps"),
        (ALICE, "refund the lamps but keep one of them"),
        (BOB, "thanks, and can you refund two of the three water bottles?"),
    ],
)
def test_some_of_an_orders_items_counted_are_a_partial_refund(system, text):
    """Round 44: these got the refund policy, or "I couldn't find what you named" (the count was read as part of the
    thing's name): a part of the order is for a colleague."""
    reply = _reply(system, text)

    assert not reply.tool_calls and ("部分退款" in reply.content or "partial refund" in reply.content), reply.content


@pytest.mark.parametrize(
    ("system", "text", "thing"),
    [
        (ALICE, "where are the two desk lamps?", "desk lamps"),
        (WANG, "唔該幫我睇下我啲保温杯去到邊", "保温杯"),
        (CHEN, "我盞燈呢？", "灯"),
    ],
)
def test_things_named_with_counts_or_cantonese_words(system, text, thing):
    assert _calls(_reply(system, text)) == [("list_my_orders", {"item": thing})]


@pytest.mark.parametrize(
    ("text", "wish"),
    [
        ("谢谢啦，帮我记一下：以后快递都放楼下丰巢柜，别打电话，只发短信", "以后快递都放楼下丰巢柜"),
        (
            "请记住：我的快递请放到楼下丰巢快递柜，工作日白天家里没人",
            "我的快递请放到楼下丰巢快递柜，工作日白天家里没人",
        ),
    ],
)
def test_a_delivery_wish_is_kept_beside_anything_else_said(text, wish):
    """Round 44: the locker was dropped beside a channel asked for, and "请放到…" (a wish in a request's words)
    was no wish."""
    found = facts.find(nlu.as_mandarin(text))

    assert (wish, facts.PREFERENCE) in [(f.value, f.kind) for f in found], found


def test_one_orders_parcel_is_no_delivery_wish():
    assert facts.find("请把0901的快递放门卫") == []
