"""Round 20's leftovers: a hurry read as a policy question, "怎么还没发" not understood, a town corrected by "X not
Y", a change made and then taken back with no value named, a change dropped and then wanted after all, and "什么改了
什么没改" not understood.
"""

from __future__ import annotations

import pytest

from chat.agent import run_turn
from chat.models import CustomerProfile, PendingAction
from tests.chat.demo_chat import demo_customer

pytestmark = pytest.mark.django_db(transaction=True)


def _waiting(user) -> list[tuple[str, dict]]:
    return [(a.tool, a.arguments) for a in PendingAction.objects.filter(customer=user, status="pending")]


def test_a_hurry_after_a_complaint_is_a_chase_not_the_refund_policy():
    user, conversation = demo_customer("wang")

    reply = run_turn(user.pk, conversation, "oh great，保温杯显示运输中都好几天了…能不能快点").reply

    assert "ORD-2025-0817" in reply and "退款政策" not in reply, reply


def test_why_it_has_not_shipped_is_its_tracking():
    user, conversation = demo_customer("wang")

    reply = run_turn(user.pk, conversation, "我那副耳机怎么还没发").reply

    assert "ORD-2025-0816" in reply and "尚未发货" in reply, reply


@pytest.mark.parametrize(
    ("username", "ask", "fix", "wanted"),
    [
        (
            "bob",
            "change my address to 5 High St, Bristol BS1 4DJ",
            "yes but make it Bath not Bristol",
            "5 High St, Bath",
        ),
        ("bob", "change my address to 5 High St, Bristol BS1 4DJ", "no, Bath not Bristol", "5 High St, Bath"),
        ("chen", "把地址改成上海市徐汇区南京东路1号", "不对，不是徐汇区，是黄浦区", "上海市黄浦区南京东路1号"),
    ],
)
def test_a_place_corrected_by_x_not_y_is_proposed_in_its_place(username, ask, fix, wanted):
    user, conversation = demo_customer(username)
    run_turn(user.pk, conversation, ask)

    reply = run_turn(user.pk, conversation, fix).reply
    run_turn(user.pk, conversation, "yes" if username == "bob" else "确认")

    assert CustomerProfile.objects.get(user=user).default_address.startswith(wanted), reply


def test_no_and_a_capital_word_is_still_a_no():
    user, conversation = demo_customer("bob")
    run_turn(user.pk, conversation, "change my address to 5 High St, Bristol BS1 4DJ")

    run_turn(user.pk, conversation, "No not Bristol")

    assert not _waiting(user)
    assert CustomerProfile.objects.get(user=user).default_address.startswith("742 Evergreen")


@pytest.mark.parametrize(
    ("username", "ask", "yes", "back", "field", "was"),
    [
        ("bob", "switch me to sms", "yes", "undo that", "contact_channel", "email"),
        ("alice", "mute my notifications", "yes", "put it back to what it was", "notification_preference", "on"),
        ("li", "把通知关了", "确认", "改回去吧", "notification_preference", "on"),
        ("li", "把地址改成上海市浦东新区世纪大道100号", "确认", "撤销刚才的修改", "default_address", "广东省深圳市"),
    ],
)
def test_a_change_taken_back_with_no_value_proposes_the_one_it_replaced(username, ask, yes, back, field, was):
    user, conversation = demo_customer(username)
    run_turn(user.pk, conversation, ask)
    run_turn(user.pk, conversation, yes)

    reply = run_turn(user.pk, conversation, back).reply
    assert not str(getattr(CustomerProfile.objects.get(user=user), field)).startswith(was), reply  # proposed only
    run_turn(user.pk, conversation, yes)

    assert str(getattr(CustomerProfile.objects.get(user=user), field)).startswith(was), reply


def test_one_orders_address_put_back_is_that_orders():
    user, conversation = demo_customer("wang")
    run_turn(user.pk, conversation, "把0816的地址改成上海市浦东新区世纪大道100号")
    run_turn(user.pk, conversation, "确认")

    run_turn(user.pk, conversation, "改回去")

    [(tool, arguments)] = _waiting(user)
    assert (tool, arguments["order_number"]) == ("update_order_address", "ORD-2025-0816")
    assert arguments["address"].startswith("浙江省杭州市")


@pytest.mark.parametrize(
    ("username", "ask", "no", "again"),
    [
        ("li", "把地址改成上海市浦东新区世纪大道100号", "不用了", "还是改吧"),
        ("li", "以后打电话联系我", "算了", "算了还是改吧"),
        ("bob", "switch me to sms", "no", "actually, on second thought do it"),
    ],
)
def test_a_change_dropped_and_wanted_after_all_is_proposed_again(username, ask, no, again):
    user, conversation = demo_customer(username)
    run_turn(user.pk, conversation, ask)
    run_turn(user.pk, conversation, no)

    reply = run_turn(user.pk, conversation, again).reply

    assert len(_waiting(user)) == 1, reply


def test_after_all_without_a_change_dropped_proposes_nothing():
    user, conversation = demo_customer("li")
    run_turn(user.pk, conversation, "0901到哪了")

    run_turn(user.pk, conversation, "还是改吧")

    assert not _waiting(user)


@pytest.mark.parametrize("text", ["所以现在什么改了什么没改？", "so what got changed and what didnt?"])
def test_what_changed_and_what_did_not(text):
    user, conversation = demo_customer("li")
    run_turn(user.pk, conversation, "把通知关了")
    run_turn(user.pk, conversation, "确认")
    run_turn(user.pk, conversation, "把地址改成上海市浦东新区世纪大道100号")
    run_turn(user.pk, conversation, "不用了")

    reply = run_turn(user.pk, conversation, text).reply

    assert ("静音" in reply or "muted" in reply) and "世纪大道" not in reply, reply
