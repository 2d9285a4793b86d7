"""Red team, session 25 (round 29): the readings under tests/chat/test_round29.py."""

from __future__ import annotations

import pytest

from agentsite.offline_model import chat, described, nlu


@pytest.mark.parametrize(
    ("text", "mandarin"),
    [
        ("耳机同键盘边个平啲？平嗰個幫我退咗佢", "耳机和键盘哪个便宜点？便宜的那个帮我退掉"),
        ("瑜伽墊張單而家係咩狀態？有冇退款記錄？", "瑜伽垫那单现在是什么状态？有没退款记录？"),
        ("帮我把那个已经shipped的order refund掉吧", "帮我把那个已经发货的订单退掉吧"),
        ("咁退瑜伽墊嘅錢會退返去邊度？幾耐到？", "那退瑜伽垫的钱会退回到哪里？多久到？"),
    ],
)
def test_cantonese_and_shop_words_are_read_in_mandarin(text, mandarin):
    assert nlu.as_mandarin(text) == mandarin


@pytest.mark.parametrize(
    ("text", "oldest"), [("我最早下的那个订单是哪个？", True), ("最早那单", True), ("我最近下的订单", False)]
)
def test_the_oldest_order_asked(text, oldest):
    assert bool(nlu.OLDEST_ORDER.search(text)) is oldest


@pytest.mark.parametrize(
    ("text", "things"),
    [
        ("which is cheaper, the backpack or the tent?", ["backpack", "tent"]),
        ("耳机和键盘哪个便宜点？", ["耳机", "键盘"]),
    ],
)
def test_the_things_compared(text, things):
    assert described.things_compared(text) == things


@pytest.mark.parametrize(
    ("text", "opens"),
    [("是键盘那单", True), ("the backpack one", True), ("我说错了，是键盘那单", True), ("是的", False)],
)
def test_a_pick_alone_or_after_a_slip_opens_a_swap(text, opens):
    assert bool(chat._SWAP_OPENER.match(text)) is opens


@pytest.mark.parametrize(
    "text", ["Which of my orders have refunds on record?", "哪些订单有退款记录？", "any orders with refunds?"]
)
def test_which_orders_have_refunds_asks_every_orders_refunds(text):
    assert nlu.EVERY_REFUND.search(text)
