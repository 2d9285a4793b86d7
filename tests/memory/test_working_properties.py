"""Properties of working memory under any sequence of appends, checked against the offline model's API.

Whatever happens, the budget holds (or ``PinnedOverflow`` is raised and nothing changed), the
pinned entries survive, tool calls and results stay paired, and the message list is one the
offline model server accepts (it answers 400 to orphan tool messages, like the real API).
"""

from __future__ import annotations

import itertools
import json

import openai
import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from memory.tokens import count_tokens
from memory.working import PinnedOverflow, Role, ToolCall, WorkingMemory

LOOKUP_ORDER = {
    "type": "function",
    "function": {
        "name": "lookup_order",
        "description": "Look up one of the customer's orders by its number.",
        "parameters": {
            "type": "object",
            "properties": {"order_number": {"type": "string"}},
            "required": ["order_number"],
        },
    },
}
STAND_IN = "[result omitted: too large for working memory]"


def text(n: int, seed: int = 0) -> str:
    return f"ORD-2025-{seed % 10000:04d} " + " ".join(["data"] * n)


def truncating_summary(raw: str) -> str:
    return " ".join(raw.split()[:20])


operations = st.lists(
    st.one_of(
        st.tuples(st.just("user"), st.integers(0, 150)),
        st.tuples(st.just("assistant"), st.integers(0, 150)),
        st.tuples(st.just("memory"), st.integers(0, 60)),
        st.tuples(st.just("tools"), st.lists(st.integers(0, 400), min_size=1, max_size=3)),
    ),
    min_size=1,
    max_size=40,
)


@pytest.fixture(scope="module")
def client(offline_model):
    return openai.OpenAI(base_url=offline_model.base_url, api_key="offline", max_retries=0)


def check(wm: WorkingMemory, system: str, memory: str, latest_user: str | None) -> None:
    entries = wm.entries()
    usage = wm.usage()
    assert usage.used == sum(e.tokens for e in entries) <= wm.budget_tokens
    assert entries[0].content == system and entries[0].pinned
    if memory:
        assert entries[1].content == memory and entries[1].pinned
    users = [e for e in entries if e.role is Role.USER]
    if latest_user is not None:
        assert users[-1].content == latest_user and users[-1].pinned
    assert sum(e.pinned for e in users) == (1 if users else 0)
    calls = {c.id for e in entries if e.role is Role.TOOL_CALL for c in e.tool_calls}
    results = [e.tool_call_id for e in entries if e.role is Role.TOOL_RESULT]
    assert sorted(results) == sorted(calls)  # every call answered once, no result without its call


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    budget=st.integers(40, 600),
    system_size=st.integers(1, 30),
    threshold=st.integers(20, 300),
    ops=operations,
)
def test_any_appends_keep_the_buffer_valid_and_accepted_by_the_api(client, budget, system_size, threshold, ops):
    wm = WorkingMemory(budget, summarise_over_tokens=threshold)
    system = text(system_size)
    wm.set_system(system)
    memory, latest_user = "", None
    ids = itertools.count()
    for step, (kind, arg) in enumerate(ops):
        before = wm.snapshot()
        try:
            if kind == "user":
                content = text(arg, step)
                wm.append_user(content)
                latest_user = content
            elif kind == "assistant":
                wm.append_assistant(text(arg, step))
            elif kind == "memory":
                new_memory = text(arg, step) if arg else ""
                wm.set_memory(new_memory)
                memory = new_memory
            else:
                calls = [
                    ToolCall(f"call_{next(ids)}", "lookup_order", json.dumps({"order_number": text(0, step)}))
                    for _ in arg
                ]
                wm.append_tool_call(calls)
        except PinnedOverflow as overflow:
            event("pinned overflow refused")
            assert overflow.pinned_tokens > budget
            assert wm.snapshot() == before  # refused whole, nothing changed
            continue
        if kind == "tools":
            for call, size in zip(calls, arg, strict=True):
                before = wm.snapshot()
                try:
                    wm.append_tool_result(call.id, text(size, step), truncating_summary)
                except PinnedOverflow:
                    event("tool result replaced by a stand-in")
                    assert wm.snapshot() == before
                    try:
                        wm.append_tool_result(call.id, STAND_IN, truncating_summary)  # what the agent does
                    except PinnedOverflow:
                        return  # not even the stand-in fits: the agent gives up the turn
        check(wm, system, memory, latest_user)

    event("evicted" if wm.evicted else "nothing evicted")
    response = client.chat.completions.create(model="offline-main", messages=wm.to_messages(), tools=[LOOKUP_ORDER])
    assert response.choices[0].message is not None


def test_the_server_rejects_an_orphan_tool_message(client):
    """The check above has teeth: a tool result without the call it answers is refused."""
    messages = [{"role": "user", "content": "where is ORD-2025-0816?"}, {"role": "tool", "content": "shipped"}]
    with pytest.raises(openai.BadRequestError):
        client.chat.completions.create(model="offline-main", messages=messages)
    orphan = [{"role": "user", "content": "hi"}, {"role": "tool", "tool_call_id": "call_1", "content": "shipped"}]
    with pytest.raises(openai.BadRequestError):
        client.chat.completions.create(model="offline-main", messages=orphan)


@pytest.mark.django_db
def test_a_long_tool_result_is_summarised_by_the_cheap_model(summarise, offline_model):
    wm = WorkingMemory(8000, summarise_over_tokens=500)
    wm.append_user("where is ORD-2025-0816?")
    wm.append_tool_call([ToolCall("call_1", "lookup_order", '{"order_number": "ORD-2025-0816"}')])
    items = [
        {
            "sku": f"sku-{i}",
            "name": "ceramic mug",
            "description": "A sturdy stoneware mug with a glazed "
            "finish, dishwasher safe, holds a generous amount of coffee or tea, packed in recycled paper.",
        }
        for i in range(40)
    ]
    raw = json.dumps({"order_number": "ORD-2025-0816", "status": "shipped", "tracking": "SF1234567890", "items": items})
    calls_before = offline_model.stats()["by_task"]["summarise"]

    stored = wm.append_tool_result("call_1", raw, summarise)

    assert offline_model.stats()["by_task"]["summarise"] == calls_before + 1
    assert stored.content.startswith("[summary] ") and stored.metadata["raw_chars"] == len(raw)
    assert "ORD-2025-0816" in stored.content and "SF1234567890" in stored.content
    assert stored.tokens == count_tokens(stored.content) < count_tokens(raw)
    print(f"\ntool result: {count_tokens(raw)} tokens raw -> {stored.tokens} stored")
