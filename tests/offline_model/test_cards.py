"""Cards: an order, a shipment or a list of orders written as dense lines reads back to the same fields."""

from __future__ import annotations

import json
from datetime import datetime

from hypothesis import given
from hypothesis import strategies as st

from agentsite.offline_model import cards
from agentsite.offline_model.summary import read_back, summarise_json

# Values as the shop writes them, and text with the characters a card uses as separators.
_WORD = st.from_regex(r"[A-Za-z0-9][A-Za-z0-9_.\-]{0,12}", fullmatch=True)
_TEXT = st.text(st.sampled_from("ab 中文#-,;:、×()【】1"), min_size=1, max_size=16).map(str.strip).filter(bool)
_PLAIN = st.text(st.sampled_from("ab 中文#-【】1"), min_size=1, max_size=16).map(str.strip).filter(bool)
_TIME = st.datetimes(datetime(2000, 1, 1), datetime(2099, 12, 31)).map(lambda t: t.strftime("%Y-%m-%d %H:%M"))


@st.composite
def _shipments(draw, nested: bool = False, text=_TEXT) -> dict:
    shipment = {} if nested else {"order_number": draw(_WORD)}
    if not nested or draw(st.booleans()):
        shipment["status"] = draw(_WORD)
    shipment |= {"carrier": draw(text), "tracking_number": draw(_WORD)}
    if draw(st.booleans()):
        shipment["eta"] = draw(_WORD)
    events = draw(st.lists(st.fixed_dictionaries({"time": _TIME, "location": text, "description": text}), max_size=1))
    shipment["events"] = events
    if events and draw(st.booleans()):
        shipment["events_total"] = draw(st.integers(2, 400))
    return shipment


@st.composite
def _orders(draw, text=_TEXT) -> dict:
    order = {"order_number": draw(_WORD), "status": draw(_WORD), "placed_at": draw(_WORD), "total": draw(_WORD)}
    order["currency"] = draw(_WORD)
    order["items"] = draw(st.lists(st.fixed_dictionaries({"name": text, "quantity": st.integers(1, 50)})))
    if draw(st.booleans()):
        order["shipment"] = draw(_shipments(nested=True, text=text))
    return order


_ROW = {k: _WORD for k in ("order_number", "status", "placed_at", "total")}


def _lists(text=_TEXT):
    """Order lists as ``list_my_orders`` gives them: with or without what each order holds (all or none)."""
    rows = st.one_of(
        st.lists(st.fixed_dictionaries(_ROW)),
        st.lists(st.fixed_dictionaries(_ROW | {"currency": _WORD})),  # currencies that differ
        st.tuples(_WORD, st.lists(st.fixed_dictionaries(_ROW))).map(  # one every order shares
            lambda shared: [row | {"currency": shared[0]} for row in shared[1]]
        ),
    )
    items = st.lists(st.fixed_dictionaries({"name": text, "quantity": st.integers(1, 50)}), max_size=3)
    held = rows.flatmap(lambda listed: st.tuples(*(items for _ in listed)).map(lambda each: (listed, each)))
    return st.one_of(
        rows,
        held.map(lambda pair: [row | {"items": list(i)} for row, i in zip(*pair, strict=True)]),
    )


_LISTS = _lists()


@given(st.one_of(_orders(), _shipments(), _LISTS.map(lambda rows: {"orders": rows})))
def test_a_card_reads_back_exactly_or_is_not_written(data):
    card = cards.write(data)
    if card is not None:
        assert cards.read(card) == data, card


@given(st.one_of(_orders(text=_PLAIN), _shipments(text=_PLAIN), _lists(_PLAIN).map(lambda rows: {"orders": rows})))
def test_values_without_separators_always_get_a_card(data):
    card = cards.write(data)
    assert card is not None and cards.read(card) == data


def test_the_shop_s_results_get_cards_that_name_no_field_twice():
    order = {
        "order_number": "ORD-2026-0001",
        "status": "shipped",
        "placed_at": "2026-11-28",
        "total": "3021.08",
        "currency": "CNY",
        "items": [{"name": "羊毛围巾 #417", "quantity": 3}, {"name": "办公椅 #850", "quantity": 1}],
        "shipment": {
            "carrier": "SF Express",
            "tracking_number": "SF1134898425",
            "eta": "2026-12-01",
            "events": [{"time": "2026-12-03 08:35", "location": "武汉", "description": "快件已到达"}],
            "events_total": 20,
        },
    }

    assert cards.write(order) == (
        "order ORD-2026-0001 shipped, placed 2026-11-28, total 3021.08 CNY\n"
        "items: 羊毛围巾 #417 ×3、办公椅 #850\n"
        "shipment: SF Express SF1134898425, eta 2026-12-01, latest of 20 events 2026-12-03 08:35, 武汉: 快件已到达"
    )
    rows = {
        "orders": [
            {"order_number": "ORD-2026-0001", "status": "in_transit", "placed_at": "2026-11-26", "total": "670.49"}
        ]
    }
    assert cards.write(rows) == "1 order (number status placed total):\nORD-2026-0001 in_transit 2026-11-26 670.49"
    priced = {"orders": [{**rows["orders"][0], "currency": "CNY"}, {**rows["orders"][0], "currency": "CNY"}]}
    assert cards.write(priced) == (  # a currency every order shares is said once
        "2 orders in CNY (number status placed total):\n"
        "ORD-2026-0001 in_transit 2026-11-26 670.49\nORD-2026-0001 in_transit 2026-11-26 670.49"
    )
    priced["orders"][1]["currency"] = "USD"
    assert cards.write(priced) == (
        "2 orders (number status placed total currency):\n"
        "ORD-2026-0001 in_transit 2026-11-26 670.49 CNY\nORD-2026-0001 in_transit 2026-11-26 670.49 USD"
    )


def test_what_a_card_cannot_carry_exactly_gets_the_field_by_field_shorthand():
    two_events = {
        "order_number": "ORD-2026-0001",
        "carrier": "UPS",
        "tracking_number": "1Z999",
        "events": [
            {"time": "2026-12-01 08:00", "location": "A", "description": "x"},
            {"time": "2026-12-02 08:00", "location": "B", "description": "y"},
        ],
    }
    no_tracking = {"order_number": "ORD-2026-0001", "status": "delivered", "events": [], "tracking": "none"}
    spaced_status = {
        "orders": [{"order_number": "ORD-2026-0001", "status": "on hold", "placed_at": "2026-11-26", "total": "1.00"}]
    }
    other_field = {"order_number": "ORD-2026-0001", "status": "shipped", "refund": "pending"}

    for data in (two_events, no_tracking, spaced_status, other_field):
        assert cards.write(data) is None
        summary = summarise_json(data, json.dumps(data))
        assert "order_number=ORD-2026-0001" in summary  # the generic shorthand, keys and all
        assert "ORD-2026-0001" in json.dumps(read_back(f"[summary] {summary}"))


def test_other_text_is_not_read_as_a_card():
    for text in (
        "order_number=ORD-2026-0001, status=shipped",
        "orders are late today",
        "shipment: (carrier=UPS)",
        "3 orders (number status placed total):\nORD-1 shipped 2026-01-01 1.00",
    ):
        assert cards.read(text) is None
