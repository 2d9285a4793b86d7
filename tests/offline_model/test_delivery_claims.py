"""What a customer says or asks about a parcel that came (or should have) is read as how it stands: never a
change of address ("保温杯已经送到了" asked "请提供新的收货地址"), a chase ("the headphones shipped already, didn't
they?" chased them), or an order placed on the day the parcel came ("the coffee grinder was delivered yesterday
and my refund paid, right?" was answered with the order placed yesterday, the headphones). Round 12 and a
reproduction of it."""

from __future__ import annotations

import pytest

ALICE = "You are the customer-service agent of the demo shop.\nCurrent date: 2026-12-06\nCustomer: Alice Smith"
WANG = "你是演示商店的客服。\nCurrent date: 2026-12-06\n客户：王小明"


@pytest.mark.parametrize(
    ("system", "text", "thing"),
    [
        (ALICE, "the coffee grinder was delivered yesterday and my refund paid, right?", "coffee grinder"),
        (ALICE, "has my coffee grinder arrived?", "coffee grinder"),
        (ALICE, "did my coffee grinder arrive?", "coffee grinder"),
        (ALICE, "my coffee grinder was delivered, right?", "coffee grinder"),
        (ALICE, "the headphones shipped already, didn't they?", "headphones"),
    ],
)
def test_a_parcel_named_by_what_is_in_it_is_found_by_it(say, system, text, thing):
    said = say(text, system=system)

    assert said.calls == [("list_my_orders", {"item": thing})], said


@pytest.mark.parametrize(
    "text",
    [
        "保温杯已经送到了，退款也到账了吧？",
        "包裹昨天送到了",
        "已经发到我家了",
        "保温杯昨天已经送到了，退款也到账了吧？",
    ],
)
def test_a_parcel_that_came_asks_for_no_address(say, text):
    said = say(text, system=WANG)

    assert not [name for name, _ in said.calls if "address" in name], said
    assert "收货地址" not in (said.content or ""), said


@pytest.mark.parametrize("text", ["just ship it already!", "please send my order already"])
def test_impatience_is_still_a_chase(say, text):
    said = say(text, system=ALICE)

    assert said.names == ["list_my_orders"] and said.calls[0][1] == {}, said  # the order not shipped yet, to chase


@pytest.mark.parametrize(
    "text", ["the headphones shipped already, didn't they?", "the headphones were dispatched already, right?"]
)
def test_a_claim_that_it_shipped_chases_nothing(say, answer_tools, text):
    request = [{"role": "system", "content": ALICE}, {"role": "user", "content": text}]
    listing = say(request)
    listed = {"orders": [{"order_number": "ORD-2025-0923", "status": "processing", "items": ["Headphones ×1"]}]}

    after = say(answer_tools(listing, [listed], request))

    assert after.names == ["track_shipment"] and after.calls[0][1] == {"order_number": "ORD-2025-0923"}, after
