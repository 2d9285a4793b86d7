"""Red team leftovers of session 24: a no that says which value the change should have ("no!! i said 12 Oak
Street Portland OR 97201, not the white house lol", "no, sms") cancelled the change and asked nothing; a yes taken
back for another flat ("yes — wait no, make it apt 4 not apt 3") was not understood. Each now proposes the value
given, in the waiting change's place, and changes nothing until that is confirmed."""

from __future__ import annotations

import pytest

from chat.agent import run_turn
from chat.models import CustomerProfile, PendingAction
from tests.chat.demo_chat import demo_customer

pytestmark = pytest.mark.django_db(transaction=True)

WHITE_HOUSE = {"address": "1600 Pennsylvania Ave, Washington DC 20500", "summary": "change your address"}
PHONE = {"channel": "phone", "summary": "contact you by phone from now on"}


@pytest.mark.parametrize(
    ("text", "proposal", "current", "another"),
    [
        ("no!! i said 12 Oak Street Portland OR 97201, not the white house lol", WHITE_HOUSE, None, True),
        ("no, not 742 evergreen, 12 oak st", WHITE_HOUSE, None, True),
        ("no, sms", PHONE, "email", True),
        ("不要，用微信", PHONE, "email", True),
        # a no, whatever it sets aside or however long it waits
        ("no", WHITE_HOUSE, None, False),
        ("no. not now, maybe in 2 days", WHITE_HOUSE, None, False),
        ("no, dont change it, I'll tell you the 2nd line later", WHITE_HOUSE, None, False),
        ("no, not sms", {"channel": "sms"}, "email", False),
        ("不对，是邮件吧", PHONE, "email", False),  # the channel on record: a no that keeps it
    ],
)
def test_a_no_that_gives_another_value(text, proposal, current, another):
    from chat.answers import gives_another_value

    assert gives_another_value(text, proposal, current) is another


def _waiting(user) -> PendingAction:
    return PendingAction.objects.get(customer=user, status=PendingAction.Status.PENDING)


def test_a_no_with_another_address_proposes_it_in_place_of_the_waiting_one():
    user, conversation = demo_customer("bob")
    run_turn(user.pk, conversation, "change my address to 1600 Pennsylvania Ave, Washington DC 20500")

    reply = run_turn(user.pk, conversation, "no!! i said 12 Oak Street Portland OR 97201, not the white house lol")

    assert _waiting(user).arguments["address"] == "12 Oak Street Portland OR 97201", reply.reply
    assert CustomerProfile.objects.get(user=user).default_address == "742 Evergreen Terrace, Springfield"
    run_turn(user.pk, conversation, "yes")
    assert CustomerProfile.objects.get(user=user).default_address == "12 Oak Street Portland OR 97201"


def test_a_yes_taken_back_for_another_flat_proposes_that_flat():
    user, conversation = demo_customer("bob")
    run_turn(user.pk, conversation, "change my address to 12 Oak St Apt 3, Portland OR 97201")

    reply = run_turn(user.pk, conversation, "yes — wait no, make it apt 4 not apt 3")

    assert _waiting(user).arguments["address"] == "12 Oak St Apt 4, Portland OR 97201", reply.reply
    assert CustomerProfile.objects.get(user=user).default_address == "742 Evergreen Terrace, Springfield"


@pytest.mark.parametrize(("answer", "channel"), [("no, sms", "sms"), ("nah. wechat instead", "wechat")])
def test_a_no_naming_another_channel_proposes_that_channel(answer, channel):
    user, conversation = demo_customer("alice")
    run_turn(user.pk, conversation, "switch my contact channel to phone")

    reply = run_turn(user.pk, conversation, answer)

    assert _waiting(user).arguments["channel"] == channel, reply.reply
    assert CustomerProfile.objects.get(user=user).contact_channel == "email"


def test_a_no_naming_the_channel_on_record_drops_the_change():
    user, conversation = demo_customer("wang")
    run_turn(user.pk, conversation, "联系方式改成电话")

    run_turn(user.pk, conversation, "不对，是邮件吧")

    assert not PendingAction.objects.filter(customer=user, status=PendingAction.Status.PENDING).exists()


def test_every_request_of_a_cantonese_message_is_answered():
    """ "…最貴嗰張單去到邊，同埋我想轉用短信通知" got "请提供您的订单号": where the dearest order is, then the SMS."""
    user, conversation = demo_customer("wang")

    reply = run_turn(user.pk, conversation, "最貴嗰張單去到邊，同埋我想轉用短信通知").reply

    assert "ORD-2025-0790" in reply, reply  # the keyboard, ¥459: the dearest of wang's
    assert _waiting(user).arguments["channel"] == "sms"


def test_what_this_chat_changed_and_an_orders_refund_are_both_answered():
    user, conversation = demo_customer("chen")

    reply = run_turn(user.pk, conversation, "刚才你都帮我办了什么？台灯那单退了没有？").reply

    changed, lamp = reply.find("没有做任何改动"), reply.find("ORD-2025-0943")
    assert 0 <= changed < lamp, reply  # in the order asked
    assert "没有退款记录" in reply


def test_a_refund_of_it_after_a_thing_named_proposes_that_things_refund():
    user, conversation = demo_customer("wang")

    run_turn(user.pk, conversation, "喂…保温杯点解仲未到㗎？可唔可以帮我退咗佢")

    assert _waiting(user).arguments["order_number"] == "ORD-2025-0817"


@pytest.mark.parametrize(
    ("who", "text", "said", "not_said"),
    [
        # no article covers warranties: none about something else is quoted ("still" was shared with the
        # notification article's "alerts still arrive")
        ("bob", "is the tent still under warranty?", "couldn't find", "Notification"),
        # a price difference paid back is no refund of an order ("不能" was shared with the refund article)
        ("wang", "能不能退差价 ¥30", "没有找到", "退款政策"),
        ("bob", "where are my water bottles going to be delivered? the new place right?", "742 Evergreen", "£"),
        ("alice", "refund the grinder but send the money to my paypal", "goes back to the way", "Shall I"),
    ],
)
def test_answers_say_what_was_asked(who, text, said, not_said):
    user, conversation = demo_customer(who)

    reply = run_turn(user.pk, conversation, text).reply

    assert said in reply and not_said not in reply, reply
    assert not PendingAction.objects.filter(customer=user, status=PendingAction.Status.PENDING).exists()


@pytest.mark.parametrize(
    ("who", "text", "said"),
    [
        ("wang", "耳机那单退款，今天到账就退", "没法保证"),
        ("alice", "refund the headphones, but only if the money is back in my account today", "can't promise"),
    ],
)
def test_a_refund_asked_on_a_time_is_not_requested(who, text, said):
    """No time can be promised, so no refund is proposed on one: how long a refund takes is said instead."""
    user, conversation = demo_customer(who)

    reply = run_turn(user.pk, conversation, text).reply

    assert said in reply and ("3 个工作日" in reply or "3 business days" in reply), reply
    assert not PendingAction.objects.filter(customer=user).exists()


@pytest.mark.parametrize(
    ("who", "text", "order"),
    [
        ("bob", "refund my 2nd most expensive order", "ORD-2025-0931"),  # $320, $129, $45: the $129 one
        ("bob", "refund the cheapest order that isn't already refunded", "ORD-2025-0932"),
        ("wang", "第二贵的那单帮我退了", "ORD-2025-0816"),  # ¥459, ¥299, ¥178: the ¥299 one
    ],
)
def test_an_order_picked_by_its_rank_is_the_one_proposed(who, text, order):
    user, conversation = demo_customer(who)

    reply = run_turn(user.pk, conversation, text).reply

    assert _waiting(user).arguments["order_number"] == order, reply


@pytest.mark.parametrize(
    ("who", "text", "order", "not_named"),
    [
        ("bob", "where is my oldest order", "ORD-2025-0870", "ORD-2025-0932"),
        ("bob", "what's the status of my second most recent order", "ORD-2025-0931", "ORD-2025-0932"),
        ("wang", "最早那单什么状态", "ORD-2025-0702", "ORD-2025-0816"),
    ],
)
def test_an_order_picked_by_when_it_was_placed(who, text, order, not_named):
    user, conversation = demo_customer(who)

    reply = run_turn(user.pk, conversation, text).reply

    assert order in reply and not_named not in reply, reply


@pytest.mark.parametrize(
    ("who", "first", "then", "order"),
    [
        ("wang", "耳机和保温杯那两单到哪了", "贵的那个帮我退了", "ORD-2025-0816"),  # not the keyboard, dearer still
        ("bob", "how are the backpack and the tent doing?", "refund the cheaper one", "ORD-2025-0931"),
    ],
)
def test_the_cheaper_or_dearer_one_is_of_the_orders_in_sight(who, first, then, order):
    user, conversation = demo_customer(who)
    said = run_turn(user.pk, conversation, first).reply
    assert said.count("ORD-2025-") == 2, said  # each thing named is answered

    reply = run_turn(user.pk, conversation, then).reply

    assert _waiting(user).arguments["order_number"] == order, reply


# Red team, session 25 (round 28, on this session's code before these fixes).


def test_a_thing_after_the_verb_is_the_order_refunded_not_the_one_spoken_of():
    """li tracked her running shoes, then "我想退瑜伽垫那单" proposed the shoes' ¥599 refund: the thing after 退 was
    not read, and the order in sight stood in for it."""
    user, conversation = demo_customer("li")
    run_turn(user.pk, conversation, "我嘅跑步鞋幾時到？")

    reply = run_turn(user.pk, conversation, "我想退瑜伽垫那单").reply

    assert _waiting(user).arguments["order_number"] == "ORD-2025-0902", reply


@pytest.mark.parametrize(
    ("who", "text", "said"),
    [
        ("wang", "耳机那单帮我退款，但只退一百五", "全额退款"),  # the ¥299 proposal ignored the ¥150
        ("wang", "耳机订单退一百五十块就行，剩下的不用退", "全额退款"),  # read as "don't refund"
        ("chen", "绿茶能退一半吗", "部分退款"),  # the refund policy only
        ("alice", "do you do partial refunds?", "partial refund needs a colleague"),
    ],
)
def test_part_of_an_orders_money_is_a_colleagues(who, text, said):
    user, conversation = demo_customer(who)

    reply = run_turn(user.pk, conversation, text).reply

    assert said in reply, reply
    assert not PendingAction.objects.filter(customer=user).exists()


@pytest.mark.parametrize(
    ("who", "messages", "channel"),
    [
        (
            "wang",
            ["把我的通知方式改成邮件吧", "不对，我说的是短信"],
            "sms",
        ),  # email is on record: nothing proposed first
        ("alice", ["Switch my notifications to email please", "no, sms"], "sms"),
        ("bob", ["contact me by email instead of text", "no, sms — sorry"], "sms"),
        ("wang", ["以后用短信联系我", "不对，还是用微信吧", "那就短信，确认"], "sms"),
    ],
)
def test_a_channel_given_again_after_a_channel_was_asked_is_proposed(who, messages, channel):
    user, conversation = demo_customer(who)
    for text in messages[:-1]:
        run_turn(user.pk, conversation, text)

    reply = run_turn(user.pk, conversation, messages[-1]).reply

    assert _waiting(user).arguments["channel"] == channel, reply
    assert CustomerProfile.objects.get(user=user).contact_channel == "email"


@pytest.mark.parametrize(
    ("who", "text", "said", "not_said"),
    [
        ("wang", "我现在的通知方式是什么？", "邮件", "开启"),  # how notices reach me: the channel
        ("bob", "how will you notify me now?", "email", "notifications are"),
        ("li", "咁退瑜伽墊嘅錢會退返去邊度？幾耐到？", "原路退回", "没有找到"),
        ("alice", "where does the refund money go?", "original payment method", "Shall I"),
    ],
)
def test_questions_answered_with_what_they_ask(who, text, said, not_said):
    user, conversation = demo_customer(who)

    reply = run_turn(user.pk, conversation, text).reply

    assert said in reply and not_said not in reply, reply
