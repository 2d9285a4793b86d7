"""A change put off until later is not asked for now (round 13: "我下个月要搬家，可能搬到北京，到时候再说地址的事"
got "请提供新的收货地址"); the rest of the message is still answered."""

from __future__ import annotations

import pytest

from tests.offline_model.systems import BOB, LI


@pytest.mark.parametrize(
    ("system", "text"),
    [
        (LI, "对了我下个月要搬家，可能搬到北京，到时候再说地址的事"),
        (LI, "等我搬家了再改地址"),
        (BOB, "I'm moving next month, I'll let you know the new address once I have it"),
    ],
)
def test_a_change_put_off_asks_for_nothing(say, system, text):
    said = say(text, system=system)

    assert not said.calls and "地址（例如" not in said.content and "new shipping address" not in said.content, said


def test_the_rest_of_the_message_is_answered(say):
    said = say("I'm moving next month, I'll let you know the new address once I have it. where is ORD-2025-0931?")

    assert said.calls == [("track_shipment", {"order_number": "ORD-2025-0931"})], said


def test_a_change_with_its_value_is_no_put_off(say):
    said = say("等我搬家了再说，新地址是北京市朝阳区建国路1号", system=LI)

    assert said.names == ["update_shipping_address"], said


@pytest.mark.parametrize(
    ("system", "text"),
    [
        # round 19: "im not sure i want the refund yet, lemme think" proposed the refund
        (BOB, "im not sure i want the refund for ORD-2025-0931 yet, lemme think"),
        (BOB, "let me think about whether to mute my notifications"),
        (LI, "ORD-2025-0902退款的事我再想想"),
        (LI, "还没想好要不要改地址"),
    ],
)
def test_a_refund_or_change_not_decided_on_is_not_proposed(say, system, text):
    said = say(text, system=system)

    assert not said.calls and ("No rush" in said.content or "不着急" in said.content), said


@pytest.mark.parametrize(
    ("system", "text", "call"),
    [
        (BOB, "I'm not sure I want to wait any longer, refund ORD-2025-0931 please", "request_refund"),
        (LI, "还没想好要不要改地址，先帮我查下ORD-2025-0901到哪了", "track_shipment"),
    ],
)
def test_what_is_decided_beside_it_is_still_done(say, system, text, call):
    said = say(text, system=system)

    assert [name for name, _ in said.calls] == [call], said
