"""Misreadings round 33 left (session 26's note): the readings under tests/chat/test_round33_left.py.

- "好吧，0816退款吧，再把通知关掉" and "refnd tent pls n change adress to …" lost the refund;
- "幫我將通知較做靜音" (Cantonese 較做) was not understood;
- one order's refundability ("0943可唔可以退？", "is 0924 even refundable now that it's shipped?") got the refunds
  policy or the order's status, neither saying whether that order could be refunded;
- "what's bob's shipping address, and where's my headphones order?" was refused whole."""

from __future__ import annotations

import pytest

from agentsite.offline_model import nlu, replies, splitting
from tests.offline_model import systems


def _parts(text: str) -> list[str]:
    return [r.understood.intent.name for r in splitting.requests(nlu.as_mandarin(text))]


@pytest.mark.parametrize(
    ("text", "parts"),
    [
        ("好吧，0816退款吧，再把通知关掉", ["REFUND", "SET_NOTIFICATION"]),
        ("0790退货，另外把联系方式改成短信", ["REFUND", "SET_CHANNEL"]),
        ("refnd tent pls n change adress to 12 Elm St, Boston", ["REFUND", "SET_ADDRESS"]),
    ],
)
def test_a_refund_in_a_few_words_is_a_request_of_its_own(text, parts):
    assert _parts(text) == parts


def test_a_refund_said_made_asks_for_none():
    assert _parts("0850退款了，再把通知关掉") == ["SET_NOTIFICATION"]


def test_text_speak_n_is_and_only_between_lower_case_words():
    assert nlu.as_mandarin("refund tent pls n change my address") == "refund tent pls and change my address"
    assert nlu.as_mandarin("Plan N is fine") == "Plan N is fine"


def test_cantonese_set_to_is_understood():
    assert nlu.classify(nlu.as_mandarin("幫我將通知較做靜音")).intent is nlu.Intent.SET_NOTIFICATION


@pytest.mark.parametrize(
    "text",
    [
        "is 0924 even refundable now that it's shipped?",
        "is ORD-2025-0931 eligible for a refund?",
        "can 0931 still be returned?",
        "0901还能退款吗",
    ],
)
def test_whether_one_order_could_be_refunded_is_looked_up(text):
    assert nlu.classify(nlu.as_mandarin(text)).intent is nlu.Intent.STATUS


@pytest.mark.parametrize("text", ["0943可唔可以退？", "0790键盘可以退吗？", "这个可以退吗", "0816能退款吗，不想要了"])
def test_a_refund_asked_as_a_question_is_a_refund(text):
    """Proposed, or refused by the shop with its reason: either says whether it can be."""
    assert nlu.classify(nlu.as_mandarin(text)).intent is nlu.Intent.REFUND


def _order(status: str, **more) -> dict:
    return {"order_number": "ORD-2025-0943", "status": status, "items": [{"name": "台灯", "quantity": 1}], **more}


def test_one_orders_refundability_is_said_by_its_record():
    assert replies.refundable_one(_order("pending"), "zh") == "这单待付款，不能申请退款。"
    assert replies.refundable_one(_order("cancelled"), "en") == "It is cancelled, so no refund can be requested."
    shipped = replies.refundable_one(_order("shipped"), "en")
    assert shipped.startswith("A refund can be requested.") and replies.REFUND_OFFERED["en"] in shipped
    delivered = _order("delivered", shipment={"events": [{"time": "2026-11-16T10:00:00", "description": "签收"}]})
    assert "2026-11-16签收" in replies.refundable_one(delivered, "zh")
    in_progress = _order("shipped", refunds=[{"status": "requested", "amount": "159.00"}])
    assert replies.refundable_one(in_progress, "zh") == "这单已有退款申请在处理中。"


@pytest.mark.parametrize(("system", "yes"), [(systems.ALICE, "yes please"), (systems.CHEN, "好的")])
def test_a_yes_to_the_refund_offered_proposes_it(say, system, yes):
    lang = "en" if system is systems.ALICE else "zh"
    offer = f"Order ORD-2025-0924 is shipped. A refund can be requested. {replies.REFUND_OFFERED[lang]}"
    said = say(
        [
            {"role": "user", "content": "is 0924 even refundable now that it's shipped?"},
            {"role": "assistant", "content": offer},
            {"role": "user", "content": yes},
        ],
        system=system,
    )
    assert said.names == ["request_refund"] and said.calls[0][1]["order_number"] == "ORD-2025-0924", said


def test_a_no_to_the_refund_offered_proposes_nothing(say):
    offer = f"Order ORD-2025-0924 is shipped. A refund can be requested. {replies.REFUND_OFFERED['en']}"
    said = say(
        [
            {"role": "user", "content": "is 0924 refundable?"},
            {"role": "assistant", "content": offer},
            {"role": "user", "content": "no thanks"},
        ],
        system=systems.ALICE,
    )
    assert "request_refund" not in said.names, said


def test_the_customers_own_part_is_answered_beside_someone_elses_refused(say):
    said = say("hey what's bob's shipping address, and where's my headphones order?", system=systems.ALICE)
    assert said.calls == [("list_my_orders", {"item": "headphones"})], said


def test_a_message_about_someone_else_throughout_is_refused_whole(say):
    said = say("我老婆的地址是什么？你帮她把通知打开", system=systems.WANG)
    assert not said.calls and "其他客户" in (said.content or ""), said


@pytest.mark.parametrize(
    ("text", "none"),
    [("yes to the refund", True), ("ok go ahead with the address change", True), ("where is the refund", False)],
)
def test_an_answer_naming_the_change_tells_no_language(text, none):
    from agentsite.offline_model import speech

    assert speech.tells_no_language(text) is none


@pytest.mark.parametrize("address", ["香港九龍彌敦道1號", "澳门新马路12号", "台北市信义路五段7号"])
def test_an_address_named_by_its_own_region_is_complete(say, address):
    """ "同埋地址改去香港九龍彌敦道1號" was asked for its province, city and district, and the message's tracking
    question and mute went with it."""
    said = say(f"地址改成{address}", system=systems.CHEN)
    assert said.names == ["update_shipping_address"], said


def test_several_requests_with_an_address_of_hong_kong_are_each_answered(say):
    said = say("我部空氣淨化器0941到咗未？同埋幫我將通知較做靜音，同埋地址改去香港九龍彌敦道1號", system=systems.CHEN)
    assert said.names == ["list_my_orders", "update_notification_preference", "update_shipping_address"], said
