"""Every part of a message is answered, and each by the order it names: round 12 found parts dropped ("尾号17的那
个退款，还有0790那个也退了吧" proposed only 0817; of a numbered list of three questions, the price of the headphones
was never said) and short questions not understood ("0902状态", "0942是啥东西", "那行吧 0816全退了")."""

from __future__ import annotations

import pytest

from tests.offline_model.systems import ALICE, BOB, WANG

WANGS = {
    "orders": [
        {"order_number": "ORD-2025-0816", "status": "processing", "items": ["无线蓝牙耳机 ×1"]},
        {"order_number": "ORD-2025-0817", "status": "shipped", "items": ["保温杯 ×2"]},
        {"order_number": "ORD-2025-0790", "status": "delivered", "items": ["机械键盘 ×1"]},
    ]
}


def _after_the_list(say, answer_tools, system, text, listed, tools=None):
    request = [{"role": "system", "content": system}, {"role": "user", "content": text}]
    listing = say(request, tools_offered=tools) if tools else say(request)
    assert listing.names and set(listing.names) == {"list_my_orders"}, listing
    follow = answer_tools(listing, [listed(call) for call in listing.calls], request)
    return say(follow, tools_offered=tools) if tools else say(follow)


def test_two_orders_named_by_their_ends_are_both_refunded(say, answer_tools):
    after = _after_the_list(say, answer_tools, WANG, "尾号17的那个退款，还有0790那个也退了吧", lambda _: WANGS)

    assert [(name, args["order_number"]) for name, args in after.calls] == [
        ("request_refund", "ORD-2025-0817"),
        ("request_refund", "ORD-2025-0790"),
    ], after
    assert "尾号ORD" not in after.calls[0][1]["reason"]  # the end's cue goes with the digits it named


@pytest.mark.parametrize(
    ("text", "call", "order"),
    [
        ("0817状态", "lookup_order", "ORD-2025-0817"),
        ("0790的状态", "lookup_order", "ORD-2025-0790"),
        ("0790是啥东西", "lookup_order", "ORD-2025-0790"),
        ("0816买的啥", "lookup_order", "ORD-2025-0816"),
        ("那行吧 0816全退了", "request_refund", "ORD-2025-0816"),
    ],
)
def test_short_questions_about_an_order_by_its_end(say, answer_tools, text, call, order):
    after = _after_the_list(say, answer_tools, WANG, text, lambda _: WANGS)

    assert [(name, args["order_number"]) for name, args in after.calls] == [(call, order)], after


ALICES = {
    "coffee grinder": {
        "orders": [{"order_number": "ORD-2025-0924", "status": "shipped", "items": ["Coffee grinder ×1"]}]
    },
    "headphones": {"orders": [{"order_number": "ORD-2025-0923", "status": "processing", "items": ["Headphones ×1"]}]},
    "umbrella": {"orders": []},
}


def _holding(call):
    return ALICES[call[1]["item"]]


@pytest.mark.parametrize(
    ("text", "calls"),
    [
        (
            "1. where is my coffee grinder? 2. how much were the headphones? 3. what is my default address?",
            [("track_shipment", "ORD-2025-0924"), ("lookup_order", "ORD-2025-0923")],
        ),
        (
            "where is my coffee grinder, and have the headphones shipped?",
            [("track_shipment", "ORD-2025-0924"), ("track_shipment", "ORD-2025-0923")],
        ),
        ("how much did the headphones cost?", [("lookup_order", "ORD-2025-0923")]),
    ],
)
def test_each_thing_named_is_looked_up_in_its_own_order(say, answer_tools, tools_without_recall, text, calls):
    after = _after_the_list(say, answer_tools, ALICE, text, _holding, tools_without_recall)

    assert [(name, args["order_number"]) for name, args in after.calls] == calls, after


def test_a_thing_in_no_order_is_said_beside_the_others(say, answer_tools):
    text = "where is my umbrella, and has the coffee grinder shipped?"
    request = [{"role": "system", "content": ALICE}, {"role": "user", "content": text}]
    listing = say(request)
    tracking = say(answer_tools(listing, [_holding(call) for call in listing.calls], request))
    shipment = {"order_number": "ORD-2025-0924", "carrier": "UPS", "status": "shipped", "events": []}

    reply = say(
        answer_tools(tracking, [shipment], answer_tools(listing, [_holding(c) for c in listing.calls], request))
    )

    assert "ORD-2025-0924" in reply.content and "couldn't find what you named" in reply.content, reply.content
    assert "order number?" not in reply.content.split("\n")[0]


def test_the_answers_come_in_the_order_asked(say, answer_tools):
    """The parcel asked about first needed a second step (its order found by its end): its answer still comes
    first, not after the policy's that came back sooner."""
    request = [{"role": "system", "content": WANG}, {"role": "user", "content": "0817到哪了？退款一般几天到账？"}]
    first = say(request)
    assert sorted(first.names) == ["list_my_orders", "search_policies"], first
    policy = {"results": [{"title": "退款政策", "content": "退款在我们收到退货后 3 个工作日内原路退回。"}]}
    step = answer_tools(first, [WANGS if n == "list_my_orders" else policy for n in first.names], request)
    tracking = say(step)
    assert tracking.calls == [("track_shipment", {"order_number": "ORD-2025-0817"})], tracking
    shipment = {"order_number": "ORD-2025-0817", "carrier": "顺丰速运", "status": "shipped", "events": []}

    reply = say(answer_tools(tracking, [shipment], step)).content

    assert reply.index("ORD-2025-0817") < reply.index("3 个工作日"), reply


BOBS = {
    "orders": [
        {"order_number": "ORD-2025-0870", "status": "delivered", "items": ["Tent ×1"]},
        {"order_number": "ORD-2025-0931", "status": "in_transit", "items": ["Hiking backpack ×1"]},
    ]
}


@pytest.mark.parametrize(
    "text",
    [
        # round 13 (English reviewer): a refund of 0931 was proposed too ("You also asked me to …")
        "ok. the 0870 thing arrived with a cracked screen, i want my money back for it. also is 0931 arriving tmrw?",
        "i want my money back for 0870. also is 0931 ok??",
    ],
)
def test_a_question_about_another_order_asks_no_refund_of_it(say, answer_tools, text):
    after = _after_the_list(say, answer_tools, BOB, text, lambda _: BOBS)

    refunded = [args["order_number"] for name, args in after.calls if name == "request_refund"]
    assert refunded == ["ORD-2025-0870"], after
    assert any(args.get("order_number") == "ORD-2025-0931" for _, args in after.calls), after  # it is looked up


ALICES_ALL = {
    "orders": [
        {"order_number": "ORD-2025-0923", "status": "processing", "items": ["Headphones ×1"]},
        {"order_number": "ORD-2025-0924", "status": "shipped", "items": ["Coffee grinder ×1"]},
    ]
}


@pytest.mark.parametrize(
    ("text", "call"),
    [
        # round 13 (English reviewer): a refund proposed; the customer asked only whether there was one
        ("ok 0924 - any refunds on that one? don't start anything, just tell me", ("lookup_order", "ORD-2025-0924")),
        # round 13: her default address answered, not the order's
        ("so which address is 0923 going to then, the old or new one?", ("lookup_order", "ORD-2025-0923")),
    ],
)
def test_a_question_about_an_order_by_its_end_looks_it_up(say, answer_tools, text, call):
    after = _after_the_list(say, answer_tools, ALICE, text, lambda _: ALICES_ALL)

    assert [(name, args["order_number"]) for name, args in after.calls] == [call], after


def test_a_default_address_given_with_an_arrow_is_proposed_with_the_rest(say):
    """Round 13: "default address -> 12 Downing St, London SW1A 2AA. and mute notifs too" proposed the mute alone."""
    said = say(
        "ok lets do the address thing again: default address -> 12 Downing St, London SW1A 2AA. and mute notifs too"
    )

    assert said.calls == [
        ("update_shipping_address", {"address": "12 Downing St, London SW1A 2AA"}),
        ("update_notification_preference", {"preference": "mute"}),
    ], said


BOBS = {
    "orders": [
        {"order_number": "ORD-2025-0932", "status": "processing", "items": [{"name": "Water bottle", "quantity": 3}]},
        {
            "order_number": "ORD-2025-0931",
            "status": "in_transit",
            "items": [{"name": "Hiking backpack", "quantity": 1}],
        },
        {"order_number": "ORD-2025-0870", "status": "delivered", "items": [{"name": "Tent", "quantity": 1}]},
    ]
}
NOT_FOUND = {"error": "order ORD-2025-0816 not found", "error_code": "order_not_found"}


@pytest.mark.parametrize(
    ("text", "end"),
    [
        ("Where is ORD-2025-0816? And what's in order 0924?", "0924"),
        ("ORD-2025-0816到哪了？还有0924里面是什么？", "0924"),
    ],
)
def test_an_order_not_theirs_is_never_answered_with_another(say, answer_tools, text, end):
    """Round 40: the order named in full was not found, and the "where is" was answered with the one order in
    transit of the list looked up for the other part; the other part (an end none of the orders has) went unsaid."""
    request = [{"role": "system", "content": BOB}, {"role": "user", "content": text}]
    first = say(request)
    assert sorted(first.names) == ["list_my_orders", "track_shipment"], first
    step = answer_tools(first, [BOBS if n == "list_my_orders" else NOT_FOUND for n in first.names], request)
    after = say(step)

    assert not after.calls, after
    assert "0931" not in after.content and "0870" not in after.content, after.content
    assert "ORD-2025-0816" in after.content and end in after.content, after.content
