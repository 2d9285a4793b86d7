"""The shop reaches a customer only where the account says it can: a call or a text needs a phone number on
the account, an email needs its email. A channel the shop cannot use is refused with the reason, at the
proposal and again at the yes; the phone number on the account is a shop record, as its email is."""

from __future__ import annotations

import pytest

from chat.agent import run_turn
from chat.models import CustomerProfile, PendingAction
from chat.tools import confirm_pending, run_tool
from memory import session as short_term

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.mark.parametrize(
    ("username", "said", "reason"),
    [
        ("chen", "以后发短信联系我吧", "账户上没有登记电话号码"),  # a demo customer with no number on the account
        ("chen", "还是打电话给我吧，邮件老是看不到", "无法通过电话联系您"),
    ],
)
def test_a_call_or_a_text_without_a_number_on_the_account_is_refused_with_the_reason(seeded, username, said, reason):
    user = seeded[username]
    conversation = short_term.store().start(user.pk).id

    reply = run_turn(user.pk, conversation, said).reply

    assert reason in reply, reply
    assert not PendingAction.objects.filter(conversation_id=conversation).exists()
    assert CustomerProfile.objects.get(user=user).contact_channel == "email"


def test_a_number_gone_from_the_account_before_the_yes_leaves_the_channel_as_it_was(context_for):
    ctx = context_for("alice")
    assert run_tool(ctx, "update_contact_channel", {"channel": "sms"})["status"] == "pending_confirmation"
    CustomerProfile.objects.filter(user_id=ctx.customer_id).update(phone="")

    result = confirm_pending(ctx)

    assert "no phone number on your account" in result["error"]
    assert CustomerProfile.objects.get(user_id=ctx.customer_id).contact_channel == "email"


def test_email_without_an_email_on_the_account_is_refused(context_for, seeded):
    ctx = context_for("bob")
    CustomerProfile.objects.filter(user_id=ctx.customer_id).update(contact_channel="sms")
    type(seeded["bob"]).objects.filter(pk=ctx.customer_id).update(email="")

    result = run_tool(ctx, "update_contact_channel", {"channel": "email"})

    assert "no email on your account" in result["error"]


@pytest.mark.parametrize(
    ("username", "asked", "number"),
    [("alice", "what phone number do you have for me?", "+447700900123"), ("wang", "我的手机号是多少", "13857101234")],
)
def test_the_number_on_the_account_answers_what_number_the_shop_has(seeded, username, asked, number):
    user = seeded[username]
    reply = run_turn(user.pk, short_term.store().start(user.pk).id, asked).reply
    assert number in reply and ("账户" in reply if username == "wang" else "on your account" in reply), reply


def test_a_number_told_in_a_chat_is_never_said_to_be_on_an_account_without_one(seeded):
    """Round 11: chen (no number on her account) typed one, then "我账户上的手机号是多少？" got "您的电话号码是…"."""
    user = seeded["chen"]
    conversation = short_term.store().start(user.pk).id
    run_turn(user.pk, conversation, "我的手机号是13600001111")

    reply = run_turn(user.pk, conversation, "我账户上的手机号是多少？").reply

    assert "账户上没有登记电话号码" in reply and "告诉过我们13600001111" in reply, reply
