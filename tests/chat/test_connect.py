"""Opening the chat socket: accepted first, then authenticated and loaded in the connect pool."""

import asyncio
import json

import pytest
from channels.testing import WebsocketCommunicator
from django.db import OperationalError

from agentsite.asgi import application
from chat import conversations
from chat.consumers import CLOSE_LOGGED_OUT, CLOSE_TRY_AGAIN_LATER
from tests.chat.wsclient import ChatSocket, run, session_cookie
from tests.factories import CustomerFactory

pytestmark = pytest.mark.django_db(transaction=True)


def customer(name: str):
    return CustomerFactory(username=name, password=f"pw-{name}")


async def first_outputs(cookie: bytes, count: int) -> list[dict]:
    """Open a socket with ``cookie``; return what the server sent first (``count`` messages)."""
    communicator = WebsocketCommunicator(
        application, "/ws/chat/", headers=[(b"origin", b"http://localhost"), (b"cookie", cookie)]
    )
    connected, _ = await communicator.connect(timeout=10)
    assert connected  # accepted before anything is looked up
    outputs = [await communicator.receive_output(timeout=10) for _ in range(count)]
    await communicator.wait()
    return outputs


def test_many_sockets_opened_at_once_all_get_their_own_history():
    users = [customer(f"burst{i}") for i in range(40)]
    sockets = [ChatSocket(user) for user in users]

    async def scenario():
        opened = await asyncio.gather(*(s.connect() for s in sockets))
        for s in sockets:
            await s.close()
        return opened

    assert run(scenario()) == [True] * 40
    assert all(s.history["type"] == "history" and s.history["messages"] == [] for s in sockets)
    assert len({s.history["conversation_id"] for s in sockets}) == 40


@pytest.mark.parametrize("ended_by", ["logout", "password_change", "deactivation"])
def test_a_session_that_no_longer_logs_anyone_in_is_accepted_then_closed_with_4401(ended_by):
    from django.contrib.sessions.models import Session

    from agentsite.sessions import SessionStore

    user = customer("gone")
    cookie = session_cookie(user)
    if ended_by == "logout":  # through the session engine, as a logout does: it keeps a copy in the cache
        for key in Session.objects.values_list("session_key", flat=True):
            SessionStore(key).delete()
    elif ended_by == "password_change":
        user.set_password("a new one")
        user.save()
    else:
        user.is_active = False
        user.save()

    (output,) = run(first_outputs(cookie, 1))

    assert output == {"type": "websocket.close", "code": CLOSE_LOGGED_OUT}


def test_a_socket_not_opened_in_time_is_told_to_try_again_later(settings, monkeypatch):
    settings.AGENT_CONNECT_TIMEOUT_SECONDS = 0.2
    real = conversations.open_socket

    def slow(*args, **kwargs):
        import time

        time.sleep(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(conversations, "open_socket", slow)
    cookie = session_cookie(customer("waits"))

    frame, close = run(first_outputs(cookie, 2))

    assert json.loads(frame["text"])["code"] == "busy"
    assert close["type"] == "websocket.close" and close["code"] == CLOSE_TRY_AGAIN_LATER


def test_a_socket_opened_while_the_database_is_down_is_told_to_try_again_later(monkeypatch):
    def down(*args, **kwargs):
        raise OperationalError("connection refused")

    cookie = session_cookie(customer("early"))
    monkeypatch.setattr(conversations, "open_socket", down)

    frame, close = run(first_outputs(cookie, 2))

    assert json.loads(frame["text"])["code"] == "unavailable"
    assert close["type"] == "websocket.close" and close["code"] == CLOSE_TRY_AGAIN_LATER
