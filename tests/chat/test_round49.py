"""Red team round 49 (session 31): the shipping alone (made: ¥1,299 on "淨係退返運費"), a missing or broken piece
("refund the cable", "键帽的钱退给我"), a replacement instead of money were proposed as the whole order's refund; and
"不，改成 0901 的一半吧" kept 0902's refund waiting, which "确认" made."""

from __future__ import annotations

import pytest

from chat.agent import run_turn
from chat.answers import asks_for_an_exchange, asks_for_part, asks_for_some_items, in_simplified, opens_with_a_bare_no
from chat.models import PendingAction, Refund
from tests.chat.demo_chat import demo_customer

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.mark.parametrize(
    ("who", "ask", "yes", "order"),
    [
        ("chen", "ORD-2025-0941 淨係退返運費俾我得唔得？", "係", "ORD-2025-0941"),
        ("wang", "ORD-2025-0816 请只退运费。", "确认", "ORD-2025-0816"),
        ("alice", "For order 0924, the grinder's power cable is missing. Please refund the cable.", "yes", "ORD-2025-0924"),
        ("alice", "My coffee grinder (0924) came without the small cleaning brush. Could you refund me for the missing brush?", "yes", "ORD-2025-0924"),  # noqa: E501
        ("wang", "ORD-2025-0790 的键盘少了一个键帽，键帽的钱退给我。", "确认", "ORD-2025-0790"),
        ("bob", "Order 0870: the tent arrived missing one tent pole. I'd like a replacement pole rather than money.", "yes", "ORD-2025-0870"),  # noqa: E501
        ("li", "ORD-2025-0902 我想换货，不要退钱，换个别的颜色。", "好的", "ORD-2025-0902"),
    ],
)  # fmt: skip
def test_a_piece_the_shipping_or_a_replacement_is_never_refunded_whole(who, ask, yes, order):
    user, conversation = demo_customer(who)

    reply = run_turn(user.pk, conversation, ask).reply
    run_turn(user.pk, conversation, yes)

    assert not Refund.objects.filter(order__number=order).exists(), reply
    assert "人工客服" in reply or "colleague" in reply, reply


def test_a_bare_no_then_another_order_drops_the_waiting_refund():
    """li: "不，改成 ORD-2025-0901 的一半吧。" answered 0901's status and kept 0902's ¥129 waiting; "确认" made it."""
    user, conversation = demo_customer("li")
    run_turn(user.pk, conversation, "ORD-2025-0902 瑜伽垫全额退款。")

    reply = run_turn(user.pk, conversation, "不，改成 ORD-2025-0901 的一半吧。").reply
    run_turn(user.pk, conversation, "确认")

    assert not Refund.objects.filter(order__number="ORD-2025-0902").exists(), reply
    assert not PendingAction.objects.filter(customer=user, status="pending").exists(), reply


@pytest.mark.parametrize(
    ("text", "items", "part"),
    [
        ("Please refund the cable.", [("Coffee grinder", 1)], True),
        ("Could you refund me for the missing brush?", [("Coffee grinder", 1)], True),
        ("the tent arrived missing one tent pole", [("Tent", 1)], True),
        ("键盘少了一个键帽，键帽的钱退给我", [("机械键盘", 1)], True),
        ("refund the tent", [("Tent", 1)], False),
        ("refund me for the headphones", [("Noise-cancelling headphones", 1)], False),
        ("refund the rest of it", [("Tent", 1)], False),
        ("refund the most expensive", [("Tent", 1)], False),
        ("快递少了一件，退款", [("保温杯", 2)], False),
        ("the tent is missing, refund it", [("Tent", 1)], False),
    ],
)
def test_a_piece_of_an_item(text, items, part):
    assert asks_for_some_items(in_simplified(text), items) is part


def test_a_thing_of_another_order_is_no_piece():
    """ "refund the desk lamp and the coffee grinder": the lamp is 0880's, no piece of the grinder (CI caught it)."""
    text = "refund the desk lamp and the coffee grinder"

    assert asks_for_some_items(text, [("Coffee grinder", 1)]) is True  # what was read before the customer's things
    assert asks_for_some_items(text, [("Coffee grinder", 1)], ["Desk lamp", "Noise-cancelling headphones"]) is False


@pytest.mark.parametrize(
    ("text", "part"),
    [
        ("淨係退返運費俾我得唔得？", True),
        ("请只退运费", True),
        ("refund just the shipping", True),
        ("退款，运费也退", False),
    ],
)
def test_the_shipping_alone_is_a_part(text, part):
    assert asks_for_part(in_simplified(text), "1299") is part


@pytest.mark.parametrize(
    ("text", "exchange"),
    [
        ("I'd like a replacement pole rather than money.", True),
        ("我想换货，不要退钱，换个别的颜色。", True),
        ("just send me a new one", True),
        ("replace it or refund me", False),  # either: a refund is asked too
        ("退款后我再买个新的", False),
    ],
)
def test_a_replacement_instead_of_money(text, exchange):
    assert asks_for_an_exchange(in_simplified(text)) is exchange


@pytest.mark.parametrize(
    ("text", "bare"),
    [
        ("不，改成 ORD-2025-0901 的一半吧。", True),
        ("no - the backpack instead", True),
        ("cancel the tent thing", False),
    ],
)
def test_a_bare_no_first(text, bare):
    assert opens_with_a_bare_no(in_simplified(text)) is bare
