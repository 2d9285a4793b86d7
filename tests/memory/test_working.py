"""Working memory: budget, eviction order, pinned entries, tool pairs, summaries of long results."""

from __future__ import annotations

import json

import pytest

from memory.tokens import count_tokens
from memory.working import (
    IncompleteToolCall,
    PinnedOverflow,
    Role,
    ToolCall,
    UnknownToolCall,
    WorkingMemory,
)
from tests.factories import entry, tool_call, tool_result


def words(n: int, word: str = "data") -> str:
    """Return text of exactly ``n`` tokens ("data data ..." is one token per word)."""
    text = " ".join([word] * n)
    assert count_tokens(text) == n
    return text


def no_summary(text: str) -> str:
    raise AssertionError("short results are not summarised")


def call(call_id: str, order: str = "ORD-2025-0001") -> ToolCall:
    return ToolCall(call_id, "lookup_order", json.dumps({"order_number": order}))


def test_entries_count_their_tokens_once_for_what_is_stored():
    wm = WorkingMemory(1000)
    user = wm.append_user("我的订单号是 ORD-2025-0816")
    calls = wm.append_tool_call([call("c1")], content="checking")

    assert user.tokens == count_tokens("我的订单号是 ORD-2025-0816")
    arguments = calls.tool_calls[0].arguments
    assert calls.tokens == count_tokens("checking") + count_tokens("lookup_order") + count_tokens(arguments)
    assert wm.usage().used == user.tokens + calls.tokens


def test_a_result_at_the_threshold_is_stored_raw():
    wm = WorkingMemory(2000, summarise_over_tokens=100)
    wm.append_tool_call([call("c1")])

    stored = wm.append_tool_result("c1", words(100), no_summary)

    assert stored.content == words(100) and stored.tokens == 100
    assert stored.metadata["summarised"] is False


def test_a_result_over_the_threshold_is_stored_as_its_summary():
    wm = WorkingMemory(2000, summarise_over_tokens=100)
    wm.append_tool_call([call("c1")])
    raw = words(101)

    stored = wm.append_tool_result("c1", raw, lambda text: "ORD-2025-0001 shipped")

    assert stored.content == "[summary] ORD-2025-0001 shipped"
    assert stored.tokens == count_tokens(stored.content)  # the summary's tokens, not the raw result's
    assert stored.metadata == {"raw_chars": len(raw), "raw_tokens": 101, "summarised": True, "summary": "used"}


def test_a_summary_that_loses_a_value_to_keep_is_not_used():
    wm = WorkingMemory(2000, summarise_over_tokens=100)
    wm.append_tool_call([call("c1"), call("c2")])
    raw = words(101) + " ORD-2025-0001 shipped 129.00"

    dropped = wm.append_tool_result("c1", raw, lambda text: "ORD-2025-0001 shipped", keep=["ORD-2025-0001", "129.00"])
    rewritten = wm.append_tool_result("c2", raw, lambda text: "ORD-2025-0001 shipped, ¥129", keep=["129.00"])

    assert dropped.content == rewritten.content == raw  # the whole result rather than a summary without 129.00
    assert not dropped.metadata["summarised"] and not rewritten.metadata["summarised"]
    assert dropped.metadata["summary"] == rewritten.metadata["summary"] == "lost_values"
    kept = WorkingMemory(2000, summarise_over_tokens=100)
    kept.append_tool_call([call("c1")])
    summary = kept.append_tool_result("c1", raw, lambda text: "ORD-2025-0001 shipped 129.00", keep=["129.00"])
    assert summary.content == "[summary] ORD-2025-0001 shipped 129.00"


def test_a_long_result_compacted_below_the_threshold_is_still_summarised():
    wm = WorkingMemory(2000, summarise_over_tokens=100)
    wm.append_tool_call([call("c1")])
    raw, shown, read = words(300), words(60), []

    stored = wm.append_tool_result("c1", raw, lambda text: read.append(text) or "ORD-2025-0001 shipped", shown=shown)

    assert read == [shown]  # the cheap model summarises what compaction left, not the raw result
    assert stored.metadata == {"raw_chars": len(raw), "raw_tokens": 300, "summarised": True, "summary": "used"}
    wm.append_tool_call([call("c2")])
    short = wm.append_tool_result("c2", words(50), no_summary, shown=words(20))
    assert short.content == words(20)  # a short result is shown as the caller compacted it


def test_a_summary_longer_than_the_result_is_not_used():
    wm = WorkingMemory(2000, summarise_over_tokens=10)
    wm.append_tool_call([call("c1")])

    stored = wm.append_tool_result("c1", words(11), lambda text: words(50))

    assert stored.content == words(11) and stored.metadata["summary"] == "not_shorter"


def test_a_result_for_an_unknown_call_is_refused():
    wm = WorkingMemory(1000)
    with pytest.raises(UnknownToolCall):
        wm.append_tool_result("nope", "x", no_summary)


def test_eviction_removes_the_oldest_tool_turns_first_and_keeps_the_latest_two_results():
    wm = WorkingMemory(10_000, summarise_over_tokens=10_000)
    wm.set_system("You are the shop's assistant.")
    wm.append_user("check my four orders")
    for i in range(4):
        wm.append_tool_call([call(f"c{i}", f"ORD-2025-000{i}")])
        wm.append_tool_result(f"c{i}", words(100), no_summary)
    wm.append_assistant("all four found")
    used = wm.usage().used

    wm.budget_tokens = used - 150  # more than one tool turn (~120 tokens) must go
    wm.append_assistant("ok")

    ids = [e.tool_call_id for e in wm.entries() if e.role is Role.TOOL_RESULT]
    assert ids == ["c2", "c3"]  # c0 and c1 went first, with their calls; the user turn stayed
    assert wm.evicted == 4
    assert [e.content for e in wm.entries() if e.role is Role.USER] == ["check my four orders"]
    assert wm.usage().used <= wm.budget_tokens


def test_a_tool_turn_and_all_its_results_leave_together():
    wm = WorkingMemory(10_000, summarise_over_tokens=10_000)
    wm.append_user("compare two orders")
    wm.append_tool_call([call("a1", "ORD-2025-0001"), call("a2", "ORD-2025-0002")])
    wm.append_tool_result("a1", words(200), no_summary)
    wm.append_tool_result("a2", words(200), no_summary)
    for i in range(2):
        wm.append_tool_call([call(f"b{i}")])
        wm.append_tool_result(f"b{i}", words(10), no_summary)

    wm.budget_tokens = wm.usage().used - 5
    wm.append_assistant("done")

    remaining = {e.tool_call_id for e in wm.entries() if e.role is Role.TOOL_RESULT}
    assert remaining == {"b0", "b1"}
    assert not [e for e in wm.entries() if e.role is Role.TOOL_CALL and e.tool_calls[0].id == "a1"]
    wm.to_messages()  # still a valid list


def test_when_tool_results_are_not_enough_the_oldest_turns_go():
    wm = WorkingMemory(60)
    wm.set_system("system")
    for i in range(10):
        wm.append_user(f"question {i} " + words(5))
        wm.append_assistant(f"answer {i} " + words(5))

    contents = [e.content for e in wm.entries()]
    assert wm.usage().used <= 60
    assert contents[0] == "system"
    assert contents[-1].startswith("answer 9") and contents[-2].startswith("question 9")
    assert not any(c.startswith("question 0") for c in contents)


def test_pinned_entries_survive_any_pressure():
    wm = WorkingMemory(100)
    wm.set_system("system prompt")
    wm.set_memory("- [confirmed] prefers email")
    wm.append_user(words(40))
    wm.append_assistant(words(40))
    latest = wm.append_user(words(60))

    kept = wm.entries()
    assert kept[0].content == "system prompt" and kept[0].pinned
    assert kept[1].content == "- [confirmed] prefers email" and kept[1].pinned
    assert kept[-1] == latest and latest.pinned
    assert [e.pinned for e in kept if e.role is Role.USER] == [True]


def test_pinned_entries_over_the_budget_raise_and_change_nothing():
    wm = WorkingMemory(50)
    wm.set_system("system prompt")
    wm.append_user("first question")
    before = wm.snapshot()

    with pytest.raises(PinnedOverflow) as raised:
        wm.append_user(words(60))

    assert raised.value.pinned_tokens > raised.value.budget_tokens == 50
    assert raised.value.parts["latest user message"] == 60
    assert wm.snapshot() == before


def test_pinned_entries_exactly_at_the_budget_fit():
    wm = WorkingMemory(50)
    wm.set_system(words(20))
    wm.append_user(words(30))

    assert wm.usage().used == 50 and wm.usage().ratio == 1.0


def test_a_memory_block_too_big_for_the_budget_raises():
    wm = WorkingMemory(50)
    wm.append_user(words(30))
    with pytest.raises(PinnedOverflow):
        wm.set_memory(words(21))
    assert wm.set_memory(words(20)).tokens == 20


def test_a_tool_call_waiting_for_its_result_is_not_evicted():
    wm = WorkingMemory(100, summarise_over_tokens=1000)
    wm.append_user("q")
    wm.append_tool_call([call("c1"), call("c2")])
    wm.append_tool_result("c1", words(30), no_summary)

    with pytest.raises(IncompleteToolCall):
        wm.to_messages()
    with pytest.raises(PinnedOverflow):
        wm.append_tool_result("c2", words(80), no_summary)
    wm.append_tool_result("c2", words(20), no_summary)
    assert [m["role"] for m in wm.to_messages()] == ["user", "assistant", "tool", "tool"]


def test_messages_pair_each_tool_call_with_its_results():
    wm = WorkingMemory(1000)
    wm.set_system("system")
    wm.set_memory("memory")
    wm.append_user("where are ORD-2025-0001 and ORD-2025-0002?")
    wm.append_tool_call([call("c1", "ORD-2025-0001"), call("c2", "ORD-2025-0002")], content="")
    wm.append_tool_result("c2", "shipped", no_summary)
    wm.append_tool_result("c1", "packed", no_summary)
    wm.append_assistant("One is packed, one shipped.")

    messages = wm.to_messages()

    assert [m["role"] for m in messages] == ["system", "system", "user", "assistant", "tool", "tool", "assistant"]
    assert messages[3]["content"] is None
    assert [c["id"] for c in messages[3]["tool_calls"]] == ["c1", "c2"]
    assert messages[3]["tool_calls"][0]["function"] == {
        "name": "lookup_order",
        "arguments": '{"order_number": "ORD-2025-0001"}',
    }
    assert [(m["tool_call_id"], m["content"]) for m in messages[4:6]] == [("c1", "packed"), ("c2", "shipped")]


def test_history_with_split_tool_pairs_is_repaired():
    wm = WorkingMemory(1000)
    wm.extend(
        [
            tool_result("lost", "result whose call was summarised away"),
            entry(Role.SYSTEM, "[earlier conversation summary]\n..."),
            entry(Role.USER, "question"),
            tool_call("ok"),
            tool_result("ok", "fine"),
            tool_call("crashed"),  # the turn died before its result
        ]
    )

    assert [m["role"] for m in wm.to_messages()] == ["system", "user", "assistant", "tool"]
    assert wm.entries()[1].pinned  # the latest user message of the history is pinned


def test_extend_pins_only_the_last_customer_message_and_keeps_the_others_as_given():
    wm = WorkingMemory(1000)
    earlier = wm.append_user("before the history")
    history = [
        entry(Role.USER, "first"),
        entry(Role.ASSISTANT, "reply"),
        entry(Role.USER, "second"),
        entry(Role.ASSISTANT, "reply again"),
        entry(Role.USER, "third", pinned=True),
    ]
    history.append(entry(Role.ASSISTANT, "last reply"))

    wm.extend(history)

    kept = wm.entries()
    assert [e.pinned for e in kept] == [False, False, False, False, False, True, False]
    assert kept[0].content == earlier.content
    # Entries that need no change go in as the very objects given (history is read once per turn, shared).
    assert all(kept[i + 1] is history[i] for i in (0, 1, 2, 3, 5))
    assert kept[5].content == "third" and wm.append_user("now").pinned and not wm.entries()[5].pinned


def test_extend_evicts_once_to_the_budget():
    wm = WorkingMemory(30)
    wm.extend(
        [
            entry(Role.USER, words(10)),
            entry(Role.ASSISTANT, words(10)),
            entry(Role.USER, words(10)),
            entry(Role.ASSISTANT, words(10)),
        ]
    )

    assert wm.usage().used == 30
    assert [e.role for e in wm.entries()] == [Role.ASSISTANT, Role.USER, Role.ASSISTANT]


def test_usage_and_snapshot_describe_the_buffer():
    wm = WorkingMemory(100)
    wm.set_system(words(10))
    wm.append_user(words(15))

    assert wm.usage().used == 25 and wm.usage().max == 100 and wm.usage().ratio == 0.25
    snapshot = json.loads(json.dumps(wm.snapshot()))
    assert snapshot["usage"] == {"used": 25, "max": 100, "ratio": 0.25}
    assert [e["role"] for e in snapshot["entries"]] == ["system", "user"]
    assert all(e["pinned"] for e in snapshot["entries"])


def test_eviction_is_linear_in_the_buffer_size():
    """Counted in lines of working memory's code executed (deterministic), not timed: no wall clock in tests."""
    import sys

    def one_eviction(n: int) -> int:
        wm = WorkingMemory(10**9, summarise_over_tokens=10**9)
        wm.append_user("q")
        for i in range(n):
            wm.append_tool_call([call(f"c{i}")])
            wm.append_tool_result(f"c{i}", "r", no_summary)
        wm.budget_tokens = wm.usage().used // 2  # half of all tool turns must go in one eviction
        lines = 0

        def trace(frame, event, arg):
            nonlocal lines
            if frame.f_code.co_filename != working_memory_file:
                return None
            if event == "line":
                lines += 1
            return trace

        sys.settrace(trace)
        try:
            wm.append_assistant("a")
        finally:
            sys.settrace(None)
        return lines

    import memory.working

    working_memory_file = memory.working.__file__
    small, large = one_eviction(2000), one_eviction(20000)
    # 10x the entries: linear is ~10x the lines run, a quadratic eviction would be ~100x.
    assert small > 2000 and large / small < 30, (small, large)


def test_the_compressed_history_summary_is_evicted_after_the_messages_it_precedes():
    wm = WorkingMemory(budget_tokens=400)
    summary = entry(Role.SYSTEM, words(150), metadata={"kind": "summary"})
    wm.extend([summary, *(entry(Role.USER, words(60)) for _ in range(3))])
    wm.append_user(words(120))  # 150 + 3 x 60 + 120 > 400: something must go
    kept = wm.entries()
    assert kept[0].metadata.get("kind") == "summary"
    assert wm.usage().used <= 400
