"""Redis killed under a live chat: a daphne process on the test's own redis-server, which the test kills.

Redis holds the cache and short-term memory's hot copy, the Channels layer and the Celery broker. With
it gone the socket must stay usable, turns are served from PostgreSQL (the durable copy), nothing
accepted is lost and ``/healthz`` names Redis; when it returns, sessions are rebuilt and live pushes
work again — without restarting any process.
"""

import asyncio
import json

import pytest
import redis
from channels_redis.core import RedisChannelLayer
from django.conf import settings

from agentsite.settings import redis_db_url
from chat import conversations, handoff
from memory.models import Conversation, ConversationMessage
from memory.session import SessionKeys
from tests.chat.wsclient import END_OF_TURN
from tests.faults.chat_client import ChatClient, reply_of
from tests.procs import ProcessEnv, start_daphne, start_worker
from tests.waiting import wait_until

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]

# Timers the app would wait on are set to (near) zero so the test never waits on wall-clock time:
# the session store's "Redis is down, skip it for N s" window and the channel layer's retry pause.
DAPHNE_ENV = {
    "MEMORY_REDIS_RETRY_AFTER_SECONDS": "0",
    "CHANNEL_LAYER_RETRY_SECONDS": "0.05",
    "MEMORY_CONSOLIDATE_EVERY_MESSAGES": "3",  # the turn during the outage queues consolidation: broker down
    "CLOCK_ALLOW_OFFSET": "0",  # the test clock lives in Redis; production has no offset to read
}


def healthz(server) -> tuple[int, dict]:
    status, body = server.get("/healthz")
    return status, json.loads(body)


def push_staff_message(redis_url: str, conversation_id: str, text: str) -> None:
    """What a staff reply does: a group_send on the conversation's group, from another process."""
    layer = RedisChannelLayer(hosts=[redis_db_url(redis_url, settings.REDIS_DB_CHANNELS)])
    event = {"type": "staff.message", "text": text, "staff_name": "Ops"}
    asyncio.run(layer.group_send(f"conversation.{conversation_id}", event))


def test_redis_killed_mid_conversation_chat_goes_on_and_recovers(
    process_env, own_redis, make_chat_customer, offline_model
):
    customer = make_chat_customer("outage")
    env = ProcessEnv(process_env.database_url, own_redis.url)
    server = start_daphne(env, extra_env=DAPHNE_ENV)
    worker = start_worker(env, name="outage-worker", extra_env=DAPHNE_ENV)
    try:
        tab = ChatClient(server.port, customer)
        conversation_id = tab.conversation_id
        first = tab.say("Hello, I need some help with an order")
        assert first[-1]["type"] == "reply_done", first
        assert healthz(server)[0] == 200

        # Redis dies mid-turn: the message is accepted (stored) and the model is still thinking.
        offline_model.script([{"name": "stall", "seconds": 2}], task="chat")
        tab.send({"type": "message", "text": "Can you hear me?"})
        wait_until(
            lambda: ConversationMessage.objects.filter(conversation_id=conversation_id, content="Can you hear me?"),
            "the message is accepted",
        )
        own_redis.kill()
        mid = tab.until(END_OF_TURN)
        assert mid[-1]["type"] == "reply_done", (mid, server.log.read_text()[-3000:])
        status, body = healthz(server)
        assert status == 503 and "redis" in body["failing"], body
        assert body["services"]["database"]["status"] == "up"

        # The same socket keeps working; the turn is served from PostgreSQL and queues consolidation (broker down).
        during = tab.say("Where is my order ORD-2025-0001?")
        assert during[-1]["type"] == "reply_done", (during, server.log.read_text()[-3000:])
        assert reply_of(during)
        assert not [f for f in during if f["type"] == "error"]
        # A reconnect (a reload, a second tab) during the outage gets the whole history from PostgreSQL.
        reloaded = ChatClient(server.port, customer, conversation=conversation_id)
        texts = [m["text"] for m in reloaded.history["messages"]]
        assert texts[0] == "Hello, I need some help with an order"
        assert "Where is my order ORD-2025-0001?" in texts
        reloaded.close()

        # Nothing accepted was lost: every message is in the durable copy.
        stored = list(
            ConversationMessage.objects.filter(conversation_id=conversation_id).values_list("role", "content")
        )
        customer_lines = [content for role, content in stored if role == "user"]
        assert customer_lines == [
            "Hello, I need some help with an order",
            "Can you hear me?",
            "Where is my order ORD-2025-0001?",
        ]
        assert sum(role == "assistant" for role, _ in stored) == 3

        # Redis comes back empty. No process is restarted.
        own_redis.start()
        wait_until(lambda: healthz(server)[0] == 200, "/healthz is 200 again")
        after = tab.say("Thank you")
        assert after[-1]["type"] == "reply_done", after
        # That turn queued consolidation (one message in three); the same worker, reconnected by itself, ran it.
        wait_until(
            lambda: Conversation.objects.filter(pk=conversation_id, consolidated_seq__gt=0).exists(),
            "the worker that lived through the outage consolidates the conversation",
            timeout=120,
        )
        assert worker.alive()

        # The session was rebuilt in Redis from PostgreSQL, whole and current.
        conversation = Conversation.objects.get(pk=conversation_id)
        hot = redis.Redis.from_url(redis_db_url(own_redis.url, settings.REDIS_DB_CACHE))
        keys = SessionKeys.of(conversation_id)
        assert int(hot.hget(keys.hash, "version")) == conversation.version
        assert (
            hot.llen(keys.messages)
            == conversation.last_seq
            == ConversationMessage.objects.filter(conversation_id=conversation_id).count()
        )
        hot.close()

        # Live pushes work again on the socket that lived through the outage (its group was re-joined).
        def staff_reply_arrives() -> dict | None:
            push_staff_message(own_redis.url, conversation_id, "A person here")
            try:
                frame = tab.receive(timeout=0.5)
            except TimeoutError:
                return None
            return frame if frame["type"] == "staff_message" else None

        frame = wait_until(staff_reply_arrives, "a staff message reaches the socket", timeout=30)
        assert frame["text"] == "A person here"
        tab.close()
    finally:
        worker.kill()
        server.stop()


@pytest.mark.django_db(transaction=False)
def test_a_staff_reply_during_the_outage_is_stored_and_in_the_history_a_reconnect_gets(
    own_redis, settings, make_chat_customer, django_user_model, store
):
    layer = settings.CHANNEL_LAYERS["default"]
    host = {**layer["CONFIG"]["hosts"][0], "address": redis_db_url(own_redis.url, settings.REDIS_DB_CHANNELS)}
    settings.CHANNEL_LAYERS = {"default": {**layer, "CONFIG": {**layer["CONFIG"], "hosts": [host]}}}
    customer = make_chat_customer("waiting")
    conversation = store.start(customer.user.pk).id
    store.transition(conversation, "escalated", "the customer asked for a person")
    staff = django_user_model.objects.create_user(username="ops", first_name="Olga", is_staff=True)
    handoff.open_handoff(conversation)
    handoff.take(conversation, staff)

    own_redis.kill()  # the channel layer's Redis: no live push possible
    handoff.reply(conversation, staff, "Hello, a person here")  # does not raise

    history = conversations.history_frame(customer.user.pk, conversation)
    assert history["state"] == "human"
    assert history["messages"][-1]["role"] == "staff"
    assert history["messages"][-1]["text"] == "Hello, a person here"
    assert history["messages"][-1]["staff_name"] == "Olga"
