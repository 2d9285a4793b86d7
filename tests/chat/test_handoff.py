"""Human takeover: escalation builds a packet, staff take over and reply live, the bot stays silent, hand back."""

import pytest
from channels.db import database_sync_to_async
from django.core.management import call_command
from django.test import Client
from django.urls import reverse

from chat import handoff
from chat.models import CustomerProfile, Handoff
from memory.models import Conversation
from tests.chat.wsclient import ChatSocket, run
from tests.factories import remember

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def shop(db):
    from django.contrib.auth import get_user_model

    call_command("seed_demo", stdout=open("/dev/null", "w"))  # noqa: SIM115
    users = {u.username: u for u in get_user_model().objects.all()}
    users["lead"] = get_user_model().objects.create_user("lead", password="pw", is_staff=True, first_name="Lin")
    users["other_lead"] = get_user_model().objects.create_user("lead2", password="pw", is_staff=True)
    return users


def test_escalation_takeover_live_reply_silence_and_hand_back(shop):
    customer, lead = shop["wang"], shop["lead"]
    remember(customer, "客户偏好顺丰快递", key="preferred_carrier", value="sf_express", confidence=0.95)

    async def scenario():
        socket = ChatSocket(customer)
        await socket.connect()
        await socket.say("我要退款，订单 ORD-2025-0790，键盘坏了")
        await socket.say("确认")
        escalated = await socket.say("我要找人工客服")
        conversation = socket.history["conversation_id"]
        item = await database_sync_to_async(Handoff.objects.get)(conversation_id=conversation)

        await database_sync_to_async(handoff.take)(conversation, lead)
        taken_state = await socket.receive()
        await database_sync_to_async(handoff.reply)(conversation, lead, "您好，我是客服小林，退款已经在处理了。")
        live = await socket.receive()
        silent = await socket.say("好的，谢谢")
        await database_sync_to_async(handoff.hand_back)(conversation, lead)
        back_state = await socket.receive()
        after = await socket.say("我的订单 ORD-2025-0817 到哪了？")
        await socket.close()
        return escalated, item, taken_state, live, silent, back_state, after

    escalated, item, taken_state, live, silent, back_state, after = run(scenario())

    # the handover ends the model's turn (it is not asked for words after it), and what streamed before it leaves
    # the page; the turn still ends with reply_done
    kinds = [f["type"] for f in escalated.frames if f["type"] != "state"]
    assert kinds[-3:] == ["reply_reset", "escalated", "reply_done"], kinds
    assert escalated.of("reply_done")[0]["message_id"] is None and not escalated.reply
    packet = item.packet
    assert "客户偏好顺丰快递" in [f["content"] for f in packet["facts"]]
    assert packet["records"]["contact_channel"] == CustomerProfile.objects.get(user=customer).contact_channel
    assert all(f["tag"] != "confirmed" for f in packet["facts"] if f["source"] != "system_record")
    assert any(p["kind"] == "refund" and "ORD-2025-0790" in p["summary"] for p in packet["open_promises"])
    assert any(t["tool"] == "escalate_to_human" for t in packet["tried"])
    refund = next(t for t in packet["tried"] if t["tool"] == "request_refund")
    assert refund["order"] == "ORD-2025-0790" and refund["outcome"].startswith("proposed")  # read, not JSON
    assert "{" not in "".join(t["outcome"] for t in packet["tried"])
    assert "退款" in packet["issue"] and "customer:" not in packet["issue"]  # a recap, not the first message
    assert "ORD-2025-0790" in [o["number"] for o in packet["orders"]]
    assert packet["states"][-1]["to"] == "escalated"
    assert (taken_state["type"], taken_state["to"]) == ("state", "human")
    assert live == {"type": "staff_message", "text": "您好，我是客服小林，退款已经在处理了。", "staff_name": "Lin"}
    assert silent.of("notice") and not silent.of("token")  # the bot says nothing while a person has it
    assert silent.frames[-1]["type"] == "reply_done" and silent.frames[-1]["message_id"] is None
    assert (back_state["to"]) == "collecting_info"
    assert "ORD-2025-0817" in after.reply  # the bot answers again


def test_two_staff_members_cannot_take_the_same_conversation(shop):
    async def scenario():
        socket = ChatSocket(shop["alice"])
        await socket.connect()
        await socket.say("I want to talk to a human, please")
        await socket.close()
        return socket.history["conversation_id"]

    conversation = run(scenario())

    handoff.take(conversation, shop["lead"])
    with pytest.raises(handoff.HandoffError, match="already taken"):
        handoff.take(conversation, shop["other_lead"])
    with pytest.raises(handoff.HandoffError):
        handoff.reply(conversation, shop["other_lead"], "hi")
    assert Conversation.objects.get(pk=conversation).state == "human"


def test_the_console_is_staff_only_and_csrf_protected(shop):
    async def scenario():
        socket = ChatSocket(shop["bob"])
        await socket.connect()
        await socket.say("Can I speak to a person?")
        await socket.close()
        return socket.history["conversation_id"]

    conversation = run(scenario())
    customer = Client()
    customer.force_login(shop["bob"])
    assert customer.get(reverse("staff-console")).status_code == 302
    assert customer.post(reverse("staff-act", args=[conversation, "take"])).status_code == 302

    staff = Client(enforce_csrf_checks=True)
    staff.force_login(shop["lead"])
    page = staff.get(reverse("staff-console")).content.decode()
    assert str(shop["bob"]) in page
    assert staff.post(reverse("staff-act", args=[conversation, "take"])).status_code == 403
    assert Handoff.objects.get(conversation_id=conversation).taken_by is None

    detail = staff.get(reverse("staff-conversation", args=[conversation]))
    assert detail.status_code == 200 and "Take over" in detail.content.decode()


def test_closing_with_a_resolution_saves_it_as_a_system_record(shop):
    async def scenario():
        socket = ChatSocket(shop["chen"])
        await socket.connect()
        await socket.say("我要找人工客服")
        await socket.close()
        return socket.history["conversation_id"]

    conversation = run(scenario())
    handoff.take(conversation, shop["lead"])

    handoff.close(conversation, shop["lead"], resolution="已为客户补发空气净化器滤网，无需退货。")

    from memory.models import LongTermMemory

    memory = LongTermMemory.objects.valid().get(customer=shop["chen"], type="experience")
    assert (memory.content, memory.source, memory.confidence) == (
        "已为客户补发空气净化器滤网，无需退货。",
        "system_record",
        1.0,
    )
    assert Conversation.objects.get(pk=conversation).state == "resolved"
    assert Handoff.objects.get(conversation_id=conversation).closed_at is not None


def test_a_loop_closed_by_the_customers_message_hands_over_without_a_reply(shop, offline_model):
    """Loop detection can escalate on the turn's first write: the turn hands over instead of answering."""
    from chat.agent import run_turn
    from memory import session as short_term
    from memory.states import AgentState

    store = short_term.store()
    customer = shop["alice"]
    conversation = store.start(customer.pk).id
    store.transition(conversation, AgentState.COLLECTING_INFO, "the customer wrote", progress=True)
    for _ in range(2):  # two round trips between the same states without progress
        store.transition(conversation, AgentState.RESOLVED, "answered")
        store.transition(conversation, AgentState.COLLECTING_INFO, "the customer wrote")
    store.transition(conversation, AgentState.RESOLVED, "answered")
    offline_model.reset()
    frames = []
    threshold, store.loop_threshold = store.loop_threshold, 2
    try:
        turn = run_turn(customer.pk, conversation, "still waiting", emit=frames.append)
    finally:
        store.loop_threshold = threshold

    assert turn.escalated and turn.reply == "" and not turn.failed
    assert Handoff.objects.filter(conversation_id=conversation, closed_at__isnull=True).exists()
    # resolved -> collecting -> escalated; nothing was streamed, the reset drops nothing
    assert [f["type"] for f in frames] == ["reply_reset", "state", "state", "escalated"]
    assert frames[2] == {"type": "state", "from": "collecting_info", "to": "escalated"}
    assert "chat" not in [r["task"] for r in offline_model.received()]  # asked for the packet's summary, not a reply
    assert Conversation.objects.get(pk=conversation).loop_flagged


def test_staff_pages_carry_the_staff_navigation_not_the_customers(client, shop):
    client.force_login(shop["lead"])

    page = client.get("/staff/").content.decode()

    assert 'href="/staff/"' in page and 'href="/admin/"' in page
    assert 'href="/memory/"' not in page and "What we remember about you" not in page


@pytest.mark.parametrize(
    ("username", "asked", "yes"),
    [
        # round-8 red team's: "Nothing is waiting for your confirmation" / "目前没有等待您确认的操作"
        ("bob", "i'd like a partial refund of $100 on ORD-2025-0870 please", "ok yes"),
        ("li", "跑步鞋还没到呢 我不想要了 能退一半钱不", "好的"),
    ],
)
def test_a_yes_to_the_offer_of_a_colleague_hands_over(shop, username, asked, yes):
    from chat.agent import run_turn
    from memory import session as short_term

    user = shop[username]
    conversation = short_term.store().start(user.pk).id
    offer = run_turn(user.pk, conversation, asked).reply
    assert "pass you to" in offer or "转接" in offer, offer

    turn = run_turn(user.pk, conversation, yes)

    assert turn.escalated, turn.reply
    assert Handoff.objects.filter(conversation_id=conversation).exists()
