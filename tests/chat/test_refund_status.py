"""How a refund stands is read from the shop's refund rows: asked after, a refund is reported (or said not
to exist), never proposed again. Through the websocket, on the real shop."""

from __future__ import annotations

import itertools
from datetime import timedelta

import pytest

from agentsite import clock
from chat.models import PendingAction, Refund
from tests.chat.wsclient import ChatSocket, run
from tests.factories import CustomerFactory, OrderFactory

pytestmark = pytest.mark.django_db(transaction=True)
_numbers = itertools.count(1)

ASKED = {
    "en": ["Has my refund for {n} been approved yet?", "any news on the refund for {n}?"],
    "zh": ["{n}的退款批了吗？", "{n}退款到底怎么样了"],
}


def _customer(lang: str, refund: str | None):
    user = CustomerFactory(
        username=f"refunded{next(_numbers)}",
        password="x",
        profile__display_name="Ref",
        profile__language="en" if lang == "en" else "zh-hans",
    )
    number = f"ORD-2026-{next(_numbers):04d}"
    order = OrderFactory(customer=user, number=number, status="delivered", placed_at=clock.now() - timedelta(days=9))
    if refund:
        Refund.objects.create(order=order, amount=order.total, reason="broken", status=refund)
    return user, number


def _ask(user, text):
    async def talk():
        socket = ChatSocket(user)
        assert await socket.connect()
        turn = await socket.say(text)
        conversation = socket.history["conversation_id"]
        await socket.close()
        return turn, conversation

    return run(talk())


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("refund", ["requested", "approved", None])
def test_asking_how_a_refund_stands_reports_the_shops_rows_and_proposes_nothing(lang, refund):
    user, number = _customer(lang, refund)
    for question in ASKED[lang]:
        turn, conversation = _ask(user, question.format(n=number))

        said = {
            "requested": {"en": "requested, being processed", "zh": "已申请，处理中"},
            "approved": {"en": "approved", "zh": "已批准"},
            None: {"en": "no refund on record", "zh": "没有退款记录"},
        }[refund][lang]
        assert number in turn.reply and said in turn.reply, turn.reply
        assert not PendingAction.objects.filter(conversation_id=conversation).exists()
        assert Refund.objects.filter(order__number=number).count() == (1 if refund else 0)
