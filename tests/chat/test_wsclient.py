"""The test client itself: sockets awaited side by side must not change how the process handles connections."""

import asyncio

import pytest
from channels.db import database_sync_to_async
from django.contrib.auth import get_user_model
from django.db import connection

from tests.chat.wsclient import ChatSocket, run
from tests.factories import CustomerFactory

pytestmark = pytest.mark.django_db(transaction=True)


def _holds_a_connection() -> bool:
    return connection.connection is not None


def test_sockets_waiting_side_by_side_leave_database_sync_to_async_closing_its_connections():
    # Given two open sockets whose receives overlap and finish first-in, first-out (as in a burst):
    first = ChatSocket(CustomerFactory(username="first", password="pw-first"))
    second = ChatSocket(CustomerFactory(username="second", password="pw-second"))

    async def overlapping_receives():
        await first.connect()
        await second.connect()
        waiting_first = asyncio.create_task(first.receive())
        await asyncio.sleep(0)
        waiting_second = asyncio.create_task(second.receive())
        await asyncio.sleep(0)
        await first.send({"type": "history"})
        await waiting_first
        await second.send({"type": "history"})
        await waiting_second
        await first.close()
        await second.close()

    run(overlapping_receives())

    # When a test then queries through Channels' sync thread,
    async def query_then_look():
        await database_sync_to_async(get_user_model().objects.count)()
        return await database_sync_to_async(_holds_a_connection)()

    # then that thread closed its connection afterwards (CONN_MAX_AGE is 0 in the tests): none stays open
    # on the test database, which could then not be dropped at the end of the run.
    assert run(query_then_look()) is False
