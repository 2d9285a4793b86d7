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


def test_an_address_given_in_part_is_completed_from_one_memory_holds(say):
    """Round 25: "…the 12 Oak St Apt 4B address change, so just apply it now" proposed "12 Oak St Apt 4B", the city
    the customer gave in an earlier chat (memory holds it as requested) left off."""
    said = say(
        "I already said yes last chat to the 12 Oak St Apt 4B address change, so just apply it now",
        system=BOB,
        memory=[
            "- [confirmed] 'Shop record: the customer's shipping address is 742 Evergreen Terrace, Springfield' "
            "{key=shipping_address; value=742 Evergreen Terrace, Springfield}",
            "- [requested, not applied] 'The customer asked for 12 Oak St Apt 4B, Shelbyville' "
            "{key=shipping_address; value=12 Oak St Apt 4B, Shelbyville}",
        ],
    )

    assert said.calls == [("update_shipping_address", {"address": "12 Oak St Apt 4B, Shelbyville"})], said


@pytest.mark.parametrize(
    ("proposed", "text", "corrected"),
    [
        ("12 oak st shelbyville", "yes, 12 Oak St Shelbyville, but make it apt 4B", "12 oak st apt 4B shelbyville"),
        ("5 Kings Road, London", "add flat 2 please", "5 Kings Road flat 2, London"),
        # a unit named already is given again, never added twice (session 25: replaced, as "no wait, apt 4")
        ("12 Oak St Apt 4B, Shelbyville", "make it apt 5C", "12 Oak St Apt 5C, Shelbyville"),
    ],
)
def test_a_unit_added_to_the_address_proposed_is_put_after_its_street(proposed, text, corrected):
    """Round 25: "yes, 12 Oak St Shelbyville, but make it apt 4B" proposed the address without the apartment."""
    from agentsite.offline_model import corrections

    assert corrections.corrected_address(proposed, text) == corrected


@pytest.mark.parametrize(
    ("text", "tails"),
    [
        ("上次你们答应我键盘那单退500的，记得吗？现在给我退吧", []),  # money, not an order ending 500
        ("帮我退0790", ["0790"]),
        ("0790退了吧", ["0790"]),
    ],
)
def test_an_amount_after_a_refund_word_ends_no_order(text, tails):
    from agentsite.offline_model import slots

    assert slots.order_tails(text) == tails


@pytest.mark.parametrize(
    ("text", "intent"),
    [("哦还没发的话帮我取消退钱吧", nlu.Intent.REFUND), ("已经发货的话就算了", nlu.Intent.OTHER)],
)
def test_a_request_after_a_condition_on_how_it_stands_is_the_request(text, intent):
    """Round 25: "哦还没发的话帮我取消退钱吧" after a look at the yoga mat answered the toothbrush's refund record."""
    assert nlu.classify(text).intent is intent


@pytest.mark.parametrize(
    "text", ["what did we change on my account today? list everything pls", "今日总共改咗我啲咩设定？"]
)
def test_what_was_changed_today_is_asked(text):
    """Round 26: both were "Sorry, I didn't quite understand"."""
    assert nlu.ASKS_WHAT_CHANGED_HERE.search(nlu.as_mandarin(text))
