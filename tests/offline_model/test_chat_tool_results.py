"""Chat: replies composed from tool results (role `tool`, JSON content)."""

from __future__ import annotations

import re

import pytest


def _order(number: str, status: str = "shipped", **extra):
    return {
        "order_number": number,
        "status": status,
        "placed_at": "2025-03-01T09:12:00Z",
        "total": 199.0,
        "currency": "CNY",
        "items": [{"name": "蓝牙耳机", "quantity": 1}],
        **extra,
    }


def test_parallel_lookups_round_trip_to_a_reply_naming_both_orders(say, gen, answer_tools):
    g = gen(41)
    for _ in range(8):
        a, b = g.order(), g.order()
        lang_zh = g.rng.random() < 0.5
        request = [{"role": "user", "content": f"帮我查一下{a}和{b}" if lang_zh else f"Check {a} and {b} please"}]
        said = say(request)
        assert said.names == ["lookup_order", "lookup_order"]
        results = [_order(args["order_number"], g.choice(["shipped", "processing"])) for _, args in said.calls]
        reply = say(answer_tools(said, results, request))
        assert reply.calls == [] and reply.raw.choices[0].finish_reason == "stop"
        assert a in reply.content and b in reply.content
        assert bool(re.search(r"[\u4e00-\u9fff]", reply.content.replace("蓝牙耳机", ""))) == lang_zh


def test_status_codes_are_said_in_the_reply_language(say, answer_tools):
    request = [{"role": "user", "content": "订单ORD-2025-0816怎么样了？"}]
    said = say(request)
    reply = say(answer_tools(said, [_order("ORD-2025-0816", "shipped")], request)).content
    assert "ORD-2025-0816" in reply and "已发货" in reply and "¥199.00" in reply
    reply = say(answer_tools(said, [_order("ORD-2025-0816", "processing")], request)).content
    assert "处理中" in reply
    request = [{"role": "user", "content": "status of ORD-2025-0816?"}]
    said = say(request)
    reply = say(answer_tools(said, [_order("ORD-2025-0816", "in_transit")], request)).content
    assert "ORD-2025-0816" in reply and "in transit" in reply


def test_shipments_name_the_carrier_and_the_latest_event(say, answer_tools):
    request = [{"role": "user", "content": "我的快递ORD-2025-0816到哪了？"}]
    said = say(request)
    shipment = {
        "carrier": "SF Express",
        "tracking_number": "SF1234567890",
        "status": "in_transit",
        "eta": "2025-03-06",
        "events": [
            {"time": "2025-03-03T08:00:00Z", "location": "深圳", "description": "已揽收"},
            {"time": "2025-03-04T20:15:00Z", "location": "杭州", "description": "到达转运中心"},
            {"time": "2025-03-04T06:00:00Z", "location": "广州", "description": "运输中"},
        ],
    }
    reply = say(answer_tools(said, [shipment], request)).content
    for expected in ("ORD-2025-0816", "顺丰", "SF1234567890", "运输中", "杭州", "到达转运中心", "2025-03-06"):
        assert expected in reply


def test_errors_are_said_politely(say, answer_tools):
    request = [{"role": "user", "content": "Where is ORD-2025-4040?"}]
    said = say(request)
    reply = say(answer_tools(said, [{"error": "order not found"}], request)).content
    assert "ORD-2025-4040" in reply and "couldn't find" in reply
    request = [{"role": "user", "content": "查一下订单ORD-2025-4040"}]
    said = say(request)
    reply = say(answer_tools(said, [{"error": "订单不存在"}], request)).content
    assert "ORD-2025-4040" in reply and "没有找到" in reply


def test_pending_confirmation_asks_the_customer_to_confirm_and_done_reports(say, answer_tools):
    request = [{"role": "user", "content": "我要退款，订单ORD-2025-0816，商品有质量问题"}]
    said = say(request)
    assert said.names == ["request_refund"]
    pending = {"status": "pending_confirmation", "summary": "为订单ORD-2025-0816退款¥199.00"}
    reply = say(answer_tools(said, [pending], request)).content
    assert "ORD-2025-0816" in reply and "确认" in reply
    request = [{"role": "user", "content": "Refund ORD-2025-0816 please, it broke"}]
    said = say(request)
    reply = say(answer_tools(said, [{"status": "pending_confirmation", "summary": "Refund $19.99"}], request)).content
    assert "ORD-2025-0816" in reply and "yes" in reply
    reply = say(
        answer_tools(said, [{"status": "done", "summary": "Refunded $19.99 for ORD-2025-0816"}], request)
    ).content
    assert reply.startswith("Done") and "ORD-2025-0816" in reply


def test_policy_answers_quote_the_best_snippet_and_name_the_source(say, answer_tools):
    request = [{"role": "user", "content": "What's your refund policy?"}]
    said = say(request)
    articles = {
        "articles": [
            {"id": 3, "title": "Shipping times", "snippet": "Orders ship within 2 business days."},
            {"id": 7, "title": "Refund policy", "snippet": "Refunds are issued within 7 days of receiving the return."},
        ]
    }
    reply = say(answer_tools(said, [articles], request)).content
    assert "“Refund policy”" in reply and "within 7 days" in reply and "#7" not in reply  # no ids of ours
    reply = say(answer_tools(said, [{"articles": []}], request)).content
    assert "couldn't find" in reply


@pytest.mark.parametrize(
    ("question", "found"),
    [
        ("你们家有价保吗", False),
        ("Do you offer price protection if it gets cheaper?", False),
        ("退款政策是什么", True),
        ("How long do refunds take?", True),
        # round-11 red team's: "support hours" answered with "within 24 hours of payment", or not understood
        ("what are your support hours?", False),
        ("你们客服几点上班？", False),
    ],
)
def test_a_policy_about_something_else_is_not_quoted_as_the_answer(say, answer_tools, question, found):
    """Before, "你们家有价保吗" (price protection, which no policy covers) was answered with the refunds policy's
    text (noted last session)."""
    request = [{"role": "user", "content": question}]
    said = say(request)
    assert said.names == ["search_policies"], (said.calls, said.content)
    articles = {
        "articles": [
            {"id": 1, "title": "退款政策", "snippet": "签收后 7 天内可申请无理由退货退款，商品需保持完好。"},
            {"id": 2, "title": "Refunds", "snippet": "You can return an item for a full refund within 7 days."},
            {"id": 3, "title": "Shipping times", "snippet": "Orders ship within 24 hours of payment."},
        ]
    }
    reply = say(answer_tools(said, [articles], request)).content
    assert ("根据《" in reply or "According to our policy" in reply) is found, reply
    assert found or "没有找到" in reply or "couldn't find" in reply, reply


def test_order_lists_and_the_order_placed_on_a_day(say, answer_tools):
    request = [
        {"role": "system", "content": "Current date: 2025-03-05"},
        {"role": "user", "content": "我昨天下的订单是哪个？我的订单有哪些"},
    ]
    said = say(request)
    assert said.names == ["list_my_orders"]
    orders = {"orders": [_order("ORD-2025-0001", placed_at="2025-03-04T10:00:00Z"), _order("ORD-2025-0002")]}
    reply = say(answer_tools(said, [orders], request)).content
    assert "ORD-2025-0001" in reply and "ORD-2025-0002" in reply and "2个订单" in reply
    assert reply.startswith("您昨天下的订单是ORD-2025-0001")


def test_unknown_result_shapes_are_rendered_generically(say, answer_tools):
    request = [{"role": "user", "content": "Where is ORD-2025-0001?"}]
    said = say(request)
    for odd in [
        {"weird": [1, 2, {"x": None}], "n": 3},
        ["a", "b"],
        "plain text result",
        42,
        None,
        {"status": "mystery"},
    ]:
        reply = say(answer_tools(said, [odd], request))
        assert reply.calls == [] and reply.content, odd
    reply = say(
        answer_tools(said, [{"order_number": "ORD-2025-0001", "status": "teleported", "gift_wrap": True}], request)
    )
    assert "ORD-2025-0001" in reply.content and "teleported" in reply.content and "gift_wrap" in reply.content


def test_a_compacted_tracking_history_reads_as_its_latest_event(say, answer_tools):
    """The app shows the model the latest events and a count (chat.tool_results.compact); the count is no field
    to read out to the customer."""
    request = [{"role": "user", "content": "Where is ORD-2025-0817?"}]
    said = say(request)
    events = [{"time": f"2025-03-0{d} 10:00", "location": "Leeds", "description": f"Scan {d}"} for d in (3, 4, 5)]
    result = {
        "order_number": "ORD-2025-0817",
        "carrier": "UPS",
        "tracking_number": "1Z999AA10123456784",
        "status": "in_transit",
        "eta": "2025-03-07",
        "events": events,
        "events_total": 21,
    }
    reply = say(answer_tools(said, [result], request)).content
    assert "Scan 5" in reply and "events_total" not in reply and "21" not in reply


@pytest.mark.parametrize(
    ("text", "error", "said"),
    [
        # round-8 red team's: a rule of the shop read as a failure, without its full stop
        (
            "refund ORD-2025-0870",
            "only the full amount of order ORD-2025-0870 ($320.00) can be refunded here; a partial refund needs a "
            "colleague, and I can pass you to one",
            "Sorry, only the full amount of order ORD-2025-0870 ($320.00) can be refunded here; a partial refund "
            "needs a colleague, and I can pass you to one.",
        ),
        ("ORD-2025-0850退款", "订单ORD-2025-0850已退款，无法退款", "抱歉，订单ORD-2025-0850已退款，无法退款。"),
    ],
)
def test_a_refusal_is_said_as_the_shops_reason(say, answer_tools, text, error, said):
    request = [{"role": "user", "content": text}]
    asked = say(request)
    reply = say(answer_tools(asked, [{"error": error}], request)).content
    assert reply == said, reply


def test_a_step_the_application_did_not_run_is_called_again(say, answer_tools):
    """The application sends back a step whose arguments broke the schema, each call answered "not run"
    (chat.agent._send_back): the model calls again, as a model told what was wrong does."""
    request = [{"role": "user", "content": "status of ORD-2025-0816?"}]
    said = say(request)
    refused = {"error": "arguments of lookup_order fail its schema: ... Nothing was done.", "not_run": True}

    again = say(answer_tools(said, [refused], request))

    assert again.calls == said.calls
    reply = say(answer_tools(said, [{"error": "Order not found.", "not_run": False}], request))
    assert reply.calls == [] and "couldn't find" in reply.content  # an error of a call that ran is said


def test_an_order_the_shop_did_not_find_is_never_the_one_a_later_question_is_about(say, answer_tools):
    """Round 10: after "没有找到订单ORD-2025-0999", a question naming no order was answered about 0999 again."""
    request = [{"role": "user", "content": "ORD-2025-0999到哪了？"}]
    said = say(request)
    missing = {"error": "order ORD-2025-0999 not found", "error_code": "order_not_found"}
    replied = say(answer_tools(said, [missing], request))
    later = [
        *answer_tools(said, [missing], request),
        {"role": "assistant", "content": replied.content},
        {"role": "user", "content": "我的快递发货了吗"},
    ]

    again = say(later)

    assert ("track_shipment", {"order_number": "ORD-2025-0999"}) not in again.calls, again


@pytest.mark.parametrize(
    "text",
    ["上次那个客服说给我补偿50元优惠券，发了没有？", "can I get the refund as store credit instead of to my card?"],
)
def test_vouchers_and_compensation_are_a_colleagues_with_the_offer_of_one(say, text):
    """Round 10: answered about an order not found, and "a refund is already being processed"."""
    said = say(text)
    assert said.calls == [] and ("为您转接" in said.content or "pass you to one" in said.content), said
