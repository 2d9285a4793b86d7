"""The chat socket's group messages travel through the Redis channel layer, also after a quiet spell.

These checks ran on a public echo route once; the chat route is the only websocket route now, and any
other path is refused at the handshake.
"""

import asyncio

import pytest
from channels.layers import get_channel_layer

from tests.chat.wsclient import ChatSocket, Communicator, run
from tests.factories import CustomerFactory

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def customer():
    return CustomerFactory(
        username="layer", password="pw-layer", profile__display_name="Layer", profile__language="zh-hans"
    )


async def _staff_says(conversation_id: str, text: str) -> None:
    await get_channel_layer().group_send(
        f"conversation.{conversation_id}", {"type": "staff.message", "text": text, "staff_name": "Ann"}
    )


def test_a_group_message_reaches_the_socket_through_redis(customer):
    async def scenario():
        socket = ChatSocket(customer)
        await socket.connect()
        await _staff_says(socket.history["conversation_id"], "你好")
        frame = await socket.receive(timeout=5)
        await socket.close()
        return frame

    assert run(scenario()) == {"type": "staff_message", "text": "你好", "staff_name": "Ann"}


def test_a_socket_idle_longer_than_redis_py_default_timeout_still_gets_group_messages(customer):
    """redis-py 8 defaults socket_timeout to 5 s; the layer must survive a quiet socket."""

    async def scenario():
        socket = ChatSocket(customer)
        await socket.connect()
        conversation = socket.history["conversation_id"]
        await _staff_says(conversation, "before")
        first = await socket.receive(timeout=5)
        await asyncio.sleep(10.5)
        await _staff_says(conversation, "after")
        second = await socket.receive(timeout=5)
        await socket.close()
        return first["text"], second["text"]

    assert run(scenario()) == ("before", "after")


def test_a_foreign_origin_is_refused(customer):
    async def scenario():
        socket = ChatSocket(customer, origin=b"http://evil.example")
        return await socket.connect()

    assert run(scenario()) is False


@pytest.mark.parametrize("path", ["/ws/echo/", "/ws/", "/ws/chat/extra/"])
def test_no_other_websocket_path_is_served(path):
    from agentsite.asgi import application

    async def scenario():
        communicator = Communicator(application, path, headers=[(b"origin", b"http://localhost")])
        connected, _ = await communicator.connect(timeout=5)
        return connected

    assert run(scenario()) is False
