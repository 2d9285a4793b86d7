"""An append reaches Redis as one MULTI/EXEC, and an interrupted one leaves no half-written session.

Observed on the wire: Redis ``MONITOR`` for the command sequence, and a connection that sends only
part of the pipeline and then drops (what a crashed process or a cut TCP stream leaves).
"""

from __future__ import annotations

import re
import threading
from datetime import UTC, datetime

import pytest
import redis
from django.conf import settings

from agentsite.settings import redis_db_url
from memory.models import Conversation, ConversationMessage
from memory.session import SessionKeys, SessionStore, observing_transitions
from memory.states import AgentState
from memory.working import Role
from tests.factories import entry
from tests.memory.probes import session_keys

pytestmark = pytest.mark.django_db

NOW = datetime(2026, 5, 27, 9, 0, tzinfo=UTC)  # passed explicitly: no clock read shows up on the wire


MONITOR_LINE = re.compile(r"^[\d.]+ \[(\d+) (.*?)\] (.*)$", re.S)
HANDSHAKE = {"SELECT", "CLIENT", "HELLO", "AUTH"}  # a new pooled connection says these first
MONITOR_ARG = re.compile(r'"((?:[^"\\]|\\.)*)"')


def monitored(redis_conn, action) -> list[list[str]]:
    """Run ``action`` and return the commands Redis received on the cache database meanwhile."""
    seen: list[list[str]] = []
    sentinel = "monitor-done"
    with redis_conn.monitor() as monitor:

        def listen() -> None:
            while True:
                line = monitor.connection.read_response().decode(errors="replace")
                db, _client, command = MONITOR_LINE.match(line).groups()
                args = MONITOR_ARG.findall(command)
                if args[-1] == sentinel:
                    return
                if int(db) == settings.REDIS_DB_CACHE and args[0].upper() not in HANDSHAKE:
                    seen.append(args)

        listener = threading.Thread(target=listen)
        listener.start()
        action()
        redis_conn.echo(sentinel)
        listener.join(10)
    return seen


def test_one_append_is_one_multi_exec(store, customer, redis_conn):
    session = store.start(customer.pk)
    store.append(session.id, entry(Role.USER, "hello"), now=NOW)
    keys = SessionKeys.of(session.id)

    message = entry(Role.USER, "where is ORD-2025-0816?")
    commands = monitored(redis_conn, lambda: store.append(session.id, message, now=NOW))

    names = [c[0].upper() for c in commands]
    assert names == ["MULTI", "HGET", "HSET", "RPUSH", "LTRIM", "EXPIRE", "EXPIRE", "EXPIRE", "EXPIRE", "EXEC"]
    assert commands[3][1] == keys.messages and commands[4][1:] == [keys.messages, "-200", "-1"]
    assert sorted(c[1] for c in commands[5:9]) == sorted(keys.all())
    assert all(c[2] == str(store.ttl_seconds) for c in commands[5:9])


def test_one_transition_is_one_multi_exec(store, customer, redis_conn):
    session = store.start(customer.pk)

    commands = monitored(redis_conn, lambda: store.transition(session.id, AgentState.COLLECTING_INFO, "q", now=NOW))

    names = [c[0].upper() for c in commands]
    assert names == ["MULTI", "HGET", "HSET", "RPUSH", "LTRIM", "EXPIRE", "EXPIRE", "EXPIRE", "EXPIRE", "EXEC"]


def test_a_rebuild_is_one_multi_exec(store, customer, redis_conn):
    session = store.start(customer.pk)
    store.append(session.id, entry(Role.USER, "hello"), now=NOW)
    redis_conn.flushdb()

    commands = monitored(redis_conn, lambda: store.load(session.id))

    names = [c[0].upper() for c in commands]
    rebuild = names[names.index("DEL") - 1 :]
    assert rebuild[0] == "MULTI" and rebuild[-1] == "EXEC"
    assert set(rebuild[1:-1]) == {"DEL", "HSET", "RPUSH", "EXPIRE"}


class CuttingConnection(redis.Connection):
    """A connection that sends only the first ``cut`` bytes of the next MULTI pipeline, then drops."""

    cut: int | None = None
    sent: bytes = b""

    def send_packed_command(self, command, check_health=True):
        payload = b"".join(command) if isinstance(command, list) else command
        if CuttingConnection.cut is not None and payload.startswith(b"*1\r\n$5\r\nMULTI\r\n"):
            cut, CuttingConnection.cut = CuttingConnection.cut, None
            CuttingConnection.sent = payload
            if not self._sock:
                self.connect()
            self._sock.sendall(payload[:cut])
            self.disconnect()
            raise redis.ConnectionError(f"test cut the stream after {cut} of {len(payload)} bytes")
        return super().send_packed_command(command, check_health)


def command_boundaries(payload: bytes) -> list[int]:
    """Return the byte offsets at which each RESP command of ``payload`` ends."""
    ends, pos = [], 0
    while pos < len(payload):
        header_end = payload.index(b"\r\n", pos)
        count = int(payload[pos + 1 : header_end])
        pos = header_end + 2
        for _ in range(count):
            length_end = payload.index(b"\r\n", pos)
            pos = length_end + 2 + int(payload[pos + 1 : length_end]) + 2
        ends.append(pos)
    return ends


@pytest.fixture
def cutting_store(customer):
    client = redis.Redis.from_url(
        redis_db_url(settings.REDIS_URL, settings.REDIS_DB_CACHE), connection_class=CuttingConnection, retry=None
    )
    yield SessionStore(client, max_messages=20, redis_retry_after=0)
    CuttingConnection.cut = None
    client.close()


def invariants(redis_conn, cap: int) -> None:
    for key in session_keys(redis_conn):
        assert redis_conn.ttl(key) > 0, f"{key!r} has no TTL"
        if key.endswith(b":msgs"):
            assert redis_conn.llen(key) <= cap


def test_an_append_cut_at_any_point_leaves_redis_consistent(cutting_store, customer, redis_conn):
    store = cutting_store
    session = store.start(customer.pk)
    for i in range(20):
        store.append(session.id, entry(Role.USER, f"filling {i}"), now=NOW)  # the list is at its cap
    keys = SessionKeys.of(session.id)
    CuttingConnection.cut = 10**9  # measure the full pipeline once (sent whole, then dropped)
    store.append(session.id, entry(Role.USER, "measure"), now=NOW)
    boundaries = command_boundaries(CuttingConnection.sent)
    assert len(boundaries) == 10  # MULTI, HGET, HSET, RPUSH, LTRIM, 4 x EXPIRE, EXEC
    store.rebuild(session.id)

    cuts = sorted({1, *boundaries[:-1], *(b - 3 for b in boundaries)})
    for cut in cuts:
        before = (redis_conn.lrange(keys.messages, 0, -1), redis_conn.hget(keys.hash, "version"))
        CuttingConnection.cut = cut
        stored = store.append(session.id, entry(Role.USER, f"cut at {cut}"), now=NOW)

        # PostgreSQL accepted it; Redis either has none of it or all of it, never a part.
        assert ConversationMessage.objects.filter(conversation_id=session.id, seq=stored.seq).exists()
        assert (redis_conn.lrange(keys.messages, 0, -1), redis_conn.hget(keys.hash, "version")) == before, cut
        invariants(redis_conn, cap=20)

        store.append(session.id, entry(Role.ASSISTANT, f"after cut {cut}"), now=NOW)  # notices and repairs
        hot = store.load(session.id, recent=20)
        assert [m.content for m in hot.messages][-2:] == [f"cut at {cut}", f"after cut {cut}"]
        invariants(redis_conn, cap=20)


def test_without_multi_the_same_cut_leaves_a_key_without_ttl(redis_conn):
    """The same commands sent as separate round trips (no MULTI), cut the same way, break the invariant."""
    key = "stm:{control}:msgs"
    commands = [["RPUSH", key, "m"], ["LTRIM", key, "-20", "-1"], ["EXPIRE", key, "86400"]]
    conn = CuttingConnection(**redis_conn.connection_pool.connection_kwargs)
    payload = conn.pack_commands(commands)
    first = command_boundaries(b"".join(payload))[0]
    conn.connect()
    conn._sock.sendall(b"".join(payload)[:first])  # the process dies after the first round trip
    conn.disconnect()

    assert redis_conn.llen(key) == 1 and redis_conn.ttl(key) == -1
    redis_conn.delete(key)


def test_a_pipeline_that_raises_before_exec_writes_nothing(customer, redis_conn, monkeypatch):
    store = SessionStore(redis_conn, redis_retry_after=0)
    session = store.start(customer.pk)
    store.append(session.id, entry(Role.USER, "hello"), now=NOW)
    keys = SessionKeys.of(session.id)
    before = {k: redis_conn.dump(k) for k in keys.all()}

    def explode(*args, **kwargs):
        raise redis.ConnectionError("connection lost while queueing commands")

    with monkeypatch.context() as patch:
        patch.setattr(redis.client.Pipeline, "ltrim", explode)
        stored = store.append(session.id, entry(Role.USER, "accepted while Redis failed"), now=NOW)

    assert ConversationMessage.objects.filter(conversation_id=session.id, seq=stored.seq).exists()
    assert {k: redis_conn.dump(k) for k in keys.all()} == before
    invariants(redis_conn, cap=store.max_messages)
    store.append(session.id, entry(Role.USER, "next"), now=NOW)
    assert [m.content for m in store.load(session.id).messages] == ["hello", "accepted while Redis failed", "next"]


def test_a_batch_is_one_transaction_and_one_multi_exec(store, customer, redis_conn):
    session = store.start(customer.pk)
    version = Conversation.objects.get(pk=session.id).version

    def turn_start() -> None:
        with store.batch(session.id, now=NOW):
            store.append(session.id, entry(Role.USER, "where is ORD-2025-0816?"), now=NOW)
            store.update_info(session.id, {"order_numbers": ["ORD-2025-0816"]}, now=NOW)
            store.transition(session.id, AgentState.COLLECTING_INFO, "the customer wrote", now=NOW)

    commands = monitored(redis_conn, turn_start)

    names = [c[0].upper() for c in commands]
    assert names.count("MULTI") == 1 and names.count("EXEC") == 1 and names.count("HGET") == 1
    row = Conversation.objects.get(pk=session.id)
    assert row.version == version + 1  # one version step for three writes
    assert (row.state, row.last_seq, row.collected_info) == ("collecting_info", 1, {"order_numbers": ["ORD-2025-0816"]})
    hot = store.load(session.id)
    assert hot.source == "redis" and hot.version == row.version and hot.state == AgentState.COLLECTING_INFO
    assert [m.content for m in hot.messages] == ["where is ORD-2025-0816?"]
    assert [(t.from_state, t.to_state) for t in hot.transitions] == [(AgentState.GREETING, AgentState.COLLECTING_INFO)]


def test_a_failing_batch_leaves_both_stores_as_they_were(store, customer, redis_conn):
    session = store.start(customer.pk)
    store.append(session.id, entry(Role.USER, "hello"), now=NOW)
    keys = SessionKeys.of(session.id)
    before_redis = (redis_conn.hgetall(keys.hash), redis_conn.lrange(keys.messages, 0, -1))
    before_row = Conversation.objects.values("version", "state", "last_seq").get(pk=session.id)

    with pytest.raises(RuntimeError), store.batch(session.id, now=NOW):
        store.append(session.id, entry(Role.USER, "lost with the batch"), now=NOW)
        store.transition(session.id, AgentState.COLLECTING_INFO, "q", now=NOW)
        raise RuntimeError("the turn failed half-way")

    assert Conversation.objects.values("version", "state", "last_seq").get(pk=session.id) == before_row
    assert not ConversationMessage.objects.filter(conversation_id=session.id, content="lost with the batch").exists()
    assert (redis_conn.hgetall(keys.hash), redis_conn.lrange(keys.messages, 0, -1)) == before_redis
    assert store.append(session.id, entry(Role.USER, "next"), now=NOW).seq == 2  # no gap in the numbering


def test_a_conditional_transition_from_a_state_not_listed_records_nothing(store, customer):
    session = store.start(customer.pk)
    version = Conversation.objects.get(pk=session.id).version

    result = store.transition(session.id, AgentState.RESOLVED, "answered", only_from={AgentState.PROCESSING})

    assert result.recorded == () and result.state == AgentState.GREETING
    assert Conversation.objects.get(pk=session.id).version == version  # nothing written


def test_observed_transitions_are_the_committed_ones(store, customer):
    session = store.start(customer.pk)

    with observing_transitions() as seen:
        store.transition(session.id, AgentState.COLLECTING_INFO, "the customer wrote", now=NOW)
        with pytest.raises(RuntimeError), store.batch(session.id, now=NOW):
            store.transition(session.id, AgentState.PROCESSING, "rolled back", now=NOW)
            raise RuntimeError

    assert [(t.from_state, t.to_state) for t in seen] == [(AgentState.GREETING, AgentState.COLLECTING_INFO)]
