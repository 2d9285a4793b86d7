"""Compacting tool results for the model keeps every value a later step needs."""

from chat.tool_results import KEEP_EVENTS, compact, kept_share, must_keep


def _shipment(events: int) -> dict:
    return {
        "order_number": "ORD-2031-0001",
        "carrier": "UPS",
        "tracking_number": "1Z999AA10123456784",
        "status": "in_transit",
        "eta": "2031-05-04",
        "events": [
            {"time": f"2031-05-01 {h:02d}:00", "location": f"Hub {h}", "description": f"Scanned at hub {h}"}
            for h in range(events)
        ],
    }


def test_tracking_keeps_the_latest_events_and_counts_the_rest():
    raw = _shipment(20)
    shown = compact("track_shipment", {"order_number": "ORD-2031-0001"}, raw)
    assert [e["location"] for e in shown["events"]] == ["Hub 17", "Hub 18", "Hub 19"][-KEEP_EVENTS:]
    assert shown["events_total"] == 20
    assert kept_share("track_shipment", raw, str(shown)) == (len(must_keep("track_shipment", raw)),) * 2


def test_order_details_cut_their_shipment_events_and_what_repeats_the_order():
    raw = {
        "order_number": "ORD-2031-0001",
        "status": "shipped",
        "placed_at": "2031-04-30",
        "total": "12.50",
        "currency": "USD",
        "items": [{"name": "Kettle", "quantity": 1}],
        "shipment": _shipment(12),
    }
    shown = compact("lookup_order", {"order_number": "ORD-2031-0001"}, raw)
    assert shown["items"] == raw["items"] and len(shown["shipment"]["events"]) == KEEP_EVENTS
    assert "order_number" not in shown["shipment"]  # the order's own number, said again
    assert shown["shipment"]["status"] == "in_transit"  # not the order's: kept
    kept, needed = kept_share("lookup_order", raw, str(shown))
    assert kept == needed and "Kettle" in must_keep("lookup_order", raw)


def test_short_results_and_snippets_are_left_as_they_are():
    short = _shipment(KEEP_EVENTS)
    assert compact("track_shipment", {}, short) is short
    snippet = {"articles": [{"id": 5, "title": "Returns", "snippet": "Return within 30 days. Refunds in 5 days."}]}
    assert compact("search_policies", {"query": "refund"}, snippet) == snippet


def test_a_whole_article_is_cut_to_the_passage_asked_about():
    body = " ".join(f"Sentence {i} is about nothing much at all." for i in range(10))
    body += " Refunds go back to the card within 5 business days."
    shown = compact("search_policies", {"query": "how long do refunds take"}, {"articles": [{"id": 1, "body": body}]})
    assert "Refunds go back to the card within 5 business days." in shown["articles"][0]["body"]
    assert len(shown["articles"][0]["body"]) < len(body) / 3


def test_an_orders_refunds_must_survive_a_shortening():
    """How a refund stands is answered from these values: a summary that dropped them could not say it."""
    raw = {
        "order_number": "ORD-2031-0002",
        "status": "delivered",
        "total": "89.00",
        "refunds": [{"amount": "89.00", "status": "approved", "requested_at": "2031-05-02"}],
    }
    assert {"approved", "2031-05-02"} <= set(must_keep("lookup_order", raw))


def test_a_list_of_orders_must_keep_what_each_holds():
    raw = {
        "orders": [
            {"order_number": "ORD-2031-0001", "status": "shipped", "total": "12.50", "items": [{"name": "Kettle"}]},
            {"order_number": "ORD-2031-0002", "status": "processing", "items": [{"name": "Mug", "quantity": 2}]},
        ]
    }
    assert must_keep("list_my_orders", raw) == ["ORD-2031-0001", "shipped", "12.50", "Kettle", "ORD-2031-0002"] + [
        "processing",
        "Mug",
    ]
