"""Red team, session 27 (round 34): the readings under tests/chat/test_round34.py."""

from __future__ import annotations

import pytest

from agentsite.offline_model import nlu, replies, splitting
from tests.offline_model import systems


def test_an_orders_cancellation_is_a_request_of_its_own_never_read_with_a_refund_before_it():
    text = nlu.as_mandarin("0817保温被几时到啊，能退不？还有0816能取消吗？")
    parts = splitting.requests(text)

    assert [r.understood.intent.name for r in parts] == ["TRACK", "POLICY", "HUMAN"]
    assert "0816" in parts[-1].text and "0816" not in parts[1].text


def _after_an_offer(say, system, offer: str, answer: str):
    return say(
        [
            {"role": "user", "content": "0942綠茶退$30"},
            {"role": "assistant", "content": offer},
            {"role": "user", "content": answer},
        ],
        system=system,
    )


def test_money_in_dollars_asked_back_in_chinese_is_a_refund():
    assert nlu.classify(nlu.as_mandarin("0942綠茶退$30")).intent is nlu.Intent.REFUND


def test_a_cantonese_yes_takes_up_the_colleague_offered(say):
    offer = (
        "抱歉，这里只能为订单ORD-2025-0942申请全额退款（¥204.00）；部分退款需要人工客服处理，需要的话我可以为您转接。"
    )
    assert _after_an_offer(say, systems.CHEN, offer, "得，唔該").names == ["escalate_to_human"]


def test_whether_this_chat_made_a_change_is_answered_from_what_it_made(say):
    said = say("你頭先已經幫我改咗地址㗎啦，係咪？", system=systems.CHEN)
    assert said.content == "这次对话里没有做任何改动。", said


@pytest.mark.parametrize(
    "text", ["之前有冇人應承過我啲咩？", "what did you promise me?", "did anyone promise me anything?"]
)
def test_promises_asked_are_answered_from_the_record(say, text):
    said = say(text, system=systems.CHEN if "應" in text else systems.BOB)
    assert said.content in (replies.phrase("no_promises", "zh"), replies.phrase("no_promises", "en")), said


def test_promises_on_record_are_said(say):
    said = say(
        "what did you promise me?",
        system=systems.BOB,
        memory=[
            "- [confirmed] The shop's promise: a colleague will call you back about ORD-2025-0870 by 2026-12-08 17:00"
        ],
    )
    assert "call you back about ORD-2025-0870" in (said.content or ""), said


def test_a_no_to_nothing_asked_says_nothing_waits(say):
    assert say("no", system=systems.BOB).content == replies.phrase("deny_nothing_asked", "en")


def test_a_yes_going_ahead_with_that_is_a_yes():
    assert nlu.classify("yes, go ahead with that").intent is nlu.Intent.CONFIRM


def test_a_change_asked_before_is_proposed_when_pointed_at(say):
    said = say(
        "Please go ahead with what I asked for last time about my contact settings.",
        system=systems.BOB,
        memory=[
            "- [confirmed] We contact the customer by email {key=contact_channel; value=email}",
            "- [requested] The customer prefers to be contacted by SMS {key=contact_channel; value=sms}",
        ],
    )
    assert said.calls == [("update_contact_channel", {"channel": "sms"})], said


def test_a_channel_we_do_not_use_asked_in_cantonese_is_understood():
    assert nlu.classify(nlu.as_mandarin("以後用WhatsApp搵我")).intent is nlu.Intent.SET_CHANNEL


def test_a_second_refund_of_a_refunded_order_is_asked_of_the_shop():
    """It refuses it with its reason; the order's status alone said no "no"."""
    assert (
        nlu.classify(nlu.as_mandarin("电动牙刷ORD-2025-0850能再退一次吗？上次好像没退全")).intent is nlu.Intent.REFUND
    )


_RECORDS_ZH = [
    "- [已确认] 商店记录：客户的收货地址是四川省成都市武侯区人民南路 88 号 {key=shipping_address; value=四川省成都市武侯区人民南路 88 号}"
]


def test_no_phone_on_the_account_is_said_so(say):
    """chen has none: "not sure, tell me and I'll note it" read as if the shop might have one."""
    said = say("what is my phone number?", system=systems.CHEN, memory=_RECORDS_ZH)
    assert said.content == "There is no phone number on your account.", said


def test_a_phone_told_in_cantonese_is_said_as_told_and_not_on_the_account(say):
    said = say(
        [
            {"role": "user", "content": "我電話係 9123 4567"},
            {"role": "assistant", "content": "好的，已记下您告诉我们的电话号码：91234567。"},
            {"role": "user", "content": "我電話號碼係幾多？"},
        ],
        system=systems.CHEN,
        memory=_RECORDS_ZH,
    )
    assert "没有登记电话号码" in said.content and "91234567" in said.content, said


def test_an_incomplete_address_among_several_requests_leaves_the_others_answered(say):
    """Only the request for the full address was said, and the tracking question and the mute were dropped."""
    said = say("我部空气净化器0941到咗未？同埋帮我将通知改成静音，同埋地址改去文三路398号", system=systems.CHEN)
    assert "update_notification_preference" in said.names and "update_shipping_address" not in said.names, said
