"""Secrets a customer types reach the model in their own turn and nowhere else: not a log line, a row,
a Redis key, a memory, an event, a handoff packet, nor any later model request (issue 14, Privacy)."""

import io
import json
import logging

import pytest
from django.core.management import call_command
from django_redis import get_redis_connection

from agentsite.models import ModelCall
from chat.models import Handoff, PendingAction
from memory.consolidation import consolidate
from memory.models import CompressionSummary, ConversationMessage, LongTermMemory, MemoryConflict, MemoryEvent
from tests.chat.wsclient import ChatSocket, run

pytestmark = pytest.mark.django_db(transaction=True)

CARD = "4111 1111 1111 1111"
CN_ID = "11010519491231002X"
SSN = "123-45-6789"
PASSWORD = "Tr0ub4dor-Zebra"
SECRETS = (CARD, CARD.replace(" ", ""), CN_ID, SSN, PASSWORD)
SECRET_TURN = (
    f"Order ORD-2025-0923: my card number is {CARD}, my ID is {CN_ID}, SSN {SSN}, "
    f"and my password is {PASSWORD}. My birthday is March 15."
)


def leaks(text: str) -> list[str]:
    return [secret for secret in SECRETS if secret in text]


@pytest.fixture
def shop(db):
    from django.contrib.auth import get_user_model

    call_command("seed_demo", stdout=io.StringIO())
    return {u.username: u for u in get_user_model().objects.all()}


def redis_dump() -> str:
    redis = get_redis_connection("default")
    parts = []
    for key in redis.scan_iter(count=1000):
        kind = redis.type(key).decode()
        value = {
            "string": lambda k: redis.get(k),
            "list": lambda k: redis.lrange(k, 0, -1),
            "hash": lambda k: redis.hgetall(k),
        }.get(kind, lambda k: b"")(key)
        parts.append(f"{key!r} {value!r}")
    return "\n".join(parts)


def test_secrets_stay_in_their_own_turn(shop, offline_model, json_log):
    alice = shop["alice"]

    async def conversation():
        socket = ChatSocket(alice)
        assert await socket.connect()
        first = await socket.say(SECRET_TURN)
        first.requests = len(offline_model.received())
        second = await socket.say("Where is my parcel?")
        third = await socket.say("I want to talk to a human")
        conversation_id = socket.history["conversation_id"]
        await socket.close()
        return first, second, third, conversation_id

    first, second, third, conversation_id = run(conversation())
    assert first.of("reply_done") and second.of("reply_done")
    assert third.of("escalated")  # the handoff packet was built from the conversation
    requests_during_turns = offline_model.received()
    report = consolidate(conversation_id, final=True)  # extraction and summary prompts: after the turn
    requests = offline_model.received()

    # The model saw the secrets in the turn that needed them, and in no request after it.
    with_secret = [i for i, r in enumerate(requests) if leaks(json.dumps(r["messages"], ensure_ascii=False))]
    assert with_secret, "the turn that needs the secrets must receive them"
    assert max(with_secret) < first.requests
    assert all(r["task"] == "chat" for r in (requests[i] for i in with_secret))
    assert {r["task"] for r in requests[len(requests_during_turns) :]} >= {"extract", "recap"}

    # Short-term memory's durable copy and its hot copy in Redis.
    rows = ConversationMessage.objects.filter(conversation_id=conversation_id)
    stored = "\n".join(m.content + json.dumps(m.metadata, ensure_ascii=False) for m in rows)
    assert "ORD-2025-0923" in stored and "[card number removed]" in stored
    assert leaks(stored) == []
    assert leaks(redis_dump()) == []

    # Long-term memory: what consolidation learned, its events, conflicts and summaries.
    assert report.messages > 0
    memories = LongTermMemory.objects.filter(customer=alice)
    assert memories.filter(key="birthday").exists()  # consolidation did learn from that very message
    learned = "\n".join(m.content + m.value + json.dumps(m.metadata) for m in memories)
    assert leaks(learned) == []
    events = "\n".join(json.dumps([e.old, e.new], ensure_ascii=False) for e in MemoryEvent.objects.all())
    assert leaks(events) == []
    conflicts = "\n".join(c.incoming_content + c.incoming_value for c in MemoryConflict.objects.all())
    assert leaks(conflicts) == []
    assert leaks("\n".join(s.content for s in CompressionSummary.objects.all())) == []

    # Everything else kept about the conversation.
    packet = Handoff.objects.get(conversation_id=conversation_id).packet
    assert leaks(json.dumps(packet, ensure_ascii=False)) == []
    assert leaks(json.dumps(list(PendingAction.objects.values()), default=str)) == []
    assert leaks("\n".join(c.error for c in ModelCall.objects.all())) == []

    # Log lines: every one of them, at every level.
    lines = json_log.text().splitlines()
    assert any(conversation_id in line for line in lines)
    assert leaks("\n".join(lines)) == []


def test_a_log_line_carrying_a_secret_is_redacted(json_log):
    logging.getLogger("chat.anything").warning("customer wrote %s", SECRET_TURN)
    try:
        raise ValueError(f"bad input {CN_ID}")
    except ValueError:
        logging.getLogger("chat.anything").exception("failed")
    lines = json_log.lines()
    assert "[card number removed]" in lines[0]["message"] and "[password removed]" in lines[0]["message"]
    assert "ORD-2025-0923" in lines[0]["message"]  # look-alikes stay readable
    assert "[ID number removed]" in lines[1]["exception"]
    assert leaks(json_log.text()) == []
