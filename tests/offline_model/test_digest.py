"""A chunk of a long conversation digested (TASK: digest_chunk), and what the chat makes of a compressed history:
values the customer stated answered from the said-earlier block, an order found by what they said about it."""

from __future__ import annotations

import json

import pytest

from agentsite.offline_model import tokens
from tests.offline_model.tool_schemas import tool_schemas

CHUNK = """customer: 在吗？
agent: 在的，请问有什么可以帮您？
customer: 订单 ORD-2025-0816 买的是电水壶，现在到哪了？
agent called: track_shipment({"order_number": "ORD-2025-0816"})
tool result: {"order_number": "ORD-2025-0816", "status": "delivered", "carrier": "顺丰速运"}
agent: 订单ORD-2025-0816已签收。
agent: 请问您的生日是哪天？
customer: 3月16日
customer: 我的手机号是13912345678，谢谢
agent: 不客气！"""


def _digest(client, chunk: str, cap: int = 40) -> dict:
    instructions = f"TASK: digest_chunk\nReturn one JSON object; summary: at most {cap} tokens."
    response = client.chat.completions.create(
        model="offline-cheap",
        messages=[{"role": "system", "content": instructions}, {"role": "user", "content": chunk}],
        response_format={"type": "json_object"},
    )
    return json.loads(response.choices[0].message.content)


def test_a_chunk_leaves_a_dense_summary_the_values_stated_and_the_words_about_each_order(client):
    digest = _digest(client, CHUNK)

    assert digest["stated"] == {"birthday": "03-16", "phone_number": "13912345678"}  # an answer to the agent's question
    assert digest["orders"] == {"ORD-2025-0816": "买的是电水壶"}
    summary = digest["summary"]
    assert "ORD-2025-0816 已签收" in summary and tokens.count(summary) <= 40
    assert "在吗" not in summary and "不客气" not in summary  # small talk and thanks leave nothing


def test_small_talk_alone_leaves_an_empty_summary_and_an_order_only_asked_about_has_no_words(client):
    chunk = "customer: hi, are you there?\nagent: Hi! How can I help?\ncustomer: can you check ORD-2025-0901?"

    digest = _digest(client, chunk.split("\ncustomer: can")[0])
    asked = _digest(client, chunk)

    assert digest == {"summary": "", "stated": {}, "orders": {}}
    assert asked["orders"] == {} and "ORD-2025-0901" in asked["summary"]


def _history(said: list[str], memory: list[str] = ()) -> list[dict]:
    system = "You are the shop's assistant."
    if memory:
        system += "\n<<<MEMORY\n" + "\n".join(memory) + "\nMEMORY>>>"
    block = "\n".join(
        [
            "[earlier conversation summary]",
            "Asked about a delivery.",
            "Said earlier in this conversation (the customer's words, not checked against the shop's records):",
            "<<<SAID",
            *said,
            "SAID>>>",
        ]
    )
    return [{"role": "system", "content": system}, {"role": "system", "content": block}]


def _ask(client, messages: list[dict], question: str):
    response = client.chat.completions.create(
        model="offline-main", messages=[*messages, {"role": "user", "content": question}], tools=tool_schemas()
    )
    return response.choices[0].message


SAID = [
    "- name: Nora Bennett",
    "- phone_number: 07700900321",
    "- birthday: 04-18",
    "- ORD-2025-0816: the kettle",
    "- ORD-2025-0817: the air fryer",
    "- ORD-2025-0818: the hair dryer",
    "- ORD-2025-0819: 买的是电水壶",
]


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("Do you remember my name?", "Nora Bennett"),
        ("What's my phone number?", "07700900321"),
        ("When is my birthday?", "April 18"),
    ],
)
def test_values_said_before_the_compressed_part_are_answered_from_the_block(client, question, expected):
    assert expected in _ask(client, _history(SAID), question).content


def test_the_shops_record_still_answers_before_what_the_customer_said(client):
    memory = ["- [confirmed] Shipping address: 1 Shop Road {key=shipping_address; value=1 Shop Road}"]
    said = [*SAID, "- shipping_address: 9 Old Lane"]

    reply = _ask(client, _history(said, memory), "What's my shipping address?").content

    assert reply.index("1 Shop Road") < reply.index("9 Old Lane")


@pytest.mark.parametrize(
    ("question", "order"),
    [
        ("What was the order number for the kettle?", "ORD-2025-0816"),
        ("which order was the air fryer?", "ORD-2025-0817"),
        ("where is my hair dryer order?", "ORD-2025-0818"),
        ("我买电水壶的那个订单号是多少？", "ORD-2025-0819"),
    ],
)
def test_an_order_is_found_by_what_the_customer_said_about_it(client, question, order):
    message = _ask(client, _history(SAID), question)

    assert [json.loads(c.function.arguments)["order_number"] for c in message.tool_calls] == [order]


def test_words_that_fit_no_order_or_several_pick_none(client):
    said = [*SAID, "- ORD-2025-0820: another kettle"]

    for question in ("What was the order number for the kettle?", "What was the order number for the sofa?"):
        message = _ask(client, _history(said), question)
        numbers = [json.loads(c.function.arguments).get("order_number") for c in message.tool_calls or []]
        assert not {"ORD-2025-0816", "ORD-2025-0820"} & set(numbers), (question, message)


def test_a_summarised_tool_result_gives_its_order_s_status_to_the_digest(client):
    card = "[summary] shipment ORD-2025-0816 delivered: 顺丰速运 SF1234567890, latest of 12 events 2025-03-02 10:00, 上海: 已签收"
    chunk = CHUNK.replace(CHUNK.splitlines()[4], f"tool result: {card}")

    digest = _digest(client, chunk)

    assert "ORD-2025-0816 已签收" in digest["summary"]


def _looked_up(number: str, item: str, call_id: str) -> list[dict]:
    """A lookup of ``number`` earlier in the chat, its long result summarised by working memory."""
    card = f"[summary] order {number} shipped, placed 2025-03-01, total 199.00 CNY\nitems: {item} ×2、数据线"
    call = {
        "id": call_id,
        "type": "function",
        "function": {"name": "lookup_order", "arguments": json.dumps({"order_number": number})},
    }
    return [
        {"role": "user", "content": f"查一下{number}"},
        {"role": "assistant", "content": None, "tool_calls": [call]},
        {"role": "tool", "tool_call_id": call_id, "content": card},
        {"role": "assistant", "content": f"订单{number}已发货。"},
    ]


def test_an_order_is_found_by_the_items_a_summarised_lookup_listed(client):
    history = [{"role": "system", "content": "You are the shop's assistant."}]
    history += _looked_up("ORD-2025-0816", "电水壶", "call_1") + _looked_up("ORD-2025-0817", "空气炸锅", "call_2")

    message = _ask(client, history, "电水壶那个订单现在到哪了？")

    assert [json.loads(c.function.arguments)["order_number"] for c in message.tool_calls] == ["ORD-2025-0816"]
