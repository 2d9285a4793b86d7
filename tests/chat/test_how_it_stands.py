"""A question how a setting of the customer's stands ("is my address still X or Y?", "短信还是邮件？") is answered
from the shop's record: whatever values it names, it proposes no change, and a "yes" after it changes nothing."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command

from chat.agent import run_turn
from memory import session as short_term

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.mark.parametrize(
    ("username", "question", "key"),
    [
        # round-6 red team's, then wordings of our own
        ("alice", "is my address still {address} or did it change to Flat 2, 14 Mill Road, Cambridge CB1 2AD?", "a"),
        ("alice", "hey are my notifications on or off rn", "n"),
        ("alice", "am i still on email or did it go back to sms??", "c"),
        ("wang", "你们现在是短信联系我还是邮件？", "c"),
        ("wang", "现在你们是用电话联系我还是邮件？", "c"),
        ("wang", "通知现在是开着还是关了？", "n"),
        ("alice", "Are you still sending stuff to {address}, or to 9 Elm Row, Leeds LS1 4AB?", "a"),
        ("wang", "我有没有设置成电话联系", "c"),  # the evaluation's shop-truth question, proposed phone once
    ],
)
def test_a_question_how_a_setting_stands_is_answered_from_the_record_and_changes_nothing(username, question, key):
    """Before, a question naming the values proposed one of them (the address cut to "14 Mill Road"), and a
    plain "yes" applied it (round-6 red team)."""
    from chat.models import CustomerProfile, PendingAction

    call_command("seed_demo", stdout=open("/dev/null", "w"))  # noqa: SIM115
    user = get_user_model().objects.get(username=username)
    profile = CustomerProfile.objects.get(user=user)
    before = (profile.default_address, profile.notification_preference, profile.contact_channel)
    conversation = short_term.store().start(user.pk).id

    reply = run_turn(user.pk, conversation, question.format(address=profile.default_address)).reply
    run_turn(user.pk, conversation, "yes" if username == "alice" else "是的")

    profile.refresh_from_db()
    assert (profile.default_address, profile.notification_preference, profile.contact_channel) == before, reply
    assert not PendingAction.objects.filter(conversation_id=conversation).exists(), reply
    said = {"a": profile.default_address, "n": {"on": ("on", "开启")}, "c": {"email": ("email", "邮件")}}[key]
    if key == "a":
        assert said in reply, reply
    else:
        value = profile.notification_preference if key == "n" else profile.contact_channel
        assert any(word in reply for word in said.get(value, (value,))), reply


@pytest.mark.parametrize(
    ("username", "question"),
    [
        ("wang", "你们一般什么时候打电话给我"),
        ("wang", "怎么老给我打电话"),
        ("wang", "你们几点给我发短信"),
        ("wang", "为什么给我发短信了"),
        ("bob", "why did you text me at 3am"),
        ("bob", "what time do you usually call me?"),
    ],
)
def test_when_or_why_the_shop_contacts_them_asks_no_channel(username, question):
    """Before, a question or complaint about when or why the shop calls proposed that very channel, a "yes" set
    it, and memory kept it as the customer's wish (round-6 leftover)."""
    from agentsite.offline_model import facts
    from chat.models import CustomerProfile, PendingAction

    call_command("seed_demo", stdout=open("/dev/null", "w"))  # noqa: SIM115
    user = get_user_model().objects.get(username=username)
    before = CustomerProfile.objects.get(user=user).contact_channel
    conversation = short_term.store().start(user.pk).id

    reply = run_turn(user.pk, conversation, question).reply
    run_turn(user.pk, conversation, "yes" if username == "bob" else "好的")

    assert CustomerProfile.objects.get(user=user).contact_channel == before, reply
    assert not PendingAction.objects.filter(conversation_id=conversation).exists(), reply
    assert not [f for f in facts.stated_in(question) if f.key == "contact_channel"]


@pytest.mark.parametrize(
    ("username", "question"),
    [
        # round-7 red team's, then wordings of our own
        ("chen", "如果把通知关了的话，还能收到发货提醒吗"),
        ("li", "我还没想好，先确认一下关了以后还能收到物流短信吗"),
        ("wang", "要是改成微信联系的话，还会发邮件吗"),
        ("wang", "关掉通知的话会不会错过快递"),
        ("alice", "if I mute notifications, will I still get delivery updates?"),
        ("bob", "what happens if I switch to sms? would you still email me receipts?"),
        ("alice", "if i turn off notifications do i still get security alerts?"),
    ],
)
def test_what_a_change_would_do_is_answered_and_nothing_is_proposed(username, question):
    """Before, "如果把通知关了的话…" proposed muting and "好的" applied it; the question went unanswered."""
    from chat.models import CustomerProfile, PendingAction

    call_command("seed_demo", stdout=open("/dev/null", "w"))  # noqa: SIM115
    user = get_user_model().objects.get(username=username)
    profile = CustomerProfile.objects.get(user=user)
    before = (profile.notification_preference, profile.contact_channel)
    conversation = short_term.store().start(user.pk).id

    reply = run_turn(user.pk, conversation, question).reply
    run_turn(user.pk, conversation, "yes" if username in ("alice", "bob") else "好的")

    profile.refresh_from_db()
    assert (profile.notification_preference, profile.contact_channel) == before, reply
    assert not PendingAction.objects.filter(conversation_id=conversation).exists(), reply
    assert "根据《" in reply or "According to our policy" in reply, reply  # answered from what the policy says


@pytest.mark.parametrize(
    ("username", "proposal", "question", "policy"),
    [
        # round-8 red team's: answered with order statuses, or asked for a new address
        ("alice", "can you stop the notifications", "will i still get shipping updates if i do that?", "“Notification"),
        (
            "bob",
            "change my address to 5 Pine Court, Capital City",
            "wait is that going to change the address on my order that's in transit too?",
            "Changing your address",
        ),
        ("wang", "帮我把通知关了", "那样的话还能收到物流提醒吗", "通知设置"),
    ],
)
def test_what_the_change_just_proposed_would_do_is_answered_and_it_waits(username, proposal, question, policy):
    from chat.models import PendingAction

    call_command("seed_demo", stdout=open("/dev/null", "w"))  # noqa: SIM115
    user = get_user_model().objects.get(username=username)
    conversation = short_term.store().start(user.pk).id
    run_turn(user.pk, conversation, proposal)
    waiting = PendingAction.objects.get(conversation_id=conversation, status="pending")

    reply = run_turn(user.pk, conversation, question).reply

    assert policy in reply.split("\n")[0], reply  # the policy that answers it, first
    assert PendingAction.objects.get(pk=waiting.pk).status == "pending", reply


def test_a_question_while_a_change_waits_after_an_aside_is_answered():
    """Red team, session 19: "…right now?" read as "that's right", a loose yes after an aside, and the reply was the
    reminder alone; the question was never answered."""
    call_command("seed_demo", stdout=open("/dev/null", "w"))  # noqa: SIM115
    alice = get_user_model().objects.get(username="alice")
    conversation = short_term.store().start(alice.pk).id
    for said in ["switch me to sms", "yes", "set my contact channel to email"]:
        run_turn(alice.pk, conversation, said)
    run_turn(alice.pk, conversation, "hmm not sure. what's the difference? whatever, ok")

    reply = run_turn(alice.pk, conversation, "what's my contact channel and notification setting right now?").reply

    assert "We'll contact you by SMS" in reply and "notifications are turned on" in reply, reply
