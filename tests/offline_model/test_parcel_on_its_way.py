"""Which order a question names when it names none: "my parcel" is the order on its way, "the order from
last time" is the one memory last heard of, and "how is it doing" asks for its status, not its number."""

from __future__ import annotations

import pytest

SHIPPED = {"order_number": "ORD-2025-0100", "status": "in_transit", "carrier": "UPS", "tracking_number": "1Z9"}
PREPARING = {"order_number": "ORD-2025-0200", "status": "processing", "events": [], "tracking": "none"}
DELIVERED = {"order_number": "ORD-2025-0300", "status": "delivered", "carrier": "UPS", "tracking_number": "1Z8"}
PARCEL = {"en": "Where is my parcel?", "zh": "我的包裹呢？"}
THAT_ORDER = {"en": "Where is the order from last time now?", "zh": "上次那个订单物流怎么样了？"}


def _listing(*orders):
    return {"orders": [{"order_number": o["order_number"], "status": o["status"]} for o in orders]}


def _after_a_lookup_of(say, answer_tools, order, question):
    """A chat that looked ``order`` up (so its status is seen) and then asks ``question``."""
    request = [{"role": "user", "content": f"What's the status of {order['order_number']}?"}]
    looked_up = answer_tools(say(request), [order], request)
    return [*looked_up, {"role": "assistant", "content": say(looked_up).content}, {"role": "user", "content": question}]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_my_parcel_after_an_order_not_shipped_yet_is_the_one_on_its_way(say, answer_tools, lang):
    request = _after_a_lookup_of(say, answer_tools, PREPARING, PARCEL[lang])
    asked = say(request)
    assert asked.names == ["list_my_orders"]

    listed = answer_tools(asked, [_listing(SHIPPED, PREPARING)], request)
    tracked = say(listed)
    assert tracked.calls == [("track_shipment", {"order_number": SHIPPED["order_number"]})]
    reply = say(answer_tools(tracked, [SHIPPED], listed)).content
    assert SHIPPED["order_number"] in reply and PREPARING["order_number"] in reply  # the one spoken of, in a word


@pytest.mark.parametrize("question", ["And the one already on its way, where is that?", "那已经在路上的那个呢，到哪了"])
def test_the_one_on_its_way_is_not_the_order_not_shipped_yet(say, answer_tools, question):
    assert say(_after_a_lookup_of(say, answer_tools, PREPARING, question)).names == ["list_my_orders"]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_with_nothing_on_its_way_my_parcel_is_the_order_spoken_of(say, answer_tools, lang):
    request = _after_a_lookup_of(say, answer_tools, PREPARING, PARCEL[lang])
    listed = answer_tools(say(request), [_listing(PREPARING, DELIVERED)], request)
    assert say(listed).calls == [("track_shipment", {"order_number": PREPARING["order_number"]})]


@pytest.mark.parametrize("question", ["Where is that order's parcel now?", "那个订单的快递到哪了？"])
def test_that_order_is_the_order_spoken_of_even_before_it_ships(say, answer_tools, question):
    said = say(_after_a_lookup_of(say, answer_tools, PREPARING, question))
    assert said.calls == [("track_shipment", {"order_number": PREPARING["order_number"]})]


def _remembering(order):
    return [f"- [reference] The customer asked about order {order['order_number']} {{key=order_number}}"]


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("remembered", [DELIVERED, PREPARING], ids=["delivered", "not-shipped-yet"])
def test_a_remembered_parcel_sends_the_agent_to_the_list(say, answer_tools, lang, remembered):
    """Memory's order is a guess: the list says which parcel is on its way (tracked, the remembered one named
    beside it), and with none on its way, how the remembered one stands."""
    memory = _remembering(remembered)
    follow = [{"role": "user", "content": PARCEL[lang]}]
    listing = say(follow, memory=memory)
    assert listing.names == ["list_my_orders"]

    listed = answer_tools(listing, [_listing(remembered, SHIPPED)], follow)
    on_its_way = say(listed, memory=memory)
    assert on_its_way.calls == [("track_shipment", {"order_number": SHIPPED["order_number"]})]
    reply = say(answer_tools(on_its_way, [SHIPPED], listed), memory=memory).content
    assert SHIPPED["order_number"] in reply and remembered["order_number"] in reply  # either may be "my parcel"

    alone = answer_tools(listing, [_listing(remembered)], follow)
    assert say(alone, memory=memory).calls == [("track_shipment", {"order_number": remembered["order_number"]})]


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize(
    ("remembered", "question"),
    [(SHIPPED, PARCEL), (PREPARING, THAT_ORDER)],
    ids=["my-parcel-on-its-way", "the-order-from-last-time-not-shipped"],
)
def test_the_remembered_order_is_answered_without_the_list_when_it_is_the_one(
    say, answer_tools, lang, remembered, question
):
    memory = _remembering(remembered)
    request = [{"role": "user", "content": question[lang]}]
    follow = answer_tools(say(request, memory=memory), [remembered], request)
    reply = say(follow, memory=memory)
    assert reply.calls == [] and remembered["order_number"] in reply.content


@pytest.mark.parametrize(
    "question",
    [
        "How is the order from last time doing?",
        "Any news on the order I mentioned before?",
        "What happened to the order I asked about last time?",
        "上次那个订单怎么样了？",
        "上次问的那个订单现在到了吗",
    ],
)
def test_how_the_order_from_last_time_is_doing_is_its_status(say, question):
    memory = ["- [reference] The customer asked about order ORD-2025-0816 {key=order_number; value=ORD-2025-0816}"]
    said = say(question, memory=memory)
    assert said.calls == [("lookup_order", {"order_number": "ORD-2025-0816"})]


@pytest.mark.parametrize(
    "question",
    ["Which order did I ask about last time?", "Which order have I asked about before?", "我上次问的是哪个订单？"],
)
def test_which_order_it_was_is_answered_from_memory(say, question):
    memory = ["- [reference] The customer's order is ORD-2025-0816 {key=order_number; value=ORD-2025-0816}"]
    said = say(question, memory=memory)
    assert said.calls == [] and "ORD-2025-0816" in said.content


@pytest.mark.parametrize(
    "question",
    [
        "How is the order from last time doing?",
        "What's going on with the order from last month?",
        "上次那个订单怎么样了？",
        "上周问的那个订单怎么样了？",
    ],
)
def test_the_order_from_last_time_is_not_the_one_just_looked_up_here(say, answer_tools, question):
    memory = ["- [reference] The customer asked about order ORD-2025-0816 {key=order_number; value=ORD-2025-0816}"]
    request = [{"role": "user", "content": f"What's the status of {SHIPPED['order_number']}?"}]
    looked_up = answer_tools(say(request, memory=memory), [SHIPPED], request)
    follow = [*looked_up, {"role": "assistant", "content": "In transit."}, {"role": "user", "content": question}]
    assert say(follow, memory=memory).calls == [("lookup_order", {"order_number": "ORD-2025-0816"})]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_order_from_last_time_is_looked_for_in_memory_when_the_block_has_none(say, answer_tools, lang):
    said = say(_after_a_lookup_of(say, answer_tools, PREPARING, THAT_ORDER[lang]))
    assert said.names == ["recall_memory"]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_without_memory_the_order_from_last_time_is_not_guessed_from_this_chat(
    say, answer_tools, tools_without_recall, lang
):
    """Deferred recall listens for the "not sure" opening."""
    request = _after_a_lookup_of(say, answer_tools, PREPARING, THAT_ORDER[lang])
    said = say(request, tools_offered=tools_without_recall)
    assert said.calls == [] and said.content.startswith("I'm not sure" if lang == "en" else "我不确定")
