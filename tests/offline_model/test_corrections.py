"""A value taken back in the same message: the request goes on with the value given last; a message that only
sounds like a correction ("味道不对", "no rush") or adds a second value keeps every value it names."""

from __future__ import annotations

import pytest

from agentsite.offline_model import described, slots
from agentsite.offline_model.corrections import as_meant


@pytest.mark.parametrize(
    ("text", "tool", "argument", "value"),
    [
        # round-7 red team's: the first value was proposed
        (
            "地址改成杭州市西湖区文三路15号，哦不对，改成文三路18号",
            "update_shipping_address",
            "address",
            "杭州市西湖区文三路18号",
        ),
        (
            "change my address to 12 Oak Lane, London, no wait, 14 Oak Lane, London",
            "update_shipping_address",
            "address",
            "14 Oak Lane, London",
        ),
        ("switch my contact to sms, actually no, make it phone", "update_contact_channel", "channel", "phone"),
        ("联系方式改成短信，算了，还是微信吧", "update_contact_channel", "channel", "wechat"),
        ("refund ORD-2025-0931, sorry I mean ORD-2025-0932", "request_refund", "order_number", "ORD-2025-0932"),
        ("退款ORD-2025-0931，不对不对，是ORD-2025-0932", "request_refund", "order_number", "ORD-2025-0932"),
        ("email me from now on, no, text me", "update_contact_channel", "channel", "sms"),
        ("以后用邮件联系我。打错了，用短信", "update_contact_channel", "channel", "sms"),
        # round-8 red team's: only the room number given again
        (
            "帮我把地址换成 北京市朝阳区建国路88号SOHO现代城2号楼1203 不是，是1204",
            "update_shipping_address",
            "address",
            "北京市朝阳区建国路88号SOHO现代城2号楼1204",
        ),
    ],
)
def test_the_request_goes_on_with_the_value_given_last(say, text, tool, argument, value):
    said = say(text)

    assert [name for name, _ in said.calls] == [tool], said
    assert said.calls[0][1][argument] == value, said


@pytest.mark.parametrize(
    "text",
    [
        "绿茶喝着味道不对，退款ORD-2025-0942",
        "ORD-2025-0942的绿茶味道不对，ORD-2025-0943也退款",
        "refund ORD-2025-0931, no rush, and ORD-2025-0932",
        "refund ORD-2025-0931, wait, also ORD-2025-0932",
        "退款ORD-2025-0931，等等，ORD-2025-0932也退",
        "I mean it: refund ORD-2025-0931 and ORD-2025-0932",
        "can't wait for ORD-2025-0931, sorry to chase, is ORD-2025-0932 shipped?",
    ],
)
def test_a_message_that_takes_nothing_back_is_read_as_written(text):
    assert as_meant(text) == text


def test_several_corrections_end_on_the_last_value():
    assert as_meant("change it to sms. no wait. wechat. sorry I mean phone") == "change it to phone"


def test_a_correction_of_the_amount_keeps_the_order():
    assert as_meant("refund $50, sorry, $40 of ORD-2025-0931") == "refund $40 of ORD-2025-0931"


@pytest.mark.parametrize(
    ("text", "meant"),
    [
        # round-12 red team's: 0901 was proposed first and refunded on "嗯 确认"
        ("帮我退0901，不对，是0902", "帮我退0902"),
        ("refund 0923, sorry I mean 0924", "refund 0924"),
        # round-12 red team's: 100号 proposed; the building and room come with the new number
        ("地址改成广州市天河区体育西路100号，不对，是101号 2单元502", "地址改成广州市天河区体育西路101号2单元502"),
    ],
)
def test_an_orders_end_or_a_number_with_its_room_taken_back_is_replaced(text, meant):
    assert as_meant(text).rstrip("，, ") == meant


@pytest.mark.parametrize(
    ("text", "meant"),
    [
        # red team, session 19: "Sorry, I didn't quite understand"
        ("Can u cancel 0923? actually wait no, refund 0880 instead", "refund 0880 instead"),
        ("track 0931, actually no, refund 0932 instead", "refund 0932 instead"),
        ("把通知关了，算了，还是改成短信联系吧", "改成短信联系吧"),
    ],
)
def test_a_request_taken_back_for_another_is_the_other(text, meant):
    assert as_meant(text) == meant


@pytest.mark.parametrize(
    ("text", "meant"),
    [
        # round-19 red team's: a third order was answered; the thing is named before the request's words
        ("帮我申请跑步鞋的退款，啊不对不对，是瑜伽垫那单", "帮我申请瑜伽垫的退款"),
        ("跑步鞋退款，不对，是瑜伽垫", "瑜伽垫退款"),
        ("跑步鞋那单到哪了，哦不对，我是说瑜伽垫", "瑜伽垫那单到哪了"),
        ("0901退款，不对，是0902", "0902退款"),  # was "0902", the request lost
        ("0901退款，不对，是0902，顺便查下物流", "0902退款，顺便查下物流"),
        # Cantonese and traditional markers
        ("退0901，唔係，係0902", "退0902"),
        ("退0901，不對，是0902", "退0902"),
        # round 20: the value before the last correction was proposed (email)
        ("switch my contact to SMS, no wait, email. actually make it wechat", "switch my contact to wechat"),
    ],
)
def test_a_value_taken_back_before_the_requests_words_is_replaced_where_it_stood(text, meant):
    assert as_meant(text) == meant


def test_only_the_request_ended_on_is_made(say):
    said = say("Can u cancel ORD-2025-0923? actually wait no, refund ORD-2025-0880 instead")

    assert said.calls == [("request_refund", {"order_number": "ORD-2025-0880", "reason": said.calls[0][1]["reason"]})]


@pytest.mark.parametrize(
    ("typed", "word", "alike"),
    [
        ("bakcpack", "backpack", True),
        ("backpak", "backpack", True),
        ("grindr", "grinder", True),
        ("headphnes", "headphones", True),
        ("tent", "tant", False),  # under five letters: exact only
        ("bottle", "bottles", True),
        ("lamp", "lamps", False),
        ("kettle", "bottle", False),
    ],
)
def test_a_thing_typed_with_a_slip(typed, word, alike):
    assert described.spelled_alike(typed, word) is alike


@pytest.mark.parametrize(
    ("numeral", "value"),
    [
        ("一百七十八", 178),
        ("一百五", 150),
        ("两千零九", 2009),
        ("三十九", 39),
        ("十五", 15),
        ("一万二", 12000),
        ("一百零五", 105),
    ],
)
def test_chinese_numerals_of_an_amount(numeral, value):
    assert slots.zh_integer(numeral) == value
