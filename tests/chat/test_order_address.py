"""Whose address: one order's delivery address changes with its own tool, until the order ships; the
default address is another change, and each proposal says which one it is."""

from __future__ import annotations

import pytest
from django.core.management import call_command

from chat.agent import run_turn
from chat.models import CustomerProfile, Order, PendingAction
from memory import session as short_term

pytestmark = pytest.mark.django_db(transaction=True)

ASK = {
    "en": (
        "alice",
        "ORD-2025-0923",
        "ORD-2025-0924",
        "Please deliver order {order} to 12 Oak Road, Leeds",
        "12 Oak Road, Leeds",
        "yes",
    ),
    "zh": (
        "wang",
        "ORD-2025-0816",
        "ORD-2025-0817",
        "把订单 {order} 的收货地址改成北京市海淀区中关村大街27号",
        "北京市海淀区中关村大街27号",
        "确认",
    ),
}


@pytest.fixture
def customers(db):
    from django.contrib.auth import get_user_model

    call_command("seed_demo", stdout=open("/dev/null", "w"))  # noqa: SIM115
    return {u.username: u for u in get_user_model().objects.all()}


def _chat(user, texts: list[str]) -> tuple:
    """A new conversation of ``user`` saying each of ``texts``: its id and the last reply."""
    conversation = short_term.store().start(user.pk).id
    reply = ""
    for text in texts:
        reply = run_turn(user.pk, conversation, text).reply
    return conversation, reply


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_one_orders_address_changes_and_the_default_stays(customers, lang):
    username, open_order, _, ask, address, yes = ASK[lang]
    user = customers[username]
    default = CustomerProfile.objects.get(user=user).default_address
    conversation = short_term.store().start(user.pk).id

    proposal = run_turn(user.pk, conversation, ask.format(order=open_order)).reply
    run_turn(user.pk, conversation, yes)

    assert PendingAction.objects.get(conversation_id=conversation).tool == "update_order_address"
    assert open_order in proposal and address in proposal
    assert Order.objects.get(number=open_order).shipping_address == address
    assert CustomerProfile.objects.get(user=user).default_address == default


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_shipped_orders_address_is_refused_with_the_reason(customers, lang):
    username, _, shipped, ask, address, _ = ASK[lang]
    user = customers[username]
    conversation = short_term.store().start(user.pk).id

    reply = run_turn(user.pk, conversation, ask.format(order=shipped)).reply

    assert not PendingAction.objects.filter(conversation_id=conversation).exists()
    assert Order.objects.get(number=shipped).shipping_address != address
    assert "left the warehouse" in reply or "shipped" in reply or "发货" in reply, reply


@pytest.mark.parametrize(
    "texts",
    [
        # round-8 red team's: each proposed changing the default address instead (or asked for it again)
        ["0816这单能改个地址吗 还没发货", "上海市浦东新区张江路101号"],
        ["0816还没发货 能把这单的收货地址改成上海市浦东新区张江路101号吗"],
        ["ORD-2025-0816发货了吗", "能把这单的收货地址改成上海市浦东新区张江路101号吗"],
    ],
)
def test_an_order_named_by_its_end_or_as_this_one_gets_its_own_address(customers, texts):
    user = customers["wang"]
    conversation, reply = _chat(user, texts)

    proposed = PendingAction.objects.get(conversation_id=conversation, status="pending")
    assert proposed.tool == "update_order_address", reply
    assert proposed.arguments == {"order_number": "ORD-2025-0816", "address": "上海市浦东新区张江路101号"}, reply


@pytest.mark.parametrize(
    ("username", "text"),
    [
        ("li", "地址改成 Room 1203, No. 88 Jianguo Road, Chaoyang District, Beijing"),
        ("bob", "my address is now 300 w 23rd st apt 5 new york ny 10011"),
    ],
)
def test_the_numbers_of_an_address_name_no_order(customers, username, text):
    user = customers[username]
    conversation = short_term.store().start(user.pk).id

    reply = run_turn(user.pk, conversation, text).reply

    assert PendingAction.objects.get(conversation_id=conversation).tool == "update_shipping_address", reply


@pytest.mark.parametrize(
    ("username", "text", "order", "address"),
    [
        # round-9 red team's: the default address was proposed, the correction's words kept in it
        (
            "wang",
            "0816地址改成上海市浦东新区张江路88弄3号1202 哦不对 是1203室",
            "ORD-2025-0816",
            "上海市浦东新区张江路88弄3号1203室",
        ),
        (
            "li",
            "0902还没发吧 帮我改个地址 寄到公司：广州天河 珠江新城 华夏路10号 富力中心 23F",
            "ORD-2025-0902",
            "广州天河 珠江新城 华夏路10号 富力中心 23F",
        ),
        # round-10 red team's: the default address was proposed, and changed on the yes
        ("li", "0902能改地址吗，改到广东省广州市天河区体育西路5号", "ORD-2025-0902", "广东省广州市天河区体育西路5号"),
        (
            "bob",
            "0932 can you ship it to 5 Main Street, Springfield instead",
            "ORD-2025-0932",
            "5 Main Street, Springfield",
        ),
    ],
)
def test_an_order_named_by_its_end_first_gets_its_own_address(customers, username, text, order, address):
    user = customers[username]
    conversation = short_term.store().start(user.pk).id

    reply = run_turn(user.pk, conversation, text).reply

    proposed = PendingAction.objects.get(conversation_id=conversation, status="pending")
    assert (proposed.tool, proposed.arguments) == (
        "update_order_address",
        {"order_number": order, "address": address},
    ), reply


@pytest.mark.parametrize(
    ("lang", "question"),
    [
        ("zh", "{tail}的地址是什么"),
        ("zh", "{order}这个订单的收货地址是哪里"),
        ("en", "what address is {order} going to?"),
    ],
)
def test_an_orders_address_asked_after_its_change_is_the_new_one(customers, lang, question):
    """Round-8/9 red team's: answered with the default address, or "orders already placed keep theirs"."""
    username, order, _, ask, address, yes = ASK[lang]
    user = customers[username]
    conversation = short_term.store().start(user.pk).id
    run_turn(user.pk, conversation, ask.format(order=order))
    run_turn(user.pk, conversation, yes)

    reply = run_turn(user.pk, conversation, question.format(order=order, tail=order[-4:])).reply

    assert address in reply and order in reply, reply


@pytest.mark.parametrize(
    ("username", "texts", "proposed"),
    [
        # round-11 red team's: the default address was proposed for the grinder's (shipped) order
        ("alice", ["Can I change the delivery address of my coffee grinder?", "5 Main St, York YO1 7HH"], None),
        (
            "alice",
            ["please send my headphones to 5 Main St, York YO1 7HH instead"],
            {"order_number": "ORD-2025-0923", "address": "5 Main St, York YO1 7HH"},
        ),
        (
            "wang",
            ["把蓝牙耳机的收货地址改成北京市朝阳区建国路1号"],
            {"order_number": "ORD-2025-0816", "address": "北京市朝阳区建国路1号"},
        ),
    ],
)
def test_an_order_named_by_the_thing_bought_is_the_one_sent_elsewhere(customers, username, texts, proposed):
    user = customers[username]
    conversation, reply = _chat(user, texts)

    pending = PendingAction.objects.filter(conversation_id=conversation, status="pending")
    if proposed is None:  # the grinder has shipped: refused with the reason, nothing proposed
        assert not pending.exists() and "ORD-2025-0924" in reply and "shipped" in reply, reply
    else:
        assert [(p.tool, p.arguments) for p in pending] == [("update_order_address", proposed)], reply


@pytest.mark.parametrize(
    ("username", "texts", "order", "address"),
    [
        # round-11 red team's: the second half was not answered
        (
            "alice",
            [
                "please change my address to 5 Main St, York YO1 7HH",
                "yes, and please also send my headphones order there",
            ],
            "ORD-2025-0923",
            "5 Main St, York YO1 7HH",
        ),
        (
            "wang",
            ["把默认地址改成北京市朝阳区建国路1号", "确认", "0816也寄到这个地址"],
            "ORD-2025-0816",
            "北京市朝阳区建国路1号",
        ),
        (
            "bob",
            ["my new address is 9 Elm Road, Springfield", "no", "ship ORD-2025-0932 there as well"],
            "ORD-2025-0932",
            "9 Elm Road, Springfield",
        ),
    ],
)
def test_an_order_sent_to_the_address_just_named_gets_it(customers, username, texts, order, address):
    user = customers[username]
    conversation, reply = _chat(user, texts)

    proposed = PendingAction.objects.get(conversation_id=conversation, status="pending")
    assert (proposed.tool, proposed.arguments) == (
        "update_order_address",
        {"order_number": order, "address": address},
    ), reply


@pytest.mark.parametrize(
    ("username", "texts", "address"),
    [
        # round-12 red team's: "请提供新的收货地址", as if none had been given
        ("wang", ["0816寄到上海市浦东新区世纪大道100号", "确认", "默认地址也改成这个"], "上海市浦东新区世纪大道100号"),
        (
            "alice",
            [
                "please send order 0923 to 5 Elm Street, Bristol BS1 4DJ",
                "yes",
                "change my default address to the same one I just gave you",
            ],
            "5 Elm Street, Bristol BS1 4DJ",
        ),
        (
            "bob",
            ["please send ORD-2025-0932 to 9 Rose Court, Leeds LS2 7AB", "yes", "and make that my default address too"],
            "9 Rose Court, Leeds LS2 7AB",
        ),
    ],
)
def test_the_default_address_changed_to_the_one_just_given(customers, username, texts, address):
    user = customers[username]
    conversation, reply = _chat(user, texts)

    proposed = PendingAction.objects.get(conversation_id=conversation, status="pending")
    assert (proposed.tool, proposed.arguments) == ("update_shipping_address", {"address": address}), reply


@pytest.mark.parametrize(
    ("username", "texts", "proposed"),
    [
        # round 13 (Chinese reviewer): 0817 tracked in its place, then "请提供您的订单号"
        (
            "wang",
            ["把默认地址改成上海市浦东新区世纪大道200号20楼", "确认", "那0816寄到哪？还没发货能不能也改成新地址"],
            ("update_order_address", {"order_number": "ORD-2025-0816", "address": "上海市浦东新区世纪大道200号20楼"}),
        ),
        # round 13: after "先别改，我问问我妈", "就刚才那个地址，改吧" was not understood
        (
            "chen",
            [
                "我想改下收货地址，改成成都市高新区天府大道中段500号",
                "不对不对等一下，先别改，我问问我妈",
                "问好了，就刚才那个地址，改吧",
            ],
            ("update_shipping_address", {"address": "成都市高新区天府大道中段500号"}),
        ),
    ],
)
def test_the_address_just_named_is_taken_for_what_the_chat_spoke_of(customers, username, texts, proposed):
    user = customers[username]
    conversation, reply = _chat(user, texts)

    pending = PendingAction.objects.get(conversation_id=conversation, status="pending")
    assert (pending.tool, pending.arguments) == proposed, reply


def test_a_new_default_address_and_an_order_sent_there_in_one_message(customers):
    """The words after the postcode were once saved as part of the address ("…, Leeds LS2 7AB, send 0932")."""
    user = customers["bob"]
    conversation, reply = _chat(user, ["my new address is 9 Rose Court, Leeds LS2 7AB, send 0932 there"])

    actions = PendingAction.objects.filter(conversation_id=conversation).order_by("created_at")
    assert [(a.tool, a.status, a.arguments) for a in actions] == [
        ("update_shipping_address", "pending", {"address": "9 Rose Court, Leeds LS2 7AB"}),
        ("update_order_address", "queued", {"order_number": "ORD-2025-0932", "address": "9 Rose Court, Leeds LS2 7AB"}),
    ], reply


@pytest.mark.parametrize(
    ("username", "texts", "order"),
    [
        # round-9 red team's: the default address proposed again (a change to nothing), the redirect left
        (
            "bob",
            [
                "can ORD-2025-0932 go to my office instead, 1 Work Plaza, Springfield",
                "yes",
                "hmm actually undo that, ship 0932 to my home address like normal",
            ],
            "ORD-2025-0932",
        ),
        ("wang", ["0816改寄到我现在的默认地址"], "ORD-2025-0816"),
    ],
)
def test_an_order_sent_back_to_the_default_address_gets_it(customers, username, texts, order):
    user = customers[username]
    conversation, reply = _chat(user, texts)

    proposed = PendingAction.objects.get(conversation_id=conversation, status="pending")
    default = CustomerProfile.objects.get(user=user).default_address
    assert (proposed.tool, proposed.arguments) == (
        "update_order_address",
        {"order_number": order, "address": default},
    ), reply


def test_a_change_of_the_default_address_is_no_order_sent_back(customers):
    user = customers["alice"]
    conversation = short_term.store().start(user.pk).id

    reply = run_turn(user.pk, conversation, "change my default address to 5 Elm Road, Leeds").reply

    assert PendingAction.objects.get(conversation_id=conversation).tool == "update_shipping_address", reply
