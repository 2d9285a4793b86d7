"""One fitting order is the order: a refund without a number is for the one delivered order, a parcel to
track is the one on its way; with several the agent asks which, naming them. Through the websocket."""

from __future__ import annotations

import itertools
from datetime import timedelta

import pytest

from agentsite import clock
from chat.models import PendingAction
from tests.chat.wsclient import ChatSocket, run
from tests.factories import CustomerFactory, OrderFactory

pytestmark = pytest.mark.django_db(transaction=True)
_numbers = itertools.count(1)


def _customer(lang: str, *statuses: str):
    language = "en" if lang == "en" else "zh-hans"
    user = CustomerFactory(
        username=f"fit{next(_numbers)}", password="x", profile__display_name="Fit", profile__language=language
    )
    numbers = []
    for days, status in enumerate(statuses, start=1):
        number = f"ORD-2026-{next(_numbers):04d}"
        OrderFactory(customer=user, number=number, status=status, placed_at=clock.now() - timedelta(days=days))
        numbers.append(number)
    return user, numbers


def _say(user, *texts):
    async def talk():
        socket = ChatSocket(user)
        assert await socket.connect()
        turns = [await socket.say(text) for text in texts]
        conversation = socket.history["conversation_id"]
        await socket.close()
        return turns, conversation

    return run(talk())


BROKEN = {"en": "The item arrived broken, I want my money back", "zh": "东西到了但是坏了，我要退款"}
WHERE = {"en": "Where is my parcel?", "zh": "我的快递到哪了？"}


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_refund_without_a_number_is_for_the_one_delivered_order(lang):
    user, (delivered, _processing) = _customer(lang, "delivered", "processing")

    (turn,), conversation = _say(user, BROKEN[lang])

    assert delivered in turn.reply
    assert PendingAction.objects.get(conversation_id=conversation).arguments["order_number"] == delivered


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_with_several_fitting_orders_the_agent_asks_which_naming_them(lang):
    user, (first, second, _) = _customer(lang, "delivered", "delivered", "processing")

    (turn,), conversation = _say(user, BROKEN[lang])

    assert first in turn.reply and second in turn.reply
    assert not PendingAction.objects.filter(conversation_id=conversation).exists()


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_parcel_to_track_is_the_one_on_its_way_not_the_order_asked_about_before(lang):
    user, (delivered, shipped) = _customer(lang, "delivered", "shipped")
    status = {"en": f"What's the status of {delivered}?", "zh": f"帮我查一下订单 {delivered} 的状态"}[lang]

    (_, turn), _ = _say(user, status, WHERE[lang])

    assert shipped in turn.reply, turn.reply


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_my_parcel_after_an_order_not_shipped_yet_is_the_one_on_its_way(lang):
    user, (shipped, processing) = _customer(lang, "shipped", "processing")
    status = {"en": f"What's the status of {processing}?", "zh": f"帮我查一下订单 {processing} 的状态"}[lang]

    (_, turn), _ = _say(user, status, WHERE[lang])

    assert shipped in turn.reply and processing in turn.reply, turn.reply  # "my parcel" may mean either


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_an_order_only_memory_holds_does_not_decide_which_one_is_meant(lang):
    """Round-6 red team: "where is my order?" at a conversation's start tracked the lamps memory held (delivered,
    refund requested) while another order was on its way; "我要退款" proposed memory's order, not yet delivered."""
    from tests.factories import remember

    asking, refunding = (_customer(lang, "delivered", "shipped", "processing") for _ in range(2))
    for user, (_, _, processing) in (asking, refunding):
        remember(user, f"The customer asked about order {processing}", key="order_number", value=processing)

    (tracked,), _ = _say(asking[0], {"en": "where is my order?", "zh": "我的订单到哪了"}[lang])
    (_,), conversation = _say(refunding[0], {"en": "I want a refund", "zh": "我要退款"}[lang])

    assert asking[1][1] in tracked.reply, tracked.reply
    assert PendingAction.objects.get(conversation_id=conversation).arguments["order_number"] == refunding[1][0]
