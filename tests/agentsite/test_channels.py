"""A websocket round trip through the ASGI application and the Redis channel layer."""

import asyncio
import json

import pytest
from channels.testing import WebsocketCommunicator

from agentsite.asgi import application

pytestmark = pytest.mark.django_db(transaction=True)

ORIGIN = [(b"origin", b"http://localhost")]


async def _round_trip(communicator: WebsocketCommunicator, text: str) -> dict:
    await communicator.send_to(text_data=text)
    return json.loads(await communicator.receive_from(timeout=5))


def test_frame_goes_through_the_channel_layer_and_back():
    async def scenario():
        communicator = WebsocketCommunicator(application, "/ws/echo/", headers=ORIGIN)
        connected, _ = await communicator.connect()
        assert connected
        reply = await _round_trip(communicator, "你好")
        await communicator.disconnect()
        return reply

    assert asyncio.run(scenario()) == {"type": "echo", "text": "你好"}


def test_socket_idle_longer_than_redis_py_default_timeout_still_works():
    """redis-py 8 defaults socket_timeout to 5 s; the layer must survive a quiet socket."""

    async def scenario():
        communicator = WebsocketCommunicator(application, "/ws/echo/", headers=ORIGIN)
        await communicator.connect()
        first = await _round_trip(communicator, "before")
        await asyncio.sleep(10.5)
        second = await _round_trip(communicator, "after")
        await communicator.disconnect()
        return first, second

    first, second = asyncio.run(scenario())
    assert first["text"] == "before"
    assert second["text"] == "after"


def test_foreign_origin_is_refused():
    async def scenario():
        communicator = WebsocketCommunicator(application, "/ws/echo/", headers=[(b"origin", b"http://evil.example")])
        connected, _ = await communicator.connect()
        return connected

    assert asyncio.run(scenario()) is False
