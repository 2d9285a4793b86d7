"""Red team round 50 (session 31): a long Cantonese story asking one box's money back ("…有一盒入面啲茶叶全部发霉…
我想退返嗰一盒嘅钱得唔得？") was read as asking the whole, by its "全部" (all the leaves moldy), and "确认" made ¥204;
the CI of the round 49 fixes: a misspelt item ("the backpak") read as a piece of another."""

from __future__ import annotations

import pytest

from chat.agent import run_turn
from chat.answers import asks_for_some_items, asks_for_the_whole, in_simplified
from chat.models import Refund
from tests.chat.demo_chat import demo_customer

pytestmark = pytest.mark.django_db(transaction=True)

_STORY = (
    "喂，我0942嗰单绿茶买咗三盒，今日拆开有一盒入面啲茶叶全部发霉，好核突呀！其余两盒冇问题，我想退返嗰一盒嘅钱得唔得？"
)


def test_one_box_asked_in_a_story_is_never_refunded_whole():
    user, conversation = demo_customer("chen")

    reply = run_turn(user.pk, conversation, _STORY).reply
    run_turn(user.pk, conversation, "确认")

    assert "部分退款" in reply, reply
    assert not Refund.objects.filter(order__number="ORD-2025-0942").exists(), reply


@pytest.mark.parametrize(
    ("text", "whole"),
    [
        (_STORY, False),
        ("everything else works, refund the lid", False),
        ("all of them were broken, refund", False),
        ("全部退", True),
        ("退全部", True),
        ("refund everything", True),
        ("refund all of it", True),
        ("我要全部的钱", True),
    ],
)
def test_all_said_of_the_goods_asks_no_whole_refund(text, whole):
    assert asks_for_the_whole(in_simplified(text)) is whole


def test_a_misspelt_item_is_no_piece():
    assert not asks_for_some_items("I want a refund for the backpak instead", [("Hiking backpack", 1)])
    assert asks_for_some_items("refund the cable", [("Coffee grinder", 1)])


_BOUGHT = ["Hiking backpack", "Tent", "Water bottle", "Noise-cancelling headphones", "Coffee grinder", "Desk lamp"]


@pytest.mark.parametrize(
    ("text", "piece"),
    [
        # the suite's own wordings that the first reading of a piece took as one (fresh-clone CI of 071ee8d)
        ("refund the one around $130", False),
        ("refund one of the orders", False),
        ("I want a refund for my backpack ORD-2025-0931", False),
        ("Was my refund for the tent approved?", False),
        ("Refund the headphones if they haven't shipped yet", False),
        ("refund the backpack or the tent", False),
        ("refund the grinder but send the money to my paypal", False),
        # pieces
        ("refund the charging cable", True),
        ("refund the tent pole", True),
    ],
)
def test_a_piece_is_read_up_to_the_words_after_it(text, piece):
    assert asks_for_some_items(text, [], _BOUGHT) is piece
