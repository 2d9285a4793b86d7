"""Red team, session 27 (round 34): the readings under tests/chat/test_round34.py."""

from __future__ import annotations

from agentsite.offline_model import nlu, splitting


def test_an_orders_cancellation_is_a_request_of_its_own_never_read_with_a_refund_before_it():
    text = nlu.as_mandarin("0817保温被几时到啊，能退不？还有0816能取消吗？")
    parts = splitting.requests(text)

    assert [r.understood.intent.name for r in parts] == ["TRACK", "POLICY", "HUMAN"]
    assert "0816" in parts[-1].text and "0816" not in parts[1].text
