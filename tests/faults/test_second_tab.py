"""A customer's second browser tab on the same conversation: one history, turns never interleaved.

Both tabs are real websockets on the real ASGI application and Redis channel layer; they send at the
same moment, each about a different order.
"""

import asyncio
import re

import pytest

from memory.models import ConversationMessage
from tests.chat.wsclient import ChatSocket, run
from tests.factories import CustomerFactory, OrderFactory

pytestmark = pytest.mark.django_db(transaction=True)

ORDERS = ("ORD-2025-0101", "ORD-2025-0102")
ORDER = re.compile(r"ORD-\d{4}-\d{4}")


@pytest.fixture
def customer(transactional_db):
    user = CustomerFactory(username="two-tabs", profile__display_name="Two Tabs")
    for number in ORDERS:
        OrderFactory(customer=user, number=number, total="5.00")
    return user


def test_two_tabs_send_at_once_and_see_one_history_without_interleaving(customer):
    async def scenario():
        first = ChatSocket(customer)
        assert await first.connect()
        second = ChatSocket(customer, conversation=first.history["conversation_id"])
        assert await second.connect()
        assert second.history == first.history

        turns = await asyncio.gather(
            *(
                tab.say(f"What's the status of order {number}?")
                for tab, number in zip((first, second), ORDERS, strict=True)
            )
        )
        histories = [await tab.history_of(4) for tab in (first, second)]
        await first.close()
        await second.close()
        return first.history["conversation_id"], turns, histories

    conversation_id, turns, (first_sees, second_sees) = run(scenario())

    # Each tab streamed only its own turn: its reply is about its own order, never the other's.
    for turn, number in zip(turns, ORDERS, strict=True):
        assert turn.frames[-1]["type"] == "reply_done", turn.frames
        assert set(ORDER.findall(turn.reply)) == {number}, turn.reply
    # Both tabs see the same history.
    assert first_sees == second_sees
    assert len(first_sees) == 4
    assert_turns_not_interleaved(conversation_id, ORDERS)


def assert_turns_not_interleaved(conversation_id, orders) -> None:
    """In the stored conversation each question (about one of ``orders``) is followed by its own answer
    (and that turn's tool messages) before the next question starts."""
    rows = ConversationMessage.objects.filter(conversation_id=conversation_id).order_by("seq")
    turn_of: list[str] = []
    for row in rows:
        if row.role == "user":
            turn_of.append(ORDER.search(row.content).group())
        elif turn_of:
            assert set(ORDER.findall(row.content + str(row.metadata.get("tool_calls", "")))) <= {turn_of[-1]}, (
                turn_of,
                row.role,
                row.content,
            )
    assert sorted(turn_of) == sorted(orders)
