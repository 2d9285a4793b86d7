"""Red team, session 28 (round 39): the readings under tests/chat/test_round39.py."""

from __future__ import annotations

import pytest

from agentsite.offline_model import nlu, slots, subjects
from agentsite.offline_model.nlu import Intent


@pytest.mark.parametrize(
    ("text", "intent"),
    [
        ("0942那三盒绿茶，退其中两盒", Intent.REFUND),
        ("0942嘅綠茶退兩盒啦", Intent.REFUND),
        ("0942退三分之一", Intent.REFUND),
        ("0902退款，前提是还没发货", Intent.REFUND),
        ("0901和0850分别怎么样了？", Intent.STATUS),
        ("and 0870?", Intent.STATUS),
        ("保温杯退一个的钱就行，89块", Intent.OTHER),  # part of its money: the model says it is a colleague's
    ],
)
def test_round_39_requests_are_read(text, intent):
    assert nlu.classify(text).intent is intent


def test_an_order_end_before_fen_bie_is_an_order():
    assert slots.order_tails("0901和0850分别怎么样了？") == ["0901", "0850"]


@pytest.mark.parametrize(
    ("text", "listed"),
    [
        ("我的默认地址、通知方式是什么？", ["shipping_address", "contact_channel"]),
        ("My notification setting and contact channel please", ["notification_preference", "contact_channel"]),
    ],
)
def test_listed_subjects_with_a_longer_name_and_a_please(text, listed):
    assert subjects.listed_subjects(text) == listed
