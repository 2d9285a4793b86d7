"""Compression of long sessions with the real cheap model (the offline model over HTTP)."""

from __future__ import annotations

import json
import re
import threading

import pytest
from django.db import connection

from memory.compression import SUMMARY_HEADER
from memory.models import CompressionSummary, ConversationMessage
from memory.session import SessionStore
from memory.states import AgentState
from memory.tokens import count_tokens
from memory.working import Role, ToolCall, WorkingMemory
from tests.memory.conftest import entry, summary_calls

pytestmark = pytest.mark.django_db

ORDER = re.compile(r"ORD-\d{4}-\d{4}")


def play_turns(store, conversation_id, summarise=None, messages: int = 120) -> None:
    """Append ``messages`` messages in turns about different orders; compress after each append like the agent."""
    n = 0
    while n < messages:
        order = f"ORD-2025-{1000 + n:04d}"
        if n % 8 == 4 and messages - n >= 4:
            call = ToolCall(f"call_{n}", "lookup_order", json.dumps({"order_number": order}))
            turn = [
                entry(Role.USER, f"Can you check {order} for me? It was placed last week."),
                entry(Role.TOOL_CALL, tool_calls=[call]),
                entry(Role.TOOL_RESULT, json.dumps({"order_number": order, "status": "packed"}), tool_call_id=call.id),
                entry(Role.ASSISTANT, f"{order} is packed and will ship tomorrow."),
            ]
        else:
            turn = [
                entry(Role.USER, f"我的订单号是 {order}，昨天下的单，还没发货，请帮我看看是什么情况。"),
                entry(Role.ASSISTANT, f"好的，{order} 正在仓库打包，预计明天发出，到时会短信通知您。"),
            ]
        for item in turn[: messages - n]:
            store.append(conversation_id, item)
            n += 1
            if summarise is not None:
                store.compress(conversation_id, summarise)


def test_chunks_are_due_only_past_the_threshold(store):
    assert store.pending_chunks(last_seq=50, covered=0) == []
    assert store.pending_chunks(last_seq=51, covered=0) == [(1, 10), (11, 20)]  # 21.. stays verbatim
    assert store.pending_chunks(last_seq=120, covered=60) == [(61, 70), (71, 80), (81, 90)]
    assert store.pending_chunks(last_seq=129, covered=90) == []


def test_a_long_session_is_compressed_once_per_chunk(store, customer, summarise, offline_model, capsys):
    session = store.start(customer.pk)
    calls_before = summary_calls(offline_model)

    play_turns(store, session.id, summarise)

    summaries = list(CompressionSummary.objects.filter(conversation_id=session.id).order_by("first_seq"))
    assert [(s.first_seq, s.last_seq) for s in summaries] == [(f, f + 9) for f in range(1, 91, 10)]
    assert summary_calls(offline_model) - calls_before == 9  # 120 appends, 120 compress() calls, 9 model calls
    store.compress(session.id, summarise)
    assert summary_calls(offline_model) - calls_before == 9

    for summary in summaries:
        chunk = ConversationMessage.objects.filter(
            conversation_id=session.id, seq__gte=summary.first_seq, seq__lte=summary.last_seq
        )
        orders = {o for m in chunk for o in ORDER.findall(m.content + json.dumps(m.metadata))}
        assert orders and orders <= set(ORDER.findall(summary.content)), (summary.first_seq, summary.content)
        assert summary.tokens_before == sum(m.token_count for m in chunk)
        assert summary.tokens_after == count_tokens(summary.content) < summary.tokens_before

    history = store.history(session.id)
    assert history[0].role is Role.SYSTEM and history[0].content.startswith(SUMMARY_HEADER)
    assert [e.metadata["seq"] for e in history[1:]] == list(range(91, 121))
    all_tokens = sum(m.token_count for m in ConversationMessage.objects.filter(conversation_id=session.id))
    compressed = sum(e.tokens for e in history)
    before, after = sum(s.tokens_before for s in summaries), sum(s.tokens_after for s in summaries)
    with capsys.disabled():
        print(
            f"\ncompression: 120 messages, {all_tokens} tokens -> summary + 30 messages, {compressed} tokens "
            f"({100 * (1 - compressed / all_tokens):.0f}% less); the 90 summarised messages {before} -> {after} tokens"
        )
    wm = WorkingMemory(8000)
    wm.set_system("You are the shop's assistant.")
    wm.extend(history)
    assert wm.evicted == 0 and wm.to_messages()[1]["content"].startswith(SUMMARY_HEADER)


def test_no_compression_up_to_the_threshold(store, customer, summarise, offline_model):
    session = store.start(customer.pk)
    calls_before = summary_calls(offline_model)

    play_turns(store, session.id, summarise, messages=50)

    assert summary_calls(offline_model) == calls_before
    assert not CompressionSummary.objects.exists()
    history = store.history(session.id)
    assert len(history) == 50 and history[0].role is Role.USER


def test_one_message_past_the_threshold_summarises_the_first_two_chunks(store, customer, summarise, offline_model):
    session = store.start(customer.pk)
    play_turns(store, session.id, messages=51)
    calls_before = summary_calls(offline_model)

    created = store.compress(session.id, summarise)

    assert [(s.first_seq, s.last_seq) for s in created] == [(1, 10), (11, 20)]
    assert summary_calls(offline_model) - calls_before == 2
    assert [e.metadata.get("seq") for e in store.history(session.id)[1:]] == list(range(21, 52))


@pytest.mark.django_db(transaction=True)
def test_concurrent_compressions_summarise_each_chunk_once(customer, redis_conn, summarise, offline_model):
    store = SessionStore(redis_conn)
    session = store.start(customer.pk)
    play_turns(store, session.id, messages=120)
    calls_before = summary_calls(offline_model)
    errors = []

    def compress() -> None:
        try:
            SessionStore(redis_conn).compress(session.id, summarise)
        except Exception as error:  # noqa: BLE001 - reported below
            errors.append(error)
        finally:
            connection.close()

    threads = [threading.Thread(target=compress) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    store.compress(session.id, summarise)  # whoever was turned away catches up

    assert not errors
    assert CompressionSummary.objects.filter(conversation_id=session.id).count() == 9
    assert summary_calls(offline_model) - calls_before == 9


def test_a_flush_mid_session_loses_nothing(store, customer, summarise, redis_conn):
    session = store.start(customer.pk)
    store.transition(session.id, AgentState.COLLECTING_INFO, "order questions")
    store.update_info(session.id, {"order_id": "ORD-2025-1000", "phone": "13800138000"})
    play_turns(store, session.id, summarise, messages=70)
    store.transition(session.id, AgentState.PROCESSING, "looking up", progress=True)
    before, history_before = store.load(session.id), store.history(session.id)

    redis_conn.flushdb()  # Redis restarted without persistence, or someone flushed it
    after = store.load(session.id)

    assert after.source == "rebuilt"
    for field in ("messages", "state", "collected_info", "summaries", "transitions", "last_seq", "version",
                  "created_at", "customer_id"):  # fmt: skip
        assert getattr(after, field) == getattr(before, field), field
    history_after = store.history(session.id)
    assert [(e.role, e.content) for e in history_after] == [(e.role, e.content) for e in history_before]
    assert [e.tokens for e in history_after] == [e.tokens for e in history_before]

    store.append(session.id, entry(Role.USER, "还有一个问题"))  # the next turn carries on
    assert store.load(session.id).last_seq == 71


def test_a_turns_load_reads_only_the_messages_the_summaries_do_not_cover(store, customer, summarise, redis_conn):
    session = store.start(customer.pk)
    play_turns(store, session.id, summarise, messages=70)  # 1-40 summarised, 41-70 verbatim
    full = store.load(session.id, recent=store.max_messages)

    loaded = store.load(session.id, recent=store.max_messages, since_summary=True)

    assert [m.seq for m in loaded.messages] == list(range(41, 71))
    assert loaded.summaries == full.summaries and loaded.last_seq == full.last_seq == 70
    assert store.history_of(loaded) == store.history_of(full)
    assert len(store.load(session.id, recent=10, since_summary=True).messages) == 10  # still at most ``recent``

    # A hot copy written before the hash kept its summarised point reads every recent message, as before.
    redis_conn.hdel(f"stm:{{{session.id}}}", "covered")
    older = store.load(session.id, recent=store.max_messages, since_summary=True)
    assert [m.seq for m in older.messages] == list(range(1, 71))
    assert store.history_of(older) == store.history_of(full)
    # A rebuilt copy knows it again.
    store.rebuild(session.id)
    assert len(store.load(session.id, recent=store.max_messages, since_summary=True).messages) == 30
