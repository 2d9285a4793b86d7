"""Generated variations of an order stated, then asked about days later: random order numbers, phrasings, customers."""

import random
from datetime import timedelta
from decimal import Decimal

import pytest

from agentsite import clock
from memory.consolidation import consolidate
from tests.chat.wsclient import ChatSocket, run
from tests.factories import CustomerFactory, OrderFactory, ShipmentFactory, TrackingEventFactory

pytestmark = pytest.mark.django_db(transaction=True)

STATE = {
    "zh": ["我的订单号是 {n}", "订单 {n} 想问一下", "{n} 这个订单", "帮我看看订单{n}", "我有个订单，号码是 {n}"],
    "en": [
        "My order number is {n}",
        "I'm asking about order {n}",
        "Order {n}, please",
        "Can you check {n}?",
        "I have an order, it's {n}",
    ],
}
FOLLOW = {
    "zh": ["发货了吗？", "现在到哪了？", "物流怎么样了", "是前天下的，什么时候能到？"],
    "en": [
        "Has it shipped?",
        "Where is it now?",
        "What's the delivery status?",
        "I ordered it two days ago, when will it arrive?",
    ],
}
LATER = {
    "zh": ["我的快递到哪了？", "包裹现在在哪里？", "上次那个订单物流怎么样了？"],
    "en": ["Where is my parcel?", "Where's my package now?", "How is the shipment from last time doing?"],
}


def make_customer(rng: random.Random, language: str):
    user = CustomerFactory(
        username=f"gen{rng.randrange(10**9)}", password="x", profile__language="zh-hans" if language == "zh" else "en"
    )
    numbers = [f"ORD-{rng.choice([2024, 2025])}-{n:04d}" for n in rng.sample(range(1000, 9999), 3)]
    for index, number in enumerate(numbers):
        order = OrderFactory(
            customer=user,
            number=number,
            status="shipped",
            total=Decimal("10.00"),
            placed_at=clock.now() - timedelta(days=index + 1),
        )
        shipment = ShipmentFactory(order=order, carrier="UPS", tracking_number=f"1Z{index}")
        TrackingEventFactory(shipment=shipment, location=f"Hub {index}", description="In transit")
    return user, rng.choice(numbers)


@pytest.mark.parametrize("seed", [1, 2, 3])
@pytest.mark.parametrize("language", ["zh", "en"])
def test_generated_variations_of_the_article_flow(language, seed):
    rng = random.Random(f"{language}{seed}")
    user, number = make_customer(rng, language)
    state, follow, later = (rng.choice(STATE[language]), rng.choice(FOLLOW[language]), rng.choice(LATER[language]))

    async def first():
        socket = ChatSocket(user)
        await socket.connect()
        await socket.say(state.format(n=number))
        turn = await socket.say(follow)
        conversation = socket.history["conversation_id"]
        await socket.close()
        return turn, conversation

    turn, conversation = run(first())
    assert number in turn.reply, (state, follow, turn.reply)

    consolidate(conversation, final=True)
    clock.advance(timedelta(days=rng.randint(2, 20)))

    async def second():
        socket = ChatSocket(user)
        await socket.connect()
        await socket.new_conversation()
        turn = await socket.say(later)
        await socket.close()
        return turn

    turn = run(second())
    assert number in turn.reply, (later, turn.frames)
