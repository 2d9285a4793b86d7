"""What the shop promises: made by the tools that promise, kept by what the shop does, marked overdue by beat
once, reported back once when the customer comes back, and followed up by staff."""

from __future__ import annotations

import threading
from datetime import timedelta
from decimal import Decimal

import pytest
from django.contrib.auth import get_user_model
from django.db import connection

from agentsite import clock
from chat import commitments, fulfilment, privacy, shop
from chat.agent import run_turn
from chat.metrics import ChatCollector
from chat.models import Commitment, CommitmentEvent, Order, Refund
from memory.models import ConversationMessage
from memory.session import SessionStore
from tests.chat.wsclient import ChatSocket, run
from tests.factories import CustomerFactory, OrderFactory, OrderItemFactory

pytestmark = pytest.mark.django_db(transaction=True)


def customer(name: str, language: str = "en"):
    return CustomerFactory(username=name, password=f"pw-{name}", profile__language=language)


def order(user, number: str, status: str = "processing", total: str = "49.00") -> Order:
    made = OrderFactory(customer=user, number=number, status=status, total=total)
    OrderItemFactory(order=made, name="Kettle", unit_price=Decimal(total))
    return made


@pytest.mark.parametrize(
    ("language", "text"),
    [("en", "Can you chase order ORD-2031-0101? It's taking ages"), ("zh-hans", "帮我催一下订单 ORD-2031-0101")],
)
def test_asking_to_hurry_an_order_makes_one_promise_due_a_day_later(language, text):
    user = customer(f"hurry-{language}", language)
    order(user, "ORD-2031-0101")
    conversation = SessionStore().start(user.pk).id

    first = run_turn(user.pk, conversation, text)
    again = run_turn(user.pk, conversation, text)

    promise = Commitment.objects.get(customer=user)
    assert promise.kind == "expedite" and promise.status == "open" and promise.order.number == "ORD-2031-0101"
    assert abs(promise.due_at - promise.created_at - timedelta(hours=24)) < timedelta(seconds=5)
    assert promise.conversation_id == conversation and promise.message_seq == 1  # the customer's message
    assert "ORD-2031-0101" in first.reply and "ORD-2031-0101" in again.reply
    assert Commitment.objects.filter(customer=user).count() == 1  # asking twice is one promise


def test_an_order_already_shipped_is_not_chased():
    user = customer("shipped")
    order(user, "ORD-2031-0102", status="shipped")

    with pytest.raises(shop.ShopError) as refused:
        shop.request_expedite(user.pk, "ORD-2031-0102")

    assert refused.value.code == "already_shipped" and not Commitment.objects.exists()


def test_shipping_keeps_the_promise_and_the_customer_hears_of_it_once():
    user = customer("ship-me")
    made = order(user, "ORD-2031-0103")
    shop.request_expedite(user.pk, made.number)
    clock.advance(timedelta(hours=3))

    fulfilment.ship(made, "UPS", "1Z999AA10123456784", "staff:ops")

    promise = Commitment.objects.get(customer=user)
    assert promise.status == "done" and promise.outcome == "shipped" and promise.closed_by == "staff:ops"
    made.refresh_from_db()
    assert made.status == "shipped" and made.shipment.events.count() == 1

    first, tab, later = ChatSocket(user), ChatSocket(user), ChatSocket(user)

    async def visits():
        await first.connect()
        await tab.connect()  # a second tab, while the first is open
        await first.close()
        await tab.close()
        await later.connect()  # a reconnect
        reconnected = later.history
        fresh = await later.new_conversation()  # and a second visit, in a new conversation
        await later.close()
        return reconnected, fresh

    reconnected, fresh = run(visits())
    assert fresh["messages"] == []
    said = [m["text"] for m in first.history["messages"] if m["role"] == "agent"]
    assert len(said) == 1 and "ORD-2031-0103" in said[0] and "shipped" in said[0]
    assert [m["text"] for m in tab.history["messages"]] == [m["text"] for m in reconnected["messages"]] == said
    assert ConversationMessage.objects.filter(metadata__kind="report_back").count() == 1
    assert CommitmentEvent.objects.filter(kind="reported").count() == 1


def test_a_refund_is_due_business_days_after_its_return_and_closed_by_its_decision(settings):
    user = customer("refund-me", "zh-hans")
    made = order(user, "ORD-2031-0104", status="delivered")
    shop.request_refund(user.pk, made.number, "坏了")
    promise = Commitment.objects.get(customer=user, kind="refund")
    assert promise.due_at is None  # waits for the return
    friday = clock.now() + timedelta(days=(4 - clock.now().weekday()) % 7)
    clock.advance(friday - clock.now())
    refund = Refund.objects.get(order=made)

    fulfilment.record_return(refund, "staff:ops")
    promise.refresh_from_db()
    assert promise.due_at.date() == (friday + timedelta(days=2 + settings.COMMITMENT_REFUND_BUSINESS_DAYS)).date()
    assert promise.outcome == "return_received" and promise.status == "open"

    fulfilment.decide_refund(refund, True, "staff:ops")
    promise.refresh_from_db()
    made.refresh_from_db()
    assert promise.status == "done" and promise.outcome == "refund_approved" and made.status == "refunded"
    with pytest.raises(fulfilment.FulfilmentError):
        fulfilment.decide_refund(refund, False, "staff:ops")  # decided once

    socket = ChatSocket(user)
    run(socket.connect())
    said = [m["text"] for m in socket.history["messages"] if m["role"] == "agent"]
    assert len(said) == 1 and "ORD-2031-0104" in said[0] and "批准" in said[0]  # the latest outcome, in Chinese


def test_beat_marks_a_promise_overdue_once_even_when_two_beats_run_at_once():
    user = customer("late")
    due = commitments.expedite_due()
    promises = [
        commitments.make(user.pk, "expedite", due_at=due, order=order(user, f"ORD-2031-02{i:02d}"))[0] for i in range(6)
    ]
    clock.advance(timedelta(hours=25))
    marked: list[list[int]] = []

    def beat() -> None:
        try:
            marked.append(commitments.mark_overdue())
        finally:
            connection.close()

    beats = [threading.Thread(target=beat) for _ in range(2)]
    for thread in beats:
        thread.start()
    for thread in beats:
        thread.join()
    marked.append(commitments.mark_overdue())  # and a later beat finds nothing new

    assert sorted(pk for run_ in marked for pk in run_) == sorted(p.pk for p in promises)
    assert CommitmentEvent.objects.filter(kind="overdue").count() == 6
    overdue = next(m for m in ChatCollector().collect() if m.name == "agent_commitments_overdue")
    assert overdue.samples[0].value == 6


def test_staff_keep_extend_and_write_to_a_customer_whose_chat_is_open(client):
    user = customer("followed")
    shop.request_expedite(user.pk, order(user, "ORD-2031-0105").number)
    promise = Commitment.objects.get(customer=user)
    clock.advance(timedelta(hours=30))
    commitments.mark_overdue()
    staff = get_user_model().objects.create_user(username="ops", password="pw-ops", is_staff=True)
    client.force_login(staff)

    console = client.get("/staff/")
    assert "ORD-2031-0105" in console.content.decode() and "overdue" in console.content.decode()

    socket = ChatSocket(user)

    async def written_to():
        await socket.connect()  # hears it is overdue
        await asyncio_to_thread(client.post, f"/staff/promises/{promise.pk}/message/", {"text": "It leaves today."})
        frame = await socket.receive()
        await socket.close()
        return frame

    frame = run(written_to())
    assert frame == {"type": "staff_message", "text": "It leaves today.", "staff_name": "ops"}
    assert "late" in socket.history["messages"][-1]["text"]

    due = (clock.now() + timedelta(days=2)).strftime("%Y-%m-%dT%H:%M")
    client.post(f"/staff/promises/{promise.pk}/extend/", {"due_at": due})
    promise.refresh_from_db()
    assert promise.status == "open" and promise.outcome == "extended"
    again = ChatSocket(user)
    run(again.connect())
    assert "now has until" in again.history["messages"][-1]["text"]  # told next visit
    assert client.post(f"/staff/promises/{promise.pk}/extend/", {"due_at": "soon"}).status_code == 302  # said, no 500

    client.post(f"/staff/promises/{promise.pk}/done/")
    promise.refresh_from_db()
    assert promise.status == "done" and promise.closed_by == "staff:ops"


async def asyncio_to_thread(fn, *args):
    import asyncio

    def call():
        try:
            return fn(*args)
        finally:
            connection.close()

    return await asyncio.to_thread(call)


def test_the_turn_reads_promises_from_their_table_and_privacy_covers_them():
    user = customer("reader")
    shop.request_expedite(user.pk, order(user, "ORD-2031-0106").number)
    conversation = SessionStore().start(user.pk).id

    frames: list[dict] = []
    run_turn(user.pk, conversation, "hello, any news?", frames.append)

    memory = next(f for f in frames if f["type"] == "memory")
    assert memory["promises"] and "ORD-2031-0106" in memory["promises"][0]
    exported = privacy.export(user)
    assert exported["commitments"][0]["kind"] == "expedite" and exported["commitments"][0]["events"]
    erased = privacy.erase(user)
    assert erased.counts["commitments"] == 1 and not Commitment.objects.filter(customer=user).exists()


@pytest.mark.parametrize(
    ("language", "said", "not_said"), [("zh", "人工客服回复", "回电"), ("en", "reply from a colleague", "call")]
)
def test_the_handoffs_promise_reads_as_a_reply_in_this_chat_not_a_phone_call(language, said, not_said):
    """The handoff tells the customer a colleague will answer here; its promise was named "回电" / "call back"
    (noted last session)."""
    from chat.commitments import Promise, record_line

    promise = Promise(id=1, kind="callback", status="open", outcome="", order="", due_at=clock.now(), closed_at=None)

    line = record_line(promise, language)

    assert said in line and not_said not in line, line


@pytest.mark.parametrize(("language", "said"), [("zh", "暂无期限"), ("en", "no due date yet")])
def test_a_promise_with_no_due_time_says_so(language, said):
    """Red team, session 20: "What we promised: refund (ORD-2025-0932), open, due to be set"."""
    from chat.commitments import Promise, record_line

    promise = Promise(
        id=1, kind="refund", status="open", outcome="", order="ORD-2025-0932", due_at=None, closed_at=None
    )

    line = record_line(promise, language)

    assert said in line and "to be set" not in line and "期限待定" not in line, line
