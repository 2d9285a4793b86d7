"""The email on the customer's account is the shop's record: an email the customer told us in a chat is
memory, said as what they told us, never as the account's. No tool of the agent's changes the account's
email, so a new one said in a chat is noted and the reply says the account still holds its own."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command

from chat.agent import run_turn
from memory import session as short_term
from memory.recall import Recalled, format_memory_block
from tests.factories import remember

pytestmark = pytest.mark.django_db(transaction=True)

TOLD = "old.box@example.com"
ACCOUNT = "account@example.com"
ASK = {"zh": ("wang", "你们系统里登记的我的邮箱是哪个？"), "en": ("alice", "what email do you have on file for me?")}


@pytest.fixture
def customers(db):
    from django.contrib.auth import get_user_model

    call_command("seed_demo", stdout=open("/dev/null", "w"))  # noqa: SIM115
    return {u.username: u for u in get_user_model().objects.all()}


def _ask(user, text):
    return run_turn(user.pk, short_term.store().start(user.pk).id, text).reply


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_the_accounts_email_answers_and_an_email_told_in_a_chat_is_quoted_as_told(customers, lang):
    """Before, the memory's email was given as "您的邮箱是…" and the account's was never shown."""
    username, ask = ASK[lang]
    user = customers[username]
    user.email = ACCOUNT
    user.save(update_fields=["email"])
    remember(user, f"The customer's email is {TOLD}", key="email", value=TOLD, confidence=0.95)

    reply = _ask(user, ask)

    assert ACCOUNT in reply, reply
    assert TOLD in reply and ("告诉过" in reply if lang == "zh" else "You told us" in reply), reply
    assert f"您的邮箱是{TOLD}" not in reply and f"Your email is {TOLD}" not in reply, reply


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_without_an_account_email_the_remembered_one_is_what_the_customer_told_us(customers, lang):
    username, ask = ASK[lang]
    user = customers[username]
    user.email = ""
    user.save(update_fields=["email"])
    remember(user, f"The customer's email is {TOLD}", key="email", value=TOLD, confidence=0.95)

    reply = _ask(user, ask)

    assert TOLD in reply and ("告诉过我们" in reply if lang == "zh" else "You told us" in reply), reply


@pytest.mark.parametrize(("lang", "said"), [("zh", f"我的邮箱是 {TOLD}"), ("en", f"my email is {TOLD}")])
def test_another_email_said_in_a_chat_leaves_the_account_as_it_is_and_says_so(customers, lang, said):
    username = ASK[lang][0]
    user = customers[username]
    user.email = ACCOUNT
    user.save(update_fields=["email"])

    reply = _ask(user, said)

    user.refresh_from_db()
    assert user.email == ACCOUNT
    assert ACCOUNT in reply and ("仍是" in reply if lang == "zh" else "still" in reply), reply


def test_a_copy_of_the_accounts_email_in_memory_is_left_out_of_the_block():
    copy = Recalled(
        id=1, type="fact", content=f"email {ACCOUNT}", key="email", value=ACCOUNT, source="customer_stated",
        confidence=0.95, disputed=False, created_at=None, score=1.0,
    )  # fmt: skip
    block = format_memory_block([copy], "en", {"email": ACCOUNT})

    assert f"Shop record: the email on the customer's account is {ACCOUNT}" in block
    assert block.count(ACCOUNT) == 2  # the record line and its value hint, not the copy


@pytest.mark.parametrize(
    ("username", "said"),
    [
        ("li", "帮我把账号绑定邮箱改成 li.new@qq.com"),
        ("wang", "麻烦把我的邮件地址更新为 wang2026@163.com"),
        ("bob", "please update my email address to bob.other@example.net"),
        ("alice", "Can you change the email on my account for alice.work@example.org?"),
        # round 7: "…无需更改" (the email read as the channel it already was)
        ("wang", "我邮箱换了，改成 wang_new@qq.com"),
        ("alice", "fyi my email is actually alice.s@gmail.com now"),
    ],
)
def test_a_change_of_the_accounts_email_proposes_no_channel_and_says_who_can(customers, username, said):
    """Before, "邮箱" read as the contact channel: a switch to email was proposed, which nobody asked for."""
    from chat.models import CustomerProfile, PendingAction

    user = customers[username]
    channel = CustomerProfile.objects.get(user=user).contact_channel
    conversation = short_term.store().start(user.pk).id

    reply = run_turn(user.pk, conversation, said).reply

    assert not PendingAction.objects.filter(conversation_id=conversation).exists(), reply
    assert CustomerProfile.objects.get(user=user).contact_channel == channel
    assert "人工客服" in reply if username in ("li", "wang") else "colleague" in reply, reply


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_a_remembered_phone_number_is_what_the_customer_told_us(customers, lang):
    """Before: "您的电话号码是13900002222。", as if the shop had it on record (round-6 red team)."""
    username, _ = ASK[lang]
    user = customers[username]
    remember(user, "The customer's phone number is 13900002222", key="phone_number", value="13900002222")

    reply = _ask(user, "我留的电话是哪个？" if lang == "zh" else "which phone number did I give you?")

    assert "13900002222" in reply and ("告诉过我们" in reply if lang == "zh" else "You told us" in reply), reply


def test_the_demo_customers_have_an_account_email_the_agent_gives(customers):
    """The demo seeds one per customer, so the demo can show the record beside what memory holds."""
    reply = _ask(customers["alice"], "what email is on my account?")

    assert "alice@demo-shop.example" in reply, reply


def test_seeding_again_gives_an_email_to_a_demo_customer_without_one_and_keeps_one_set(customers):
    """A demo seeded before customers had emails kept them without one, so the agent could not give it."""
    get_user_model().objects.filter(username="alice").update(email="")
    get_user_model().objects.filter(username="bob").update(email="bob@elsewhere.example")

    call_command("seed_demo", stdout=open("/dev/null", "w"))  # noqa: SIM115

    emails = dict(get_user_model().objects.filter(username__in=["alice", "bob"]).values_list("username", "email"))
    assert emails == {"alice": "alice@demo-shop.example", "bob": "bob@elsewhere.example"}


@pytest.mark.parametrize(
    ("username", "said"),
    [
        ("bob", "fyi my email is actually bobby.s@gmail.com now, and i always prefer to be contacted by text message"),
        ("wang", "我邮箱换了，改成 wang_new@qq.com，以后发短信联系我吧"),
    ],
)
def test_a_channel_asked_beside_a_new_email_is_still_proposed(customers, username, said):
    """Round 7: the email's answer swallowed the switch to SMS asked in the same message."""
    from chat.models import PendingAction

    user = customers[username]
    conversation = short_term.store().start(user.pk).id

    reply = run_turn(user.pk, conversation, said).reply

    proposed = PendingAction.objects.get(conversation_id=conversation, status="pending")
    assert proposed.arguments == {"channel": "sms"}, reply
    assert "人工客服" in reply if username == "wang" else "colleague" in reply, reply
