"""Red team round 44 (session 30): with a change waiting, a question about what waits beside another about a thing
got another order's record; a request for what the record already holds left the opposite change waiting for a
yes; a part asked in Chinese numerals with a never-mind was dropped without a word on the part."""

from __future__ import annotations

import pytest

from chat.agent import run_turn
from chat.answers import asks_for_part, asks_only_what_waits, in_simplified
from chat.models import CustomerProfile, PendingAction, Refund
from tests.chat.demo_chat import demo_customer

pytestmark = pytest.mark.django_db(transaction=True)


def test_what_waits_beside_a_thing_asked_after_answers_the_things_own_order():
    """li got "订单ORD-2025-0902当前状态…订单ORD-2025-0850的物流信息：状态：已退款" for her running shoes (0901)."""
    user, conversation = demo_customer("li")
    run_turn(user.pk, conversation, "那把瑜伽垫退了吧")

    reply = run_turn(user.pk, conversation, "我有什么在等确认吗？顺便跑步鞋到哪了").reply

    assert "ORD-2025-0901" in reply and "0850" not in reply, reply
    assert reply.rstrip().endswith("回复“取消”放弃。）") and "瑜伽垫" in reply.splitlines()[-1], reply


@pytest.mark.parametrize(
    ("who", "mute", "back_on", "yes", "dropped"),
    [
        ("chen", "將通知閂咗佢", "唔該將通知重新開返", "確認", "已取消，没有任何改动"),
        ("bob", "mute my notifications", "actually turn them back on", "yes", "is dropped; nothing was changed"),
        ("wang", "把通知关掉", "算了，还是把通知打开吧", "确认", "已取消"),
    ],
)
def test_asking_for_what_the_record_holds_drops_the_opposite_change(who, mute, back_on, yes, dropped):
    """chen's "please turn notifications back on" while a mute waited was noted as a wish, the mute kept waiting,
    and "確認" muted them: the customer's last word undone by a yes."""
    user, conversation = demo_customer(who)
    run_turn(user.pk, conversation, mute)

    reply = run_turn(user.pk, conversation, back_on).reply
    after = run_turn(user.pk, conversation, yes).reply

    assert dropped in reply, reply
    assert CustomerProfile.objects.get(user=user).notification_preference == "on", after
    assert not PendingAction.objects.filter(customer=user, status="pending").exists(), after


@pytest.mark.parametrize(
    ("who", "order", "never_mind", "yes"),
    [
        ("wang", "退ORD-2025-0790", "算了，键盘只退两百块就行", "确认"),
        ("bob", "refund 0870", "never mind, just refund $100 of it", "yes"),
    ],
)
def test_a_part_asked_with_a_never_mind_is_told_to_a_colleague(who, order, never_mind, yes):
    user, conversation = demo_customer(who)
    run_turn(user.pk, conversation, order)

    reply = run_turn(user.pk, conversation, never_mind).reply
    run_turn(user.pk, conversation, yes)

    assert "部分退款" in reply or "partial refund" in reply, reply
    assert not Refund.objects.filter(order__customer=user, order__number__endswith=order[-4:]).exists(), reply


@pytest.mark.parametrize(
    ("text", "part"),
    [
        ("只退两百块就行", True),
        ("只退二百五", True),
        ("退三百就好", True),
        ("全部退", False),
        ("十一月买的键盘退了吧", False),
    ],
)
def test_amounts_in_chinese_numerals(text, part):
    assert asks_for_part(in_simplified(text), "459.00") is part


@pytest.mark.parametrize("text", ["cheers, and what's pending for me?", "多谢，顺便问下有冇咩嘢等紧我确认？"])
def test_what_waits_after_thanks_is_what_waits_alone(text):
    assert asks_only_what_waits(in_simplified(text)), text
