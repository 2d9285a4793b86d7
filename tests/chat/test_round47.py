"""Red team round 47 (session 31): a part of the money said as a share of the price (a discount "打八折", "九成",
"80%") was no part, and the whole order's refund was proposed."""

from __future__ import annotations

import pytest

from chat.agent import run_turn
from chat.answers import asks_for_part, in_simplified
from chat.models import PendingAction, Refund
from tests.chat.demo_chat import demo_customer

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.mark.parametrize(
    ("who", "ask", "order"),
    [
        ("li", "瑜伽垫0902退款，打八折退给我就行", "ORD-2025-0902"),
        ("li", "瑜伽垫退款，按原价的九成退", "ORD-2025-0902"),
        ("bob", "refund 80% of the tent order please", "ORD-2025-0870"),
    ],
)
def test_a_share_of_the_price_proposes_no_whole_refund(who, ask, order):
    user, conversation = demo_customer(who)

    reply = run_turn(user.pk, conversation, ask).reply
    run_turn(user.pk, conversation, "yes" if who == "bob" else "确认")

    assert not PendingAction.objects.filter(customer=user, status="pending").exists(), reply
    assert not Refund.objects.filter(order__number=order).exists(), reply


@pytest.mark.parametrize(
    ("text", "part"),
    [
        ("打八折退给我就行", True),
        ("按七五折退", True),
        ("打個對折", True),
        ("按原价的九成退", True),
        ("退百分之三十", True),
        ("refund 80% of it", True),
        ("give me 25 percent back", True),
        # never a part: the whole, "probably", 100%, folding
        ("我100%确定要全退", False),
        ("八成是坏了，全部退吧", False),
        ("折叠桌全退", False),
        ("退款已经完成了吗", False),
    ],
)
def test_shares_of_the_price_read_as_parts(text, part):
    assert asks_for_part(in_simplified(text), "129") is part
