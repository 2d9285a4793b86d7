"""An order named by what is in it ("the water bottles", "键盘有问题，退款"): the customer's list, which names
each order's items, says which order; a refund proposal names the items; something in no order is asked about,
never replaced by another order."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command

from chat.agent import run_turn
from chat.models import PendingAction
from memory import session as short_term

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def customers(db):
    call_command("seed_demo", stdout=open("/dev/null", "w"))  # noqa: SIM115
    return {u.username: u for u in get_user_model().objects.all()}


def _talk(user, *texts):
    conversation = short_term.store().start(user.pk).id
    replies = [run_turn(user.pk, conversation, text).reply for text in texts]
    return conversation, replies[-1]


@pytest.mark.parametrize(
    ("username", "before", "text", "order", "item"),
    [
        # round-7 red team's: each proposed a refund of another order
        ("bob", "", "i want my money back for the water bottles", "ORD-2025-0932", "Water bottle"),
        ("bob", "", "refund the backpack", "ORD-2025-0931", "Hiking backpack"),
        ("wang", "帮我查一下订单ORD-2025-0816", "键盘有问题，退款", "ORD-2025-0790", "机械键盘"),
        ("li", "", "跑步鞋不想要了，退款", "ORD-2025-0901", "跑步鞋"),
        ("chen", "", "绿茶喝着味道不对，退款", "ORD-2025-0942", "绿茶"),
    ],
)
def test_a_refund_of_something_bought_is_proposed_for_the_order_holding_it(
    customers, username, before, text, order, item
):
    conversation, reply = _talk(customers[username], *filter(None, [before, text]))

    proposed = PendingAction.objects.get(conversation_id=conversation, status="pending")
    assert proposed.arguments["order_number"] == order, reply
    assert item in reply, reply  # the proposal names what is refunded


@pytest.mark.parametrize(
    ("username", "text", "order", "not_this"),
    [
        ("alice", "is there a refund for the coffee grinder?", "ORD-2025-0924", "ORD-2025-0880"),
        ("alice", "you guys already refunded the coffee grinder right? just confirming", "ORD-2025-0924", "0880"),
        ("chen", "空气净化器到哪了", "ORD-2025-0941", "ORD-2025-0943"),
        ("wang", "蓝牙耳机发货了没", "ORD-2025-0816", "ORD-2025-0790"),
        ("alice", "have you shipped the headphones order yet?", "ORD-2025-0923", "ORD-2025-0880"),
        # round-10 red team's: the verb after the thing was taken into its name, and nothing was found
        ("bob", "when will my backpack arrive?", "ORD-2025-0931", "ORD-2025-0870"),
        ("bob", "Was my refund for the tent approved?", "ORD-2025-0870", "ORD-2025-0931"),
    ],
)
def test_a_question_about_something_bought_answers_for_the_order_holding_it(customers, username, text, order, not_this):
    conversation, reply = _talk(customers[username], text)

    assert order in reply and not_this not in reply, reply
    assert not PendingAction.objects.filter(conversation_id=conversation).exists(), reply


@pytest.mark.parametrize(("username", "text"), [("bob", "refund the sofa"), ("wang", "沙发坏了，退款")])
def test_something_in_no_order_is_asked_about_and_nothing_is_proposed(customers, username, text):
    conversation, reply = _talk(customers[username], text)

    assert not PendingAction.objects.filter(conversation_id=conversation).exists(), reply
    assert "?" in reply or "？" in reply, reply


@pytest.mark.parametrize(
    ("username", "item", "orders"),
    [
        ("bob", "water bottles", ["ORD-2025-0932"]),
        ("bob", "Hiking BACKPACK", ["ORD-2025-0931"]),
        ("wang", "键盘", ["ORD-2025-0790"]),
        ("chen", "空气净化器", ["ORD-2025-0941"]),
        ("bob", "sofa", []),
        ("bob", "", ["ORD-2025-0932", "ORD-2025-0931", "ORD-2025-0870"]),  # no item: every order
    ],
)
def test_the_list_holds_the_orders_with_an_item_so_named(customers, username, item, orders):
    from chat.shop import list_orders

    assert [o["order_number"] for o in list_orders(customers[username].pk, item=item)] == orders


@pytest.mark.parametrize(
    ("username", "before", "text", "order", "not_this"),
    [
        # round-8 red team's: the order talked about before was tracked again, as if it held the thing
        ("chen", "净化器啥时候到", "那我的台灯发货没", "ORD-2025-0943", "ORD-2025-0941"),
        ("wang", "0817到哪了", "那我的蓝牙耳机发货没", "ORD-2025-0816", "ORD-2025-0817"),
    ],
)
def test_a_thing_asked_after_next_is_found_in_its_own_order(customers, username, before, text, order, not_this):
    conversation, reply = _talk(customers[username], before, text)

    assert order in reply and not_this not in reply, reply


def test_a_thing_in_no_order_is_said_to_be_in_none(customers):
    conversation, reply = _talk(customers["chen"], "我的手机壳发货没")

    assert "没有找到" in reply and "ORD-" not in reply, reply


@pytest.mark.parametrize(("item", "order"), [("headphnes", "ORD-2025-0923"), ("coffe grinder", "ORD-2025-0924")])
def test_a_thing_mistyped_is_found_by_a_close_name(customers, item, order):
    """Round 13 (English reviewer): "wheres my headphnes order" was told no order held such a thing."""
    from chat.shop import list_orders

    assert [o["order_number"] for o in list_orders(customers["alice"].pk, item=item)] == [order]


@pytest.mark.parametrize("item", ["umbrella", "headset", "耳机壳"])
def test_a_thing_no_order_holds_is_not_found_by_a_loose_match(customers, item):
    from chat.shop import list_orders

    assert list_orders(customers["alice"].pk, item=item) == []


@pytest.mark.parametrize(
    ("username", "text", "expected"),
    [
        # round 14: two things in one clause acted on the first only
        ("alice", "the headphones and the coffee grinder. status of both?", ["ORD-2025-0923", "ORD-2025-0924"]),
        ("alice", "where are my headphones and my coffee grinder?", ["ORD-2025-0923", "1Z999AA10123456784"]),
        ("wang", "耳机和键盘到哪了", ["ORD-2025-0816", "JD0098765432"]),
    ],
)
def test_each_of_two_things_named_is_answered(customers, username, text, expected):
    _, reply = _talk(customers[username], text)

    assert all(value in reply for value in expected), reply


def test_a_refund_of_two_things_named_proposes_each(customers):
    alice = customers["alice"]
    conversation, reply = _talk(alice, "refund the desk lamp and the coffee grinder")

    assert "ORD-2025-0880" in reply and "ORD-2025-0924" in reply, reply  # the lamp's refund is already open
    proposed = PendingAction.objects.filter(conversation_id=conversation)
    assert [a.arguments["order_number"] for a in proposed] == ["ORD-2025-0924"]


def test_a_thing_in_no_order_is_said_by_name(customers):
    _, reply = _talk(customers["alice"], "refund the desk lamp and the teapot")

    assert 'couldn\'t find "teapot"' in reply, reply


@pytest.mark.parametrize(
    ("username", "item", "orders"),
    [
        ("chen", "air purifier", ["ORD-2025-0941"]),
        ("chen", "green tea", ["ORD-2025-0942"]),
        ("li", "yoga mat", ["ORD-2025-0902"]),
        ("wang", "mechanical keyboard", ["ORD-2025-0790"]),
        ("alice", "咖啡研磨机", ["ORD-2025-0924"]),
        ("bob", "水杯", ["ORD-2025-0932"]),
        # nothing of theirs is one: the closest name does not stand clear of the next
        ("li", "blender", []),
        ("bob", "electric toothbrush", []),
        ("alice", "笔记本电脑", []),
        ("chen", "微波炉", []),
        # a part of a thing is not the thing
        ("alice", "耳机套", []),
        ("chen", "purifier filter", []),
    ],
)
def test_a_thing_named_in_the_other_language_is_found_when_its_name_stands_clear(customers, username, item, orders):
    """Round 17: chen's "air purifier" was in none of her orders, all named in Chinese."""
    from chat.shop import list_orders

    assert [o["order_number"] for o in list_orders(customers[username].pk, item=item)] == orders


class _DownEmbedder:
    """An embedding service that cannot be reached."""

    name, dimensions = "down", 384

    def embed_queries(self, texts):
        raise ConnectionError("embedding service unreachable")

    embed_passages = embed_queries


def test_a_thing_in_the_other_language_is_found_in_no_order_while_embeddings_are_down(customers, settings):
    from chat.shop import list_orders
    from memory import embeddings

    settings.MEMORY_EMBEDDING_BACKEND = "tests.chat.test_orders_by_item._DownEmbedder"
    embeddings.reset_embedder()
    try:
        assert list_orders(customers["chen"].pk, item="air purifier") == []
        assert [o["order_number"] for o in list_orders(customers["chen"].pk, item="空气净化器")] == ["ORD-2025-0941"]
    finally:
        embeddings.reset_embedder()
