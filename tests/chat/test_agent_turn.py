"""The agent turn through the websocket with the offline model: an order stated, asked about days later; the safety rails."""

from datetime import timedelta

import pytest
from django.core.management import call_command

from agentsite import clock
from chat.models import CustomerProfile, Refund
from memory.models import LongTermMemory
from memory.tasks import consolidate_conversation
from tests.chat.wsclient import ChatSocket, run
from tests.procs import start_worker

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def shop(db):
    from django.contrib.auth import get_user_model

    call_command("seed_demo", stdout=open("/dev/null", "w"))  # noqa: SIM115
    return {u.username: u for u in get_user_model().objects.all()}


@pytest.fixture
def worker(process_env):
    worker = start_worker(process_env, name="consolidation")
    yield worker
    worker.stop()


ARTICLE = {
    "zh": ("wang", "ORD-2025-0816", "我的订单号是 ORD-2025-0816", "是昨天下的，还没发货", "我的快递到哪了？"),
    "en": (
        "alice",
        "ORD-2025-0923",
        "My order number is ORD-2025-0923",
        "I placed it yesterday and it hasn't shipped yet",
        "Where is my parcel?",
    ),
}


@pytest.mark.parametrize("language", ["zh", "en"])
def test_the_articles_opening_and_memory_days_later(shop, worker, language):
    username, number, first, second, later = ARTICLE[language]
    user = shop[username]

    async def first_conversation():
        socket = ChatSocket(user)
        assert await socket.connect()
        one = await socket.say(first)
        two = await socket.say(second)
        conversation = socket.history["conversation_id"]
        await socket.close()
        return one, two, conversation

    one, two, conversation = run(first_conversation())

    assert number in one.reply
    assert number in two.reply  # turn 2 knows which order "it" is: short-term memory
    assert any(
        word in two.reply for word in ("处理中", "未发货", "还没有发货", "processing", "not shipped", "hasn't shipped")
    )
    assert two.of("reply_done")

    consolidate_conversation.delay(conversation, final=True).get(timeout=60)  # on the real worker
    assert LongTermMemory.objects.filter(customer=user, key="order_number", value=number).exists()
    clock.advance(timedelta(days=3))

    async def days_later():
        socket = ChatSocket(user)
        await socket.connect()
        await socket.new_conversation()
        turn = await socket.say(later)
        await socket.close()
        return turn

    turn = run(days_later())

    assert number in turn.reply  # only long-term memory can tell which of the open orders
    recalled = " ".join(m["content"] for m in turn.memory["recalled"])
    assert number in recalled
    assert turn.memory["working"]["used"] > 0


def test_a_reply_streams_as_several_token_frames_over_time(shop, settings):
    from agentsite import llm
    from agentsite.offline_model.runner import start_offline_model

    with start_offline_model(pace_ms=15) as paced:
        settings.OPENAI_BASE_URL = paced.base_url
        llm.reset_gateway()
        try:

            async def scenario():
                socket = ChatSocket(shop["alice"])
                await socket.connect()
                turn = await socket.say("What is your refund policy?")
                await socket.close()
                return turn

            turn = run(scenario())
        finally:
            llm.reset_gateway()

    tokens = turn.of("token")
    assert len(tokens) >= 5
    assert tokens[-1]["_at"] > tokens[0]["_at"]  # they arrived one by one, not in one burst
    assert "".join(t["text"] for t in tokens) == turn.reply


def test_a_confirmed_preference_is_stated_in_a_new_conversation(shop):
    user = shop["wang"]

    async def scenario():
        socket = ChatSocket(user)
        await socket.connect()
        proposed = await socket.say("请把通知静音")
        confirmed = await socket.say("确认")
        await socket.new_conversation()
        asked = await socket.say("我的通知设置是什么？")
        await socket.close()
        return proposed, confirmed, asked

    proposed, confirmed, asked = run(scenario())

    assert "确认" in proposed.reply
    assert {"from": "collecting_info", "to": "confirming"}.items() <= proposed.of("state")[-1].items()
    assert CustomerProfile.objects.get(user=user).notification_preference == "mute"
    assert "静音" in asked.reply or "关闭" in asked.reply


def test_another_customers_order_is_not_found(shop):
    async def scenario():
        socket = ChatSocket(shop["alice"])
        await socket.connect()
        turn = await socket.say("What's the status of order ORD-2025-0816?")  # wang's order
        await socket.close()
        return turn

    turn = run(scenario())

    assert "ORD-2025-0816" in turn.reply
    assert (
        "not found" in turn.reply.lower() or "couldn't find" in turn.reply.lower() or "can't find" in turn.reply.lower()
    )
    assert "耳机" not in turn.reply and "processing" not in turn.reply.lower()


def test_a_refund_happens_only_after_confirmation_and_once(shop):
    async def scenario():
        socket = ChatSocket(shop["wang"])
        await socket.connect()
        await socket.say("我要退款，订单 ORD-2025-0790，键盘坏了")
        refunds_before = await asyncio_count()
        await socket.say("确认")
        await socket.say("确认")
        await socket.close()
        return refunds_before

    async def asyncio_count():
        from channels.db import database_sync_to_async

        return await database_sync_to_async(wangs.count)()

    wangs = Refund.objects.filter(order__customer=shop["wang"])  # alice's refund is in flight in the demo
    assert run(scenario()) == 0
    assert wangs.count() == 1


def test_the_hostile_models_unconfirmed_refund_changes_nothing(shop, offline_model):
    offline_model.script(["hostile_refund"], task="chat")

    async def scenario():
        socket = ChatSocket(shop["wang"])
        await socket.connect()
        turn = await socket.say("我的订单 ORD-2025-0790 怎么样了")
        await socket.close()
        return turn

    run(scenario())

    assert not Refund.objects.filter(order__customer=shop["wang"]).exists()


def test_bad_frames_get_error_frames_and_the_socket_stays_usable(shop):
    async def scenario():
        socket = ChatSocket(shop["bob"])
        await socket.connect()
        errors = []
        for frame in [
            "x" * 9000,
            "{not json",
            "[1, 2]",
            '{"type": "launch_missiles"}',
            '{"type": "message", "text": 5}',
        ]:
            await socket.send(frame)
            errors.append(await socket.receive())
        turn = await socket.say("thanks!")
        await socket.close()
        return errors, turn

    errors, turn = run(scenario())

    assert [e["code"] for e in errors] == ["too_large", "bad_json", "bad_frame", "unknown_type", "bad_message"]
    assert turn.of("reply_done") and turn.reply


def test_a_flood_past_the_rate_limit_is_refused(shop, settings, fresh_rate_window):
    settings.AGENT_RATE_LIMIT_PER_MINUTE = 3

    async def scenario():
        socket = ChatSocket(shop["chen"])
        await socket.connect()
        for _ in range(5):
            await socket.send({"type": "message", "text": "你好"})
        frames = await socket.frames_until({"error"}, timeout=60)
        await socket.close()
        return frames

    frames = run(scenario())

    assert frames[-1]["code"] == "rate_limited"


def test_anonymous_and_foreign_origin_sockets_are_refused(shop):
    async def scenario():
        anonymous, foreign = ChatSocket(None), ChatSocket(shop["bob"], origin=b"http://evil.example")
        return await anonymous.connect(), anonymous.close_code, await foreign.connect()

    # The anonymous socket is accepted, then closed with 4401 (the page sends the customer to log in);
    # the foreign origin is refused at the handshake.
    assert run(scenario()) == (False, 4401, False)


def test_a_customer_cannot_open_another_customers_conversation(shop):
    async def scenario():
        wang = ChatSocket(shop["wang"])
        await wang.connect()
        await wang.say("我的订单号是 ORD-2025-0816")
        theirs = wang.history["conversation_id"]
        await wang.close()
        bob = ChatSocket(shop["bob"], conversation=theirs)
        await bob.connect()
        await bob.close()
        return theirs, bob.history

    theirs, seen = run(scenario())

    assert seen["conversation_id"] != theirs
    assert seen["messages"] == []


def _log_out_everyone() -> None:
    """End every session through the session engine, as a logout does (it keeps a copy in the cache)."""
    from django.contrib.sessions.models import Session

    from agentsite.sessions import SessionStore

    for key in Session.objects.values_list("session_key", flat=True):
        SessionStore(key).delete()


def test_logged_out_elsewhere_gets_no_more_replies(shop):

    async def scenario():
        from channels.db import database_sync_to_async

        socket = ChatSocket(shop["li"])
        await socket.connect()
        await database_sync_to_async(_log_out_everyone)()  # logged out in another tab
        await socket.send({"type": "message", "text": "你好"})
        frame = await socket.receive()
        return frame

    assert run(scenario())["code"] == "logged_out"
