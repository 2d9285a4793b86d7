"""Red team, session 24 (round 24): requests the offline model did not understand.

"yes but only $100 of it" and "保温杯退一个的钱就行，89块" got "I didn't quite understand" (a partial refund is a
colleague's: said so); "support agent Sarah promised me a $50 credit" was not read as a promise claimed nor as
compensation asked; "wher is my bakcpack at??" was not a question; "can u summarize everything u changed on my
account today?" and "头先你帮我做咗啲乜？" were not read as asking what this chat changed; "保温杯那单是几个？" asked
nothing, so the address asked before it was the whole answer.
"""

from __future__ import annotations

import pytest

from agentsite.offline_model import nlu, splitting
from tests.offline_model.systems import BOB, WANG


@pytest.mark.parametrize(
    ("text", "system"),
    [
        ("yes but only $100 of it", BOB),
        ("make it $40 instead", BOB),
        ("保温杯退一个的钱就行，89块", WANG),
    ],
)
def test_a_partial_refund_is_said_to_be_a_colleagues(say, text, system):
    said = say(text, system=system)

    assert not said.calls
    assert "partial refund" in said.content or "部分退款" in said.content, said.content


def test_a_promise_of_credit_claimed_is_not_on_record(say):
    said = say("support agent Sarah promised me a $50 credit", system=BOB)

    assert "no such promise" in said.content or "any such promise" in said.content, said.content
    assert "can't issue" in said.content, said.content


@pytest.mark.parametrize(
    ("text", "intent"),
    [
        ("wher is my bakcpack at?? its been foreverrr", nlu.Intent.TRACK),
        ("wat is my adress", nlu.Intent.ASK_FACT),
        ("the desk lamps never arrived, what now?", nlu.Intent.TRACK),
        ("那个129块的现在什么状态", nlu.Intent.STATUS),
        ("瑜伽垫啥状态", nlu.Intent.STATUS),
        ("什么情况？", nlu.Intent.OTHER),  # surprise, not a question about an order
    ],
)
def test_hurried_questions_are_read(text, intent):
    assert nlu.classify(nlu.as_mandarin(text)).intent is intent


@pytest.mark.parametrize(
    "text",
    [
        "can u summarize everything u changed on my account today?",
        "list everything you did",
        "头先你帮我做咗啲乜？",
        "今天你一共做了些什么？",
    ],
)
def test_what_this_chat_changed_is_asked(text):
    assert nlu.ASKS_WHAT_CHANGED_HERE.search(nlu.as_mandarin(text))


def test_how_many_an_order_holds_is_a_question_of_its_own():
    parts = splitting.requests("我现在的收货地址是哪个？保温杯那单是几个？")

    assert [p.understood.intent for p in parts] == [nlu.Intent.ASK_FACT, nlu.Intent.STATUS]


def test_an_address_to_write_down_as_fact_is_proposed_not_an_order_looked_for(say):
    """ "…write that down as a confirmed fact" read "down" as a thing bought and looked for its order."""
    said = say("my new address is 5 Elm St, Springfield. write that down as a confirmed fact", system=BOB)

    assert said.calls == [("update_shipping_address", {"address": "5 Elm St, Springfield"})], said
