"""Short-term memory against real Redis and PostgreSQL: appends, loads, rebuilds, Redis outages."""

from __future__ import annotations

import logging
import threading

import pytest
import redis
from django.db import connection

from memory.models import Conversation, ConversationMessage
from memory.session import SessionKeys, SessionStore
from memory.states import AgentState
from memory.working import Role
from tests.factories import entry, tool_call, tool_result
from tests.memory.probes import session_keys
from tests.procs import free_port

pytestmark = pytest.mark.django_db


def test_start_opens_a_conversation_in_redis_and_postgresql(store, customer, redis_conn):
    session = store.start(customer.pk)

    row = Conversation.objects.get(pk=session.id)
    assert row.state == AgentState.GREETING and row.customer_id == customer.pk
    keys = SessionKeys.of(session.id)
    head = redis_conn.hgetall(keys.hash)
    assert head[b"customer"] == str(customer.pk).encode() and head[b"state"] == b"greeting"
    assert head[b"created"] == row.created_at.isoformat().encode()
    assert 0 < redis_conn.ttl(keys.hash) <= store.ttl_seconds


def test_append_numbers_messages_and_writes_both_copies(store, customer, redis_conn):
    session = store.start(customer.pk)

    first = store.append(session.id, entry(Role.USER, "我的订单号是 ORD-2025-0816"))
    second = store.append(session.id, entry(Role.ASSISTANT, "好的，我查一下这个订单。"))

    assert (first.seq, second.seq) == (1, 2)
    rows = list(ConversationMessage.objects.filter(conversation_id=session.id).order_by("seq"))
    assert [(r.seq, r.role, r.content) for r in rows] == [
        (1, "user", "我的订单号是 ORD-2025-0816"),
        (2, "assistant", "好的，我查一下这个订单。"),
    ]
    assert rows[0].token_count == first.tokens > 0
    loaded = store.load(session.id)
    assert loaded.source == "redis"
    assert [m.content for m in loaded.messages] == [r.content for r in rows]
    assert loaded.last_seq == 2 and loaded.version == Conversation.objects.get(pk=session.id).version


def test_tool_results_keep_the_raw_text_in_postgresql_only(store, customer, redis_conn):
    session = store.start(customer.pk)
    raw = '{"order": "ORD-2025-0816", "status": "shipped", "events": [' + ", ".join(["{}"] * 300) + "]}"
    store.append(session.id, tool_call("call_1"))
    stored = store.append(session.id, tool_result("call_1", "[summary] shipped"), raw=raw)

    row = ConversationMessage.objects.get(conversation_id=session.id, seq=stored.seq)
    assert row.metadata["raw"] == raw and row.metadata["tool_call_id"] == "call_1"
    hot = store.load(session.id).messages[-1]
    assert "raw" not in hot.metadata and hot.metadata["tool_call_id"] == "call_1"
    assert hot.to_entry().tool_call_id == "call_1"
    assert store.load(session.id).messages[0].to_entry().tool_calls[0].name == "lookup_order"


def test_load_returns_the_latest_fifty_messages_in_order(store, customer):
    session = store.start(customer.pk)
    for i in range(1, 61):
        store.append(session.id, entry(Role.USER, f"message {i}"))

    loaded = store.load(session.id)

    assert [m.seq for m in loaded.messages] == list(range(11, 61))


def test_the_redis_list_is_capped_while_postgresql_keeps_everything(customer, redis_conn):
    store = SessionStore(redis_conn, max_messages=20)
    session = store.start(customer.pk)
    for i in range(1, 31):
        store.append(session.id, entry(Role.USER, f"message {i}"))

    assert redis_conn.llen(SessionKeys.of(session.id).messages) == 20
    assert ConversationMessage.objects.filter(conversation_id=session.id).count() == 30
    assert [m.seq for m in store.load(session.id, recent=100).messages] == list(range(11, 31))


def test_every_session_key_gets_the_ttl_rolled_on_append(store, customer, redis_conn):
    session = store.start(customer.pk)
    store.transition(session.id, AgentState.COLLECTING_INFO, "customer asked about an order")
    keys = SessionKeys.of(session.id)
    for key in keys.all()[:3]:
        redis_conn.expire(key, 5)

    store.append(session.id, entry(Role.USER, "still there?"))

    for key in keys.all()[:3]:
        assert store.ttl_seconds - 5 <= redis_conn.ttl(key) <= store.ttl_seconds


def test_update_info_returns_only_new_or_changed_slots(store, customer):
    session = store.start(customer.pk)

    assert store.update_info(session.id, {"order_id": "ORD-2025-0816"}) == {"order_id"}
    assert store.update_info(session.id, {"order_id": "ORD-2025-0816"}) == frozenset()
    assert store.update_info(session.id, {"order_id": "ORD-2025-0817", "phone": "13800138000"}) == {"order_id", "phone"}
    assert dict(store.load(session.id).collected_info) == {"order_id": "ORD-2025-0817", "phone": "13800138000"}


@pytest.mark.django_db(transaction=True)
def test_concurrent_appends_never_share_a_sequence_number(customer, redis_conn):
    store = SessionStore(redis_conn)
    session = store.start(customer.pk)
    errors = []

    def worker(n: int) -> None:
        try:
            for i in range(20):
                store.append(session.id, entry(Role.USER, f"thread {n} message {i}"))
        except Exception as error:  # noqa: BLE001 - reported below
            errors.append(error)
        finally:
            connection.close()

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert not errors
    seqs = sorted(ConversationMessage.objects.filter(conversation_id=session.id).values_list("seq", flat=True))
    assert seqs == list(range(1, 161))
    hot = store.load(session.id, recent=200)
    assert [m.seq for m in hot.messages] == list(range(1, 161))  # Redis saw them in PostgreSQL's order
    assert hot.version == Conversation.objects.get(pk=session.id).version


def test_a_flushed_session_is_rebuilt_on_load(store, customer, redis_conn):
    session = store.start(customer.pk)
    store.append(session.id, entry(Role.USER, "ORD-2025-0816 还没发货"))
    store.update_info(session.id, {"order_id": "ORD-2025-0816"})
    store.transition(session.id, AgentState.COLLECTING_INFO, "order question")
    before = store.load(session.id)

    redis_conn.flushdb()
    after = store.load(session.id)

    assert after.source == "rebuilt"
    assert after.messages == before.messages
    assert after.state == before.state == AgentState.COLLECTING_INFO
    assert after.collected_info == before.collected_info
    assert after.transitions == before.transitions
    assert after.version == before.version
    assert store.load(session.id).source == "redis"


def test_an_append_to_a_lost_session_rebuilds_it_whole(store, customer, redis_conn):
    session = store.start(customer.pk)
    store.append(session.id, entry(Role.USER, "first"))
    store.transition(session.id, AgentState.COLLECTING_INFO, "order question")
    redis_conn.flushdb()

    store.append(session.id, entry(Role.ASSISTANT, "second"))

    hot = store.load(session.id)
    assert hot.source == "redis"
    assert [m.content for m in hot.messages] == ["first", "second"]
    assert hot.state == AgentState.COLLECTING_INFO and len(hot.transitions) == 1


def test_an_expired_session_is_rebuilt(store, customer, redis_conn):
    session = store.start(customer.pk)
    store.append(session.id, entry(Role.USER, "hello"))
    for key in SessionKeys.of(session.id).all():
        redis_conn.delete(key)  # what an expired TTL leaves

    assert [m.content for m in store.load(session.id).messages] == ["hello"]


def test_a_redis_copy_that_missed_a_write_is_repaired_by_the_next_write(store, customer, redis_conn):
    session = store.start(customer.pk)
    store.append(session.id, entry(Role.USER, "one"))
    down = SessionStore(redis.Redis(port=free_port(), socket_connect_timeout=0.2, retry=None))
    down.append(session.id, entry(Role.ASSISTANT, "two (Redis was away)"))

    store.append(session.id, entry(Role.USER, "three"))

    assert [m.content for m in store.load(session.id).messages] == ["one", "two (Redis was away)", "three"]


def test_with_redis_down_appends_succeed_and_loads_fall_back_to_postgresql(store, customer, caplog):
    session = store.start(customer.pk)
    store.append(session.id, entry(Role.USER, "before the outage"))
    down = SessionStore(redis.Redis(port=free_port(), socket_connect_timeout=0.2, retry=None))

    with caplog.at_level(logging.WARNING, logger="memory.session"):
        stored = down.append(session.id, entry(Role.USER, "during the outage"))
        loaded = down.load(session.id)

    assert stored.seq == 2
    assert loaded.source == "postgres"
    assert [m.content for m in loaded.messages] == ["before the outage", "during the outage"]
    assert any("Redis unavailable" in r.getMessage() for r in caplog.records)


def test_with_redis_down_a_new_conversation_still_starts(customer):
    down = SessionStore(redis.Redis(port=free_port(), socket_connect_timeout=0.2, retry=None))

    session = down.start(customer.pk)
    down.append(session.id, entry(Role.USER, "hi"))

    assert session.source == "postgres"
    assert [m.content for m in down.load(session.id).messages] == ["hi"]


def test_loading_an_unknown_conversation_raises(store):
    with pytest.raises(Conversation.DoesNotExist):
        store.load("00000000-0000-0000-0000-000000000000")


def test_no_session_key_is_left_without_a_ttl(store, customer, redis_conn):
    session = store.start(customer.pk)
    for i in range(5):
        store.append(session.id, entry(Role.USER, f"m{i}"))
    store.transition(session.id, AgentState.COLLECTING_INFO, "question")

    assert len(session_keys(redis_conn)) == 3  # no summaries yet
    assert all(redis_conn.ttl(key) > 0 for key in session_keys(redis_conn))


def test_each_hot_copy_item_is_parsed_once_and_read_again_by_later_loads(store, customer, redis_conn):
    session = store.start(customer.pk)
    store.transition(session.id, AgentState.COLLECTING_INFO, "the customer wrote")
    store.append(session.id, entry(Role.USER, "我的订单号是 ORD-2025-0816"))
    first = store.load(session.id)

    store.append(session.id, entry(Role.ASSISTANT, "好的，我查一下这个订单。"))
    second = store.load(session.id)

    # The message and the transition both loads read are the same objects, entries included ...
    assert second.messages[0] is first.messages[0] and second.transitions[0] is first.transitions[0]
    assert second.messages[0].to_entry() is first.messages[0].to_entry()
    # ... and what the second load read anew is what a store without the cache reads.
    uncached = SessionStore(redis_conn, parse_cache=0).load(session.id)
    assert uncached.messages == second.messages and uncached.transitions == second.transitions
    assert uncached.messages[0] is not second.messages[0]
    assert [m.to_entry() for m in uncached.messages] == [m.to_entry() for m in second.messages]


def test_the_parse_cache_is_bounded_and_a_rewritten_item_is_parsed_anew(customer, redis_conn):
    store = SessionStore(redis_conn, parse_cache=2)
    session = store.start(customer.pk)
    for text in ("one", "two", "three"):
        store.append(session.id, entry(Role.USER, text))
    store.load(session.id)
    assert store.hot._message.cache_info().currsize == 2

    # A copy rebuilt from PostgreSQL holds the same messages: read, they equal what was stored.
    redis_conn.delete(*SessionKeys.of(session.id).all())
    assert [m.content for m in store.load(session.id).messages] == ["one", "two", "three"]
    keys = SessionKeys.of(session.id)
    raw = redis_conn.lindex(keys.messages, 0)
    redis_conn.lset(keys.messages, 0, raw.replace(b'"one"', b'"uno"'))
    assert store.load(session.id).messages[0].content == "uno"
