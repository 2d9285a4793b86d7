"""Refunds asked after as a whole beside a question about one order ("did I ask for any refund before? and has
0932 shipped?", "我以前退过款吗？0901发货了没") get both answers: every order's refunds, then that order.

Red team, session 19: the English form was read as one question about 0932 ("no refund on record for this
order"); the Chinese form answered "我不确定您指的是哪个订单" for the refunds, since its "之前"/"以前" read as
"the order from last time".
"""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command

from chat.agent import run_turn
from memory import session as short_term

pytestmark = pytest.mark.django_db(transaction=True)

BOTH = [
    ("bob", "did I ask for any refund before? and has 0932 shipped?", ["for any of your orders", "ORD-2025-0932"]),
    ("bob", "have i ever requested a refund? also how is 0931 doing", ["for any of your orders", "ORD-2025-0931"]),
    ("alice", "any refunds on my account? and where is 0924", ["ORD-2025-0880: Refunds on record", "ORD-2025-0924"]),
    ("li", "我以前退过款吗？0901发货了没", ["ORD-2025-0850", "ORD-2025-0901的物流"]),
    ("chen", "我之前是不是申请过退款？0943的地址改了没？", ["都没有退款记录", "ORD-2025-0943"]),
]


@pytest.mark.parametrize(("username", "text", "said"), BOTH)
def test_every_refund_and_the_order_are_both_answered(username, text, said):
    call_command("seed_demo", stdout=open("/dev/null", "w"))  # noqa: SIM115
    user = get_user_model().objects.get(username=username)

    reply = run_turn(user.pk, short_term.store().start(user.pk).id, text).reply

    assert all(words in reply for words in said), reply
    assert "不确定" not in reply and "not sure" not in reply, reply
