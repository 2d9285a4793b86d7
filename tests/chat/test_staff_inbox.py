"""The staff inbox's socket: escalations arrive live, a race to take is won once, messages and replies flow both
ways without a reload; customers and logged-out sessions are turned away."""

import asyncio
import json
from concurrent.futures import ThreadPoolExecutor

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse

from chat.models import CustomerProfile
from tests.chat.wsclient import ChatSocket, Communicator, application, run, session_cookie

pytestmark = pytest.mark.django_db(transaction=True)


class StaffSocket:
    def __init__(self, user, cookie: bytes | None = None) -> None:
        if cookie is None:
            with ThreadPoolExecutor(1) as thread:  # logging in touches the database: off the event loop
                cookie = thread.submit(session_cookie, user).result()
        headers = [(b"origin", b"http://localhost"), (b"cookie", cookie)]
        self.communicator = Communicator(application, "/ws/staff/", headers=headers)

    async def connect(self) -> dict:
        connected, _ = await self.communicator.connect(timeout=10)
        assert connected
        output = await self.communicator.receive_output(timeout=30)
        return json.loads(output["text"]) if output["type"] == "websocket.send" else output

    async def send(self, frame: dict) -> None:
        await self.communicator.send_to(text_data=json.dumps(frame))

    async def until(self, test, timeout: float = 30, skipped: list | None = None) -> dict:
        """The next frame for which ``test`` holds (earlier frames go to ``skipped``)."""
        while True:
            frame = json.loads(await self.communicator.receive_from(timeout=timeout))
            if test(frame):
                return frame
            if skipped is not None:
                skipped.append(frame)

    async def close(self) -> None:
        await self.communicator.disconnect()


@pytest.fixture
def people(db):
    users = get_user_model().objects
    customer = users.create_user("inbox-customer", password="pw")
    CustomerProfile.objects.create(user=customer, display_name="Cus", language="en")
    return {
        "customer": customer,
        "lin": users.create_user("lin", password="pw", is_staff=True),
        "mei": users.create_user("mei", password="pw", is_staff=True),
    }


def waiting(frame: dict) -> list[str]:
    return [item["conversation_id"] for item in frame.get("waiting", [])] if frame["type"] == "inbox" else []


def test_escalation_take_message_and_reply_flow_live_between_the_customer_and_staff(people):
    lin, mei, customer = StaffSocket(people["lin"]), StaffSocket(people["mei"]), ChatSocket(people["customer"])

    async def scenario():
        first = await lin.connect()
        await mei.connect()
        await customer.connect()
        conversation = customer.history["conversation_id"]
        await customer.say("I want to talk to a human, please")
        arrived = await lin.until(lambda f: conversation in waiting(f))  # no reload
        await asyncio.gather(*(s.send({"type": "take", "conversation_id": conversation}) for s in (lin, mei)))
        skipped: list[dict] = []
        taken = [await s.until(lambda f: f["type"] == "inbox" and f["taken"], skipped=skipped) for s in (lin, mei)]
        for s in (lin, mei):
            await s.send({"type": "open", "conversation_id": conversation})
            await s.until(lambda f: f["type"] == "conversation", skipped=skipped)
        refused = [f for f in skipped if f["type"] == "error"]
        holder = lin if taken[0]["taken"][0]["taken_by"] == "lin" else mei
        await customer.say("My order ORD-2031-0901 never came")
        seen = await holder.until(lambda f: f["type"] == "conversation" and "never came" in str(f["transcript"]))
        await holder.send({"type": "reply", "conversation_id": conversation, "text": "Sorry! I'm on it."})
        live = await customer.receive()
        echoed = await holder.until(lambda f: f["type"] == "conversation" and "on it" in str(f["transcript"]))
        for s in (lin, mei):
            await s.close()
        await customer.close()
        return first, arrived, taken, refused, seen, live, echoed

    first, arrived, taken, refused, seen, live, echoed = run(scenario())

    assert first["type"] == "inbox" and first["waiting"] == []
    assert arrived["waiting"][0]["customer"] == "inbox-customer" and arrived["waiting"][0]["waiting_seconds"] >= 0
    assert taken[0]["taken"] == taken[1]["taken"] and len(taken[0]["taken"]) == 1  # both views agree on one holder
    assert len(refused) == 1 and "already taken" in refused[0]["message"]  # the loser is told
    assert seen["state"] == "human" and seen["transcript"][-1]["who"] == "customer"
    assert live == {"type": "staff_message", "text": "Sorry! I'm on it.", "staff_name": echoed["taken_by"]}
    assert echoed["transcript"][-1] == {**echoed["transcript"][-1], "who": "staff", "text": "Sorry! I'm on it."}


def test_a_customer_cannot_open_the_staff_socket_and_a_logout_closes_it(people):
    intruder = StaffSocket(people["customer"])
    browser = Client()
    browser.force_login(people["lin"])
    lin = StaffSocket(people["lin"], cookie=f"sessionid={browser.cookies['sessionid'].value}".encode())

    async def scenario():
        turned_away = await intruder.connect()
        await lin.connect()
        await lin.send({"type": "open", "conversation_id": "not-a-uuid"})
        bad = await lin.until(lambda f: f["type"] == "error")
        await asyncio.to_thread(_log_out, browser)
        closed = await lin.communicator.receive_output(timeout=10)
        while closed["type"] != "websocket.close":
            closed = await lin.communicator.receive_output(timeout=10)
        return turned_away, bad, closed

    turned_away, bad, closed = run(scenario())

    assert turned_away == {"type": "websocket.close", "code": 4403}
    assert bad["code"] == "not_found"
    assert closed == {"type": "websocket.close", "code": 4401}


def _log_out(browser: Client) -> None:
    from django.db import connection

    try:
        browser.post(reverse("logout"))
    finally:
        connection.close()
