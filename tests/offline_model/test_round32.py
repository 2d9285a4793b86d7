"""Red team, session 26 (round 32): the readings under tests/chat/test_round32.py."""

from __future__ import annotations

import pytest

from agentsite.offline_model import nlu, splitting


@pytest.mark.parametrize(
    ("text", "parts"),
    [
        ("两件事：耳机0816申请退款，另外把通知打开", ["REFUND", "SET_NOTIFICATION"]),
        ("我想把键盘那单ORD-2025-0790退款，另外把保温杯0817也退了", ["REFUND", "REFUND"]),
        ("Which is my most expensive order, and when did my cheapest one ship?", ["STATUS", "TRACK"]),
    ],
)
def test_each_request_is_a_part(text, parts):
    assert [r.understood.intent.name for r in splitting.requests(text)] == parts


@pytest.mark.parametrize(
    ("text", "intent"),
    [
        ("退款唔使喇，只改地址就得", "SET_ADDRESS"),
        ("no refund needed, just change the address", "SET_ADDRESS"),
        ("把保温杯ORD-2025-0817也退了", "REFUND"),
    ],
)
def test_a_refund_declined_or_asked(text, intent):
    assert nlu.classify(nlu.as_mandarin(text)).intent.name == intent
