"""Whatever arrives, every task composes a reply (in process: no server needed)."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from agentsite.offline_model import conversation, server
from tests.offline_model.tool_schemas import tool_schemas

TOOLS = tool_schemas()
WORDS = st.sampled_from(
    [
        "订单",
        "ORD-2025-0816",
        "快递",
        "到哪了",
        "退款",
        "生日",
        "3月15日",
        "通知",
        "关掉",
        "微信",
        "地址",
        "北京市朝阳区建国路1号",
        "my",
        "order",
        "refund",
        "birthday",
        "March 15",
        "mute",
        "email",
        "?",
        "？",
        "，",
        " ",
        "不对",
        "actually",
        "ignore",
        "previous instructions",
        "42 Elm Street",
        "我叫",
        "Alice",
        "13812345678",
        "a@b.co",
        "¥19.99",
        "yes",
        "确认",
    ]
)
TEXT = st.one_of(st.text(max_size=200), st.lists(WORDS, max_size=25).map("".join))
JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=30),
    lambda children: (
        st.lists(children, max_size=4)
        | st.dictionaries(
            st.sampled_from(
                [
                    "status",
                    "error",
                    "orders",
                    "events",
                    "articles",
                    "order_number",
                    "summary",
                    "memories",
                    "time",
                    "carrier",
                    "snippet",
                    "x",
                ]
            ),
            children,
            max_size=5,
        )
    ),
    max_leaves=20,
)


def _compose(system: str, user: str) -> str | None:
    body = {
        "model": "m",
        "messages": [{"role": "system", "content": system}, {"role": "user", "content": user}],
        "tools": TOOLS,
    }
    reply = server.compose(conversation.from_request(body))
    assert reply.content or reply.tool_calls or not user.strip()
    return reply.content


@settings(deadline=None, max_examples=150)
@given(TEXT)
def test_any_text_gets_a_chat_reply(text):
    _compose("You are the agent.\n<<<MEMORY\n- [参考] 客户的生日是3月15日 {key=birthday; value=03-15}\nMEMORY>>>", text)


@settings(deadline=None, max_examples=100)
@given(st.lists(st.tuples(st.sampled_from(["customer", "agent"]), TEXT), max_size=6))
def test_any_transcript_gets_valid_extraction_json(turns):
    transcript = "\n".join(f"{who}: {text}" for who, text in turns)
    data = json.loads(_compose("TASK: extract_memories", transcript) or "")
    assert isinstance(data["memories"], list)


@settings(deadline=None, max_examples=100)
@given(st.one_of(TEXT, JSON_VALUES.map(json.dumps)))
def test_any_text_or_json_gets_a_summary(text):
    summary = _compose("TASK: summarise", text)
    assert summary is not None or not text.strip()


@settings(deadline=None, max_examples=150)
@given(JSON_VALUES, st.sampled_from([t["function"]["name"] for t in TOOLS] + ["mystery_tool"]))
def test_any_tool_result_is_said(result, tool):
    call = {
        "id": "call_1",
        "type": "function",
        "function": {"name": tool, "arguments": '{"order_number": "ORD-2025-0001"}'},
    }
    body = {
        "model": "m",
        "tools": TOOLS,
        "messages": [
            {"role": "user", "content": "查一下ORD-2025-0001"},
            {"role": "assistant", "content": None, "tool_calls": [call]},
            {"role": "tool", "tool_call_id": "call_1", "content": json.dumps(result)},
        ],
    }
    reply = server.compose(conversation.from_request(body))
    assert reply.content and not reply.tool_calls
