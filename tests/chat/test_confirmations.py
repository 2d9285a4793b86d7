"""A confirmation means what it says: a change happens only on a "yes" to a proposal that is still
waiting for it. Another request puts it on hold (named in the reply), a second one lets it lapse, so does
time; a "yes" to nothing changes nothing and says so; declines in common wordings cancel. The rules are
the product's: a model that claims success changes nothing."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.core.management import call_command

from agentsite import clock
from chat.agent import run_turn
from chat.models import CustomerProfile, PendingAction, Refund
from memory import session as short_term
from memory.models import ConversationMessage

pytestmark = pytest.mark.django_db(transaction=True)

REFUND = {
    "zh": ("wang", "ORD-2025-0816", "订单 ORD-2025-0816 我要退款，因为不想要了"),
    "en": ("alice", "ORD-2025-0923", "I want a refund for ORD-2025-0923 because I changed my mind"),
}
YES = {"zh": "确认", "en": "yes"}
MOVED_ON = {
    "zh": ["退货政策是什么？", "帮我查一下订单 ORD-2025-0817 的状态", "谢谢", "你好", "我的生日是3月15日"],
    "en": [
        "What is your returns policy?",
        "What's the status of ORD-2025-0924?",
        "thanks",
        "hello",
        "My birthday is March 15",
    ],
}
ON_HOLD = {"zh": "仍在等待您确认", "en": "Still waiting for your confirmation"}
LAPSED = {"zh": "已失效", "en": "has lapsed"}
NOTHING = {"zh": "目前没有等待您确认的操作", "en": "Nothing is waiting for your confirmation"}


@pytest.fixture
def customers(db):
    from django.contrib.auth import get_user_model

    call_command("seed_demo", stdout=open("/dev/null", "w"))  # noqa: SIM115
    return {u.username: u for u in get_user_model().objects.all()}


def _proposed(customers, lang):
    username, order, ask = REFUND[lang]
    user = customers[username]
    conversation = short_term.store().start(user.pk).id
    reply = run_turn(user.pk, conversation, ask).reply
    assert PendingAction.objects.filter(conversation_id=conversation, status="pending").exists(), reply
    return user, conversation, order


def _refunds(order):
    return Refund.objects.filter(order__number=order).count()


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_every_kind_of_other_request_puts_it_on_hold_until_it_lapses_whatever_the_model_claims(
    customers, offline_model, settings, lang
):
    settings.AGENT_CONFIRM_INTERRUPTIONS = len(MOVED_ON[lang]) - 1  # every kind once, the last one too many
    user, conversation, order = _proposed(customers, lang)

    held = [run_turn(user.pk, conversation, text).reply for text in MOVED_ON[lang][:-1]]
    offline_model.script(["claim_done"], task="chat")  # the model says it's all done
    dropped = run_turn(user.pk, conversation, MOVED_ON[lang][-1]).reply
    late = run_turn(user.pk, conversation, YES[lang]).reply

    assert all(ON_HOLD[lang] in reply and order in reply for reply in held), held
    assert LAPSED[lang] in dropped
    assert NOTHING[lang] in late
    assert _refunds(order) == 0
    assert PendingAction.objects.get(conversation_id=conversation).status == "lapsed"


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_by_default_the_second_other_request_lets_it_lapse(customers, lang):
    user, conversation, order = _proposed(customers, lang)

    held = run_turn(user.pk, conversation, MOVED_ON[lang][1]).reply
    dropped = run_turn(user.pk, conversation, MOVED_ON[lang][0]).reply
    run_turn(user.pk, conversation, YES[lang])

    assert ON_HOLD[lang] in held and LAPSED[lang] in dropped and _refunds(order) == 0


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_a_new_change_that_replaces_a_waiting_one_says_so(customers, lang):
    """The customer must not think the first change still waits, or was made."""
    user, conversation, order = _proposed(customers, lang)

    reply = run_turn(user.pk, conversation, {"zh": "把通知关掉", "en": "please mute my notifications"}[lang]).reply

    dropped = {"zh": "已被这项新请求取代", "en": "was dropped for this one"}[lang]
    assert dropped in reply and order in reply.split(dropped)[0].splitlines()[-1], reply
    assert PendingAction.objects.get(conversation_id=conversation, tool="request_refund").status == "cancelled"
    run_turn(user.pk, conversation, YES[lang])
    assert _refunds(order) == 0


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_the_same_refund_asked_for_again_in_other_words_is_not_said_to_be_dropped(customers, lang):
    """Before, the reason (the customer's words) differed, and the reply said the refund "was dropped for this
    one" while proposing that very refund (round-5 red team)."""
    user, conversation, order = _proposed(customers, lang)
    again = {"zh": f"{order} 还是帮我退款吧，东西有点问题", "en": f"please refund {order}, the item is faulty"}[lang]

    reply = run_turn(user.pk, conversation, again).reply

    assert {"zh": "已被这项新请求取代", "en": "was dropped for this one"}[lang] not in reply, reply
    assert PendingAction.objects.get(conversation_id=conversation, status="pending").tool == "request_refund"


@pytest.mark.parametrize(
    ("lang", "question", "other"),
    [("zh", "ORD-2025-0817 是什么", "ORD-2025-0817"), ("en", "what is ORD-2025-0924?", "ORD-2025-0924")],
)
def test_a_question_while_a_change_waits_is_answered_not_met_with_the_proposal_again(customers, lang, question, other):
    """Read as a value for the proposal, the question got the same proposal back, and a "行" then made it."""
    user, conversation, order = _proposed(customers, lang)

    reply = run_turn(user.pk, conversation, question).reply

    assert other in reply and ON_HOLD[lang] in reply, reply
    assert {"zh": "已被这项新请求取代", "en": "was dropped for this one"}[lang] not in reply
    assert PendingAction.objects.get(conversation_id=conversation).status == "pending"


@pytest.mark.parametrize(
    ("lang", "ok"),
    [
        ("zh", "好的"),
        ("zh", "嗯嗯"),
        ("zh", "那好吧"),
        ("zh", "好嘞没问题"),
        ("zh", "OK可以的"),
        ("en", "ok"),
        ("en", "got it"),
        ("en", "alright then"),
        ("en", "sounds good"),
    ],
)
def test_an_ok_after_the_reminder_is_asked_again_not_taken_for_a_yes(customers, lang, ok):
    """The reminder came with an answer about something else: "ok" may acknowledge that answer."""
    user, conversation, order = _proposed(customers, lang)

    run_turn(user.pk, conversation, MOVED_ON[lang][0])
    asked = run_turn(user.pk, conversation, ok).reply
    assert _refunds(order) == 0 and ON_HOLD[lang] in asked and order in asked, asked

    run_turn(user.pk, conversation, YES[lang])
    assert _refunds(order) == 1


@pytest.mark.parametrize(
    ("lang", "question", "right"),
    [
        # round-7 red team's, then wordings of our own
        ("en", "is my address still 221 baker street?", "yes thats right"),
        ("en", "is my email still alice@demo-shop.example?", "yep thats correct"),
        ("en", "you have my address as 221 Baker Street, London, right?", "yes exactly"),
        ("zh", "我的地址还是文三路398号吗", "对，没错"),
        ("zh", "我的邮箱是wang@demo-shop.example吧", "是的，对的"),
    ],
)
def test_a_yes_that_says_an_answer_was_right_confirms_nothing_waiting(customers, lang, question, right):
    """The reminder came with an answer to the customer's question: "yes that's right" agrees with that answer,
    not with the refund (round-7 red team: bob's $320 refund was filed so)."""
    user, conversation, order = _proposed(customers, lang)

    run_turn(user.pk, conversation, question)
    asked = run_turn(user.pk, conversation, right).reply
    assert _refunds(order) == 0 and ON_HOLD[lang] in asked, asked

    run_turn(user.pk, conversation, YES[lang])
    assert _refunds(order) == 1


@pytest.mark.parametrize(("lang", "yes"), [("zh", "确认"), ("zh", "好的，确认退款"), ("en", "yes, refund it")])
def test_a_yes_naming_the_change_right_after_the_reminder_goes_ahead(customers, lang, yes):
    user, conversation, order = _proposed(customers, lang)

    run_turn(user.pk, conversation, MOVED_ON[lang][0])
    run_turn(user.pk, conversation, yes)

    assert _refunds(order) == 1


@pytest.mark.parametrize(
    ("username", "proposal", "between", "yes"),
    [
        # round-8 red team's: each yes answered the reply in between, and filed the refund or made the change
        ("alice", "mute notifications", "separately, can i get a partial refund of 30 on ORD-2025-0924?", "yes please"),
        ("bob", "refund the water bottles", "also i need to update my address", "yes"),
        ("alice", "switch my contact channel to sms", "oh and can you update my address too?", "yes"),
        ("wang", "帮我把通知关了", "地址也要改一下", "是的"),
    ],
)
def test_a_yes_after_talk_of_something_else_is_asked_about_the_change_alone(
    customers, username, proposal, between, yes
):
    """The reply in between asked or offered something of its own; a yes naming no change may answer that. The
    change is asked about again, alone and in full, and a yes to that question makes it."""
    user = customers[username]
    conversation = short_term.store().start(user.pk).id
    run_turn(user.pk, conversation, proposal)
    waiting = PendingAction.objects.get(conversation_id=conversation, status="pending")
    run_turn(user.pk, conversation, between)

    asked = run_turn(user.pk, conversation, yes).reply
    assert PendingAction.objects.get(pk=waiting.pk).status == "pending", asked
    assert waiting.summary.split(" (")[0].split("（")[0] in asked, asked  # named in full, amount and all

    run_turn(user.pk, conversation, yes)
    assert PendingAction.objects.get(pk=waiting.pk).status == "done"


def test_part_of_the_money_asked_instead_of_the_whole_drops_the_full_refund(customers):
    """Round 8's "could i just get 100 back instead of the whole thing?" while the tent's full refund waited: it
    stayed, and the yes after the question about it made it (round 35's defect). Part asked instead of the whole
    drops it since session 28 ("instead of the whole thing" asks no whole); the yes takes up the colleague."""
    user = customers["bob"]
    conversation = short_term.store().start(user.pk).id
    run_turn(user.pk, conversation, "refund my tent")

    reply = run_turn(user.pk, conversation, "hmm actually could i just get 100 back instead of the whole thing?").reply
    yes = run_turn(user.pk, conversation, "yes please do that")

    assert _refunds("ORD-2025-0870") == 0, reply
    assert not PendingAction.objects.filter(conversation_id=conversation, status="pending").exists(), reply
    assert yes.escalated, yes.reply


@pytest.mark.parametrize(
    ("username", "proposal", "between", "yes", "done"),
    [
        # round 18: "yes" after "(Still waiting…: Reply 'yes' to go ahead…)" was asked about again, every time
        ("alice", "can you switch my contact channel to SMS?", "hmm wait, when is 0923 shipping?", "yes", True),
        ("wang", "把通知关了吧", "0817到哪了", "是的", True),
        # money is asked about alone whatever came between
        ("li", "ORD-2025-0901 退款", "0902发货了吗", "是的", False),
        # the request between was about the same kind of change
        ("bob", "mute my notifications", "what are my notifications set to now?", "yes", False),
    ],
)
def test_a_yes_right_after_a_reminder_that_asked_nothing_else_answers_it(
    customers, username, proposal, between, yes, done
):
    user = customers[username]
    conversation = short_term.store().start(user.pk).id
    run_turn(user.pk, conversation, proposal)
    waiting = PendingAction.objects.get(conversation_id=conversation, status="pending")
    run_turn(user.pk, conversation, between)

    reply = run_turn(user.pk, conversation, yes).reply

    assert PendingAction.objects.get(pk=waiting.pk).status == ("done" if done else "pending"), reply


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_a_confirmation_after_its_time_changes_nothing(customers, settings, lang):
    user, conversation, order = _proposed(customers, lang)
    clock.advance(timedelta(minutes=settings.AGENT_CONFIRM_MINUTES + 1))

    reply = run_turn(user.pk, conversation, YES[lang]).reply

    assert NOTHING[lang] in reply and LAPSED[lang] in reply
    assert _refunds(order) == 0


@pytest.mark.parametrize(("lang", "text"), [("zh", "好的"), ("en", "yes")])
def test_a_yes_to_nothing_is_answered_honestly_even_if_the_model_would_claim_success(
    customers, offline_model, lang, text
):
    username, order, _ = REFUND[lang]
    user = customers[username]
    conversation = short_term.store().start(user.pk).id
    run_turn(user.pk, conversation, f"{order}?")  # a lookup
    offline_model.script(["claim_done"], task="chat")

    reply = run_turn(user.pk, conversation, text).reply

    assert NOTHING[lang] in reply and "Done" not in reply
    offline_model.reset()


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_a_decline_cancels_and_changes_nothing(customers, lang):
    user, conversation, order = _proposed(customers, lang)

    run_turn(user.pk, conversation, {"zh": "算了吧", "en": "never mind"}[lang])
    run_turn(user.pk, conversation, YES[lang])

    assert _refunds(order) == 0
    assert PendingAction.objects.get(conversation_id=conversation).status == "cancelled"


@pytest.mark.parametrize(
    ("lang", "answer", "answered"),
    [
        # round 12 (English reviewer): the proposal kept waiting, and the question answered with the default address
        ("en", "no, leave it. What's the delivery address on ORD-2025-0924?", "ORD-2025-0924"),
        ("zh", "不用了，ORD-2025-0817到哪了？", "SF1234567890"),
    ],
)
def test_a_no_then_a_question_drops_the_change_and_answers_the_question(customers, lang, answer, answered):
    user, conversation, order = _proposed(customers, lang)

    reply = run_turn(user.pk, conversation, answer).reply
    later = run_turn(user.pk, conversation, YES[lang]).reply

    assert PendingAction.objects.get(conversation_id=conversation).status == "cancelled"
    assert {"zh": "已取消", "en": "cancelled that"}[lang] in reply and answered in reply, reply
    assert ON_HOLD[lang] not in reply and NOTHING[lang] in later and _refunds(order) == 0


def test_a_no_then_a_request_proposes_the_change_queued_after_it(customers):
    """Round 13 (English reviewer): after "no. and list all refunds" the mute asked for with the address was never
    asked about, and the refunds were not listed."""
    user = customers["alice"]
    conversation = short_term.store().start(user.pk).id
    run_turn(
        user.pk, conversation, "change my default address to 5 Elm Street, Leeds LS1 1AA and mute my notifications"
    )

    reply = run_turn(user.pk, conversation, "no. and list all my refunds").reply
    run_turn(user.pk, conversation, "yes")

    assert "dropped that" in reply and "muted" in reply and "ORD-2025-0880" in reply, reply
    profile = CustomerProfile.objects.get(user=user)
    assert (profile.default_address, profile.notification_preference) == ("221 Baker Street, London", "mute")


def test_a_no_then_a_yes_to_the_change_queued_after_it_proposes_that_one(customers):
    user = customers["alice"]
    conversation = short_term.store().start(user.pk).id
    run_turn(user.pk, conversation, "mute my notifications and switch me to sms")

    reply = run_turn(user.pk, conversation, "no dont mute. but yes to the sms thing").reply
    run_turn(user.pk, conversation, "yes")

    profile = CustomerProfile.objects.get(user=user)
    assert "SMS" in reply and (profile.notification_preference, profile.contact_channel) == ("on", "sms"), reply


def test_a_yes_then_questions_confirms_and_answers_from_the_new_record(customers):
    """Round 13 (Chinese reviewer): "确认。现在通知和联系方式分别是啥？0901的快递到哪了" made the change but said it
    still waited for her yes (the records read before it), and never tracked 0901."""
    user = customers["li"]
    conversation = short_term.store().start(user.pk).id
    run_turn(user.pk, conversation, "把联系方式改成微信")

    reply = run_turn(user.pk, conversation, "确认。现在通知和联系方式分别是啥？0901的快递到哪了").reply

    assert CustomerProfile.objects.get(user=user).contact_channel == "wechat"
    assert "等待您确认" not in reply and "通过微信联系您" in reply and "ZT5566778899" in reply, reply
    assert reply.count("已完成") == 1, reply


def test_each_proposal_names_what_will_happen(customers):
    from chat.tools import ToolContext, run_tool

    user = customers["alice"]
    ctx = ToolContext(user.pk, short_term.store().start(user.pk).id, "en", short_term.store())
    long_address = "Flat 9, " + "Long Street " * 24 + "Leeds"

    refund = run_tool(ctx, "request_refund", {"order_number": "ORD-2025-0923", "reason": "changed my mind"})
    address = run_tool(ctx, "update_shipping_address", {"address": long_address[:300]})

    order = customers["alice"].orders.get(number="ORD-2025-0923")
    assert f"{order.total:,.2f}" in refund["summary"] and order.number in refund["summary"]
    assert (refund["action"], refund["values"]["amount"]) == ("request_refund", str(order.total))
    assert "default shipping address" in address["summary"] and "orders already placed keep" in address["summary"]
    assert long_address[:300] in address["summary"]  # the whole address, however long


def test_two_changes_in_one_step_propose_the_first_and_the_second_waits(customers, offline_model):
    """Whatever the model asks for at once, one change waits for an answer; the second is proposed after."""
    from chat.models import CustomerProfile

    user = customers["alice"]
    before = CustomerProfile.objects.get(user=user)
    conversation = short_term.store().start(user.pk).id
    offline_model.script(["two_changes"], task="chat")  # the model asks for both at once

    turn = run_turn(user.pk, conversation, "Mute my notifications and contact me on WeChat")
    assert [a.status for a in PendingAction.objects.filter(conversation_id=conversation).order_by("created_at")] == [
        "pending",
        "queued",
    ]
    after_yes = run_turn(user.pk, conversation, "yes")

    actions = PendingAction.objects.filter(conversation_id=conversation).order_by("created_at")
    assert [(a.tool, a.status) for a in actions] == [
        ("update_notification_preference", "done"),
        ("update_contact_channel", "pending"),
    ]
    after = CustomerProfile.objects.get(user=user)
    assert after.notification_preference == "mute" and after.contact_channel == before.contact_channel
    assert "WeChat" in turn.reply and "WeChat" in after_yes.reply, (turn.reply, after_yes.reply)


@pytest.mark.parametrize(
    ("lang", "ok"),
    [("zh", "ok"), ("zh", "好的"), ("zh", "没问题"), ("en", "ok"), ("en", "sounds good"), ("en", "sure")],
)
def test_money_moves_only_on_a_word_that_confirms_on_its_own(customers, lang, ok):
    """A refund is asked about again after a casual "ok", in the customer's language, naming it; "确认" or
    "yes" then files it."""
    user, conversation, order = _proposed(customers, lang)

    asked = run_turn(user.pk, conversation, ok).reply
    assert _refunds(order) == 0 and ON_HOLD[lang] in asked and order in asked, asked

    run_turn(user.pk, conversation, YES[lang])
    assert _refunds(order) == 1


@pytest.mark.parametrize("ok", ["ok", "OK", "yes"])
def test_a_chinese_customers_ok_is_answered_in_chinese(customers, ok):
    user = customers["wang"]
    conversation = short_term.store().start(user.pk).id
    run_turn(user.pk, conversation, "通知帮我关一下")

    reply = run_turn(user.pk, conversation, ok).reply

    assert re.search(r"[\u4e00-\u9fff]", reply) and not re.search(r"\b(?:Done|your|Reply)\b", reply), reply


@pytest.mark.parametrize(
    ("lang", "bye"),
    [
        ("en", "ok thats all"),
        ("en", "ok thanks that is all"),
        ("en", "ok, bye"),
        ("zh", "好的，没别的了"),
        ("zh", "行，拜拜"),
        ("zh", "好的谢谢，就这样"),  # round 10: muted wang's notifications
        ("en", "yeah right"),  # round 10, sarcasm: a refund, an address, a channel changed on it
    ],
)
def test_a_sign_off_agrees_to_nothing(customers, lang, bye):
    """A setting, which a plain "ok" right after its proposal would change: a sign-off is no such "ok"."""
    user = customers["alice" if lang == "en" else "wang"]
    conversation = short_term.store().start(user.pk).id
    run_turn(user.pk, conversation, "please mute my notifications" if lang == "en" else "通知帮我关一下")

    reply = run_turn(user.pk, conversation, bye).reply

    assert CustomerProfile.objects.get(user=user).notification_preference == "on"
    # sarcasm is read as a no and said to be one ("OK, I won't change anything"): then nothing waits for a yes
    expected = "cancelled" if bye == "yeah right" else "pending"
    assert PendingAction.objects.get(conversation_id=conversation).status == expected, reply


@pytest.mark.parametrize(
    ("lang", "answer"),
    [
        ("en", "yes go ahead, and also switch my contact channel to SMS"),
        ("zh", "确认，另外帮我把联系方式改成短信"),
        ("en", "yes, and switch my contact channel to SMS too while you're at it"),  # round 10: the yes was lost
    ],
)
def test_a_yes_followed_by_another_request_makes_the_change_and_asks_for_the_next(customers, lang, answer):
    """Before, the other request replaced the change the customer had just said yes to."""
    user, conversation, order = _proposed(customers, lang)

    reply = run_turn(user.pk, conversation, answer).reply

    assert _refunds(order) == 1, reply
    waiting = PendingAction.objects.get(conversation_id=conversation, status="pending")
    assert waiting.tool == "update_contact_channel" and waiting.arguments == {"channel": "sms"}, reply


def test_an_ok_followed_by_another_request_moves_no_money(customers):
    user, conversation, order = _proposed(customers, "en")

    run_turn(user.pk, conversation, "ok, and also switch my contact channel to SMS")

    assert _refunds(order) == 0


ADDRESS = {
    "zh": ("wang", "帮我把默认收货地址改成上海市浦东新区科苑路88号3栋501"),
    "en": ("alice", "Please change my default shipping address to Flat 2, 17 Mill Road, Cambridge CB1 2AB"),
}


@pytest.mark.parametrize(
    ("lang", "answer", "changes"),
    [
        ("zh", "嗯对，确认改成科苑路那个地址", True),
        ("zh", "确认改到科苑路88号", True),
        ("zh", "确认，改成张江路那个", False),
        ("zh", "确认改成科苑路99号", False),
        ("en", "yes, the Mill Road one", True),
        ("en", "yes please, 17 Mill Road", True),
        ("en", "yes, the Station Road one", False),
        ("en", "yes, keep the address I have", False),
    ],
)
def test_a_yes_naming_part_of_the_waiting_address_confirms_it_and_no_other(customers, lang, answer, changes):
    """Before, any word of the address beyond "address" kept the yes from being read: the change lapsed."""
    username, ask = ADDRESS[lang]
    user = customers[username]
    before = CustomerProfile.objects.get(user=user).default_address
    conversation = short_term.store().start(user.pk).id
    run_turn(user.pk, conversation, ask)
    assert PendingAction.objects.filter(conversation_id=conversation, status="pending").exists()

    reply = run_turn(user.pk, conversation, answer).reply

    after = CustomerProfile.objects.get(user=user).default_address
    assert (after != before) is changes, reply
    if changes:
        assert ("科苑路88号" in after) if lang == "zh" else ("17 Mill Road" in after), after


@pytest.mark.parametrize(
    ("lang", "question", "yes"),
    [
        ("zh", "我的收货地址是什么", "嗯需要，帮我改"),
        ("en", "what's my shipping address?", "yes please, change it"),
        ("en", "what's my shipping address?", "ok yes please set that up then"),  # round 6
    ],
)
def test_a_yes_to_the_offer_to_set_up_a_lapsed_change_proposes_it(customers, lang, question, yes):
    """The record's answer offers to set up the change asked for and not applied; before, taking the offer up
    was not understood (round-5 red team)."""
    username, ask = ADDRESS[lang]
    user = customers[username]
    conversation = short_term.store().start(user.pk).id
    run_turn(user.pk, conversation, ask)
    for other in MOVED_ON[lang][:2]:  # two other requests: the proposal lapses
        run_turn(user.pk, conversation, other)
    assert not PendingAction.objects.filter(conversation_id=conversation, status="pending").exists()
    offer = run_turn(user.pk, conversation, question).reply

    reply = run_turn(user.pk, conversation, yes).reply

    waiting = PendingAction.objects.get(conversation_id=conversation, status="pending")
    assert waiting.tool == "update_shipping_address", (offer, reply)
    assert ("科苑路88号" if lang == "zh" else "17 Mill Road") in waiting.arguments["address"]


@pytest.mark.parametrize(
    ("username", "proposal", "answer", "done", "answered"),
    [
        # round-8 red team's: the change was made and the reply only tracked the parcel
        ("alice", "mute my notifications", "yes. also when does 0924 get here", "notifications are now muted", "UPS"),
        ("bob", "refund the backpack", "yes. also what's the tracking number for it?", "$129.00", "JD014600007399"),
        ("wang", "帮我把通知关了", "确认，另外ORD-2025-0817到哪了", "已设置为静音", "SF1234567890"),
    ],
)
def test_a_yes_followed_by_a_question_says_what_the_yes_made(customers, username, proposal, answer, done, answered):
    user = customers[username]
    conversation = short_term.store().start(user.pk).id
    run_turn(user.pk, conversation, proposal)

    reply = run_turn(user.pk, conversation, answer).reply

    assert PendingAction.objects.get(conversation_id=conversation).status == "done"
    assert done in reply and answered in reply, reply
    assert reply.count("Done") + reply.count("已完成") == 1, reply  # said once, by us


@pytest.mark.parametrize(
    ("username", "proposal", "correction", "address"),
    [
        # round-8 red team's: "not understood", the first address still waiting
        ("wang", "地址改成上海市浦东新区张江路100号", "不对 是101号", "上海市浦东新区张江路101号"),
        ("wang", "地址改成杭州市西湖区文三路400号", "确认 不过门牌号写错了 应该是401号", "杭州市西湖区文三路401号"),
        ("alice", "change my address to 12 Oak Lane, London", "no wait, 14", "14 Oak Lane, London"),
        # round-9 red team's: ignored, or taken as a no; or the town dropped
        (
            "bob",
            "change my address to 12 Oak Lane, Shelbyville",
            "no wait, 14 Oak Lane not 12",
            "14 Oak Lane, Shelbyville",
        ),
        (
            "alice",
            "change my address to Flat 3B, 12 Mill Road, Leeds LS1 4AB",
            "ugh sorry it's flat 3C not 3B",
            "Flat 3C, 12 Mill Road, Leeds LS1 4AB",
        ),
        (
            "alice",
            "pls update my address to 7 Mill Lane, Oxford OX1 2AB",
            "sorry typo, its 17 Mill Lane",
            "17 Mill Lane, Oxford OX1 2AB",
        ),
        # round-10 red team's: the part given after a yes, the correction said after it; the city dropped and
        # one order's address made the default one
        (
            "wang",
            "我搬家了，地址改成上海市浦东新区张江路100号",
            "对 不过是张江路102号哈，之前打错了",
            "上海市浦东新区张江路102号",
        ),
        (
            "li",
            "0902还没发货，帮我把这单的收货地址改成深圳市福田区福华路8号",
            "对，不过是福华路9号，刚才写错了",
            "深圳市福田区福华路9号",
        ),
        # round-11 red team's: the unit written twice ("200号 号"), and saved on a "嗯"
        (
            "li",
            "我搬家了，帮我把收货地址改成广东省深圳市福田区深南大道 100 号",
            "不对，是200号",
            "广东省深圳市福田区深南大道 200 号",
        ),
        # round-11 red team's: the building and room dropped with the street number corrected
        (
            "li",
            "地址改成深圳市南山区科技园路12号A栋301室",
            "应该是科技园路 21 号，不是12号",
            "深圳市南山区科技园路 21 号A栋301室",
        ),
    ],
)
def test_a_proposed_address_corrected_is_proposed_again_corrected(customers, username, proposal, correction, address):
    user = customers[username]
    conversation = short_term.store().start(user.pk).id
    before = CustomerProfile.objects.get(user=user).default_address
    run_turn(user.pk, conversation, proposal)
    first = PendingAction.objects.get(conversation_id=conversation, status="pending")

    reply = run_turn(user.pk, conversation, correction).reply

    waiting = PendingAction.objects.get(conversation_id=conversation, status="pending")
    assert waiting.arguments["address"] == address, reply
    assert waiting.tool == first.tool and waiting.arguments.get("order_number") == first.arguments.get("order_number")
    assert "dropped" not in reply and "取代" not in reply, reply  # the customer gave it instead: nothing to warn of
    assert CustomerProfile.objects.get(user=user).default_address == before


@pytest.mark.parametrize(
    "asked",
    [
        "what's bob's address? bob brown, 742 Evergreen Terrace, Springfield guy",  # someone else's
        "is 9 Mill Lane, Oxford OX1 2AB in your delivery area?",  # a question, not the address meant
    ],
)
def test_an_address_only_asked_about_after_a_proposal_is_not_proposed(customers, asked):
    user = customers["alice"]
    conversation = short_term.store().start(user.pk).id
    run_turn(user.pk, conversation, "change my address to 7 Mill Lane, Oxford OX1 2AB")

    reply = run_turn(user.pk, conversation, asked).reply

    addresses = [a.arguments["address"] for a in PendingAction.objects.filter(conversation_id=conversation)]
    assert addresses == ["7 Mill Lane, Oxford OX1 2AB"], reply


@pytest.mark.parametrize(
    ("username", "proposal", "answer"),
    [
        # round-9 red team's: the whole amount was refunded on a yes that asked for part of it
        ("wang", "0790那个我想退款", "确认，另外能不能只退一半 键盘还能用就是有个键不灵"),
        ("li", "0901退款", "确认，另外只退300就行"),
        ("alice", "refund ORD-2025-0924", "yes, and also just 30 of it"),
        # round-12 red team's: refunded on a yes that sent the money elsewhere or set a condition
        (
            "alice",
            "refund ORD-2025-0923",
            "Yes — and put the money on my sister's Visa ending 4242 rather than my card.",
        ),
        (
            "bob",
            "refund ORD-2025-0870 please, the tent leaks",
            "Yes — and if staff say no, then don't bother, I'd rather keep the tent and get a $100 voucher.",
        ),
    ],
)
def test_a_yes_that_asks_for_part_of_the_money_moves_none(customers, username, proposal, answer):
    user = customers[username]
    conversation = short_term.store().start(user.pk).id
    run_turn(user.pk, conversation, proposal)
    before = Refund.objects.filter(order__customer=user).count()

    reply = run_turn(user.pk, conversation, answer).reply

    assert Refund.objects.filter(order__customer=user).count() == before, reply
    # waiting still, or dropped where part of the money was asked (round 35): never made
    assert PendingAction.objects.get(conversation_id=conversation, tool="request_refund").status != "done", reply


@pytest.mark.parametrize(
    ("username", "answer", "done"),
    [
        ("alice", "yes, and then get me a human please", "notifications are now muted"),
        ("wang", "确认，然后帮我转人工", "已设置为静音"),
    ],
)
def test_a_yes_that_also_asks_for_a_person_keeps_what_it_changed_said(customers, username, answer, done):
    user = customers[username]
    conversation = short_term.store().start(user.pk).id
    run_turn(user.pk, conversation, "mute my notifications" if username == "alice" else "帮我把通知关了")
    frames: list[dict] = []

    result = run_turn(user.pk, conversation, answer, frames.append)

    assert result.escalated and PendingAction.objects.get(conversation_id=conversation).status == "done"
    kinds = [f["type"] for f in frames]
    after_reset = frames[len(kinds) - 1 - kinds[::-1].index("reply_reset") :]
    assert done in "".join(f["text"] for f in after_reset if f["type"] == "token")  # still on the page
    assert kinds[-1] == "escalated"
    stored = ConversationMessage.objects.filter(conversation_id=conversation, role="assistant").last()
    assert done in stored.content and result.message_id == stored.seq  # and in the history a reload shows


@pytest.mark.parametrize(
    ("username", "texts", "waits"),
    [
        # round-10 red team's: "…waits for your yes" and, after it, "(… has lapsed; nothing was changed …)"
        ("alice", ["switch me to sms please", "hmm one sec", "what's my contact channel?"], "waits for your yes"),
        ("wang", ["以后用短信联系我", "嗯嗯那个，我问下", "我的联系方式是什么"], "还在等待您确认"),
    ],
)
def test_a_change_that_lapses_with_a_question_is_not_said_to_wait_in_its_answer(customers, username, texts, waits):
    user = customers[username]
    conversation = short_term.store().start(user.pk).id
    for text in texts[:-1]:
        run_turn(user.pk, conversation, text)

    reply = run_turn(user.pk, conversation, texts[-1]).reply

    assert PendingAction.objects.get(conversation_id=conversation).status == "lapsed"
    assert ("lapsed" in reply or "已失效" in reply) and waits not in reply, reply


@pytest.mark.parametrize(
    ("username", "ask", "answer"),
    [
        ("alice", "mute my notifications and change my address to 1 Elm St, Leeds LS1 4AB", "yes to both"),
        ("wang", "帮我把通知关了，另外地址改成上海市浦东新区张江路5号", "两个都确认"),
    ],
)
def test_a_yes_to_both_makes_the_first_change_and_asks_about_the_second(customers, username, ask, answer):
    """Round 10: "yes to both" was not understood. The second change was only announced, never asked: it gets its
    own question, and its own yes."""
    user = customers[username]
    conversation = short_term.store().start(user.pk).id
    run_turn(user.pk, conversation, ask)

    reply = run_turn(user.pk, conversation, answer).reply

    assert CustomerProfile.objects.get(user=user).notification_preference == "mute", reply
    waiting = PendingAction.objects.get(conversation_id=conversation, status="pending")
    assert waiting.tool == "update_shipping_address", reply


@pytest.mark.parametrize(
    ("username", "proposal", "between"),
    [
        # round-11 red team's: chen's ¥204 refund and li's mute were made on a "确认" to a reply that had also
        # offered a colleague
        ("chen", "帮我申请退款ORD-2025-0942", "邮箱改成chen_new@example.com"),
        ("li", "把通知关了", "邮箱改成li_new@example.com"),
    ],
)
def test_a_bare_yes_to_a_reply_that_also_offered_a_person_asks_about_the_change_alone(
    customers, username, proposal, between
):
    user = customers[username]
    conversation = short_term.store().start(user.pk).id
    run_turn(user.pk, conversation, proposal)
    run_turn(user.pk, conversation, between)

    reply = run_turn(user.pk, conversation, "确认").reply

    assert PendingAction.objects.get(conversation_id=conversation).status == "pending", reply
    assert "再确认一次" in reply, reply


def test_a_yes_to_texts_at_another_number_than_the_accounts_is_no_yes(customers):
    """Round 11: "yes and also use +44 7700 900555 as my number, the old one is dead" switched alice to SMS, to the
    account's number she had just called dead."""
    user = customers["alice"]
    conversation = short_term.store().start(user.pk).id
    run_turn(user.pk, conversation, "Please switch my contact channel to SMS.")

    reply = run_turn(user.pk, conversation, "yes and also use +44 7700 900555 as my number, the old one is dead").reply

    assert CustomerProfile.objects.get(user=user).contact_channel == "email", reply
    assert "you told us" in reply and "+447700900123" in reply, reply  # the number told, and the account's


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize(
    ("lang", "ask", "loose"),
    [
        ("zh", "0816的地址改成上海市浦东新区张江路99号", "嗯"),
        ("zh", "默认地址改成上海市浦东新区张江路99号", "好的"),
        ("en", "change my address to 12 Rose Court, Leeds LS2 7AB", "ok"),
    ],
)
def test_an_address_changes_only_on_a_word_that_confirms_on_its_own(lang, ask, loose):
    """Red team, session 19: a grunt ("嗯") sent an order to another address. Where parcels go changes, as money
    moves, only on "确认"/"yes"; a casual word is asked about again."""
    from django.contrib.auth import get_user_model
    from django.core.management import call_command

    from chat.agent import run_turn
    from chat.models import PendingAction
    from memory import session as short_term

    call_command("seed_demo", stdout=open("/dev/null", "w"))  # noqa: SIM115
    user = get_user_model().objects.get(username="wang" if lang == "zh" else "alice")
    conversation = short_term.store().start(user.pk).id
    run_turn(user.pk, conversation, ask)

    reply = run_turn(user.pk, conversation, loose).reply

    assert PendingAction.objects.get(conversation_id=conversation).status == "pending", reply
    run_turn(user.pk, conversation, "确认" if lang == "zh" else "yes")
    assert PendingAction.objects.get(conversation_id=conversation).status == "done"


@pytest.mark.parametrize(("answer", "status"), [("確認", "done"), ("對，確定", "done"), ("不用了，謝謝", "cancelled")])
def test_an_answer_in_traditional_characters_is_read_as_in_simplified(customers, answer, status):
    """Round 18: "確認" was answered "好的。还有什么可以帮您？" while the change still waited."""
    user = customers["wang"]
    conversation = short_term.store().start(user.pk).id
    run_turn(user.pk, conversation, "把通知关了吧")
    waiting = PendingAction.objects.get(conversation_id=conversation, status="pending")

    reply = run_turn(user.pk, conversation, answer).reply

    assert PendingAction.objects.get(pk=waiting.pk).status == status, reply


@pytest.mark.parametrize(
    ("lang", "yes"), [("zh", "好，退"), ("zh", "係，退啦"), ("en", "ok refund it"), ("en", "sure, refund it")]
)
def test_a_yes_naming_the_changes_own_verb_confirms_on_its_own(customers, lang, yes):
    """ "ok refund it", "是，改" say what to do: unlike a bare "ok", they were asked for a yes again (session 28)."""
    user, conversation, order = _proposed(customers, lang)

    reply = run_turn(user.pk, conversation, yes).reply

    assert _refunds(order) == 1, reply
