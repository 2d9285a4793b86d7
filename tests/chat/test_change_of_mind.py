"""A customer who changes their mind within one answer is taken at the answer they ended on.

Red team, session 19: "no wait, actually yes do it via text" dropped the SMS change it ended by agreeing to (the
message opened with "no"); "yes. on second thought, don't" and "确认，哦不对，先不改了" were neither a yes nor a no
and went to the model while the change waited.
"""

from __future__ import annotations

import pytest

from chat.agent import run_turn
from chat.answers import final_answer
from chat.models import CustomerProfile, PendingAction
from memory import session as short_term
from tests.factories import CustomerFactory

SMS = {"channel": "sms", "summary": "contact you by SMS from now on"}


@pytest.mark.parametrize(
    ("text", "ended_on"),
    [
        ("no wait, actually yes do it via text", "yes do it via text"),
        ("no... actually yes please", "yes please"),
        ("hmm no. wait. yes, go ahead", "yes, go ahead"),
        ("nah actually go for it", "go for it"),
        ("yes wait no", "no"),
        ("yes. on second thought, don't", "don't"),
        ("不改了，哦不对，还是改吧", "改吧"),
        ("确认，哦不对，先不改了", "先不改了"),
        ("算了，还是确认吧", "确认吧"),
        ("先别改……算了改吧", "改吧"),
        ("确认……算了", "算了"),
    ],
)
def test_the_answer_ended_on_is_the_answer(text, ended_on):
    assert final_answer(text, SMS) == ended_on


@pytest.mark.parametrize(
    "text",
    [
        "yes",
        "no",
        "算了吧",
        "yes, and switch to email",  # a yes, then a request of its own
        "yes, no problem",
        "no. yes I want email",  # the no stands: the rest asks for another channel
        "wait, actually yes",  # nothing taken back: read whole, as before
        "no, actually I'd like email instead",
        "不对，还是100号",  # a correction of the value, not an answer
        "好的谢谢，就这样",  # a yes and a sign-off, taking nothing back (a sign-off agrees to nothing)
        "ok, sure",
    ],
)
def test_a_message_without_a_change_of_mind_is_read_whole(text):
    assert final_answer(text, SMS) == text


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize(
    ("lang", "ask", "answer", "changed"),
    [
        ("en", "please switch me to sms", "no wait, actually yes do it via text", True),
        ("en", "please switch me to sms", "yes. on second thought, don't", False),
        ("zh", "以后用短信联系我吧", "不改了，哦不对，还是改吧", True),
        ("zh", "以后用短信联系我吧", "确认，哦不对，先不改了", False),
    ],
)
def test_the_change_follows_the_answer_ended_on(lang, ask, answer, changed):
    user = CustomerFactory(
        username=f"mind{abs(hash(answer)) % 10**6}",
        profile__language="en" if lang == "en" else "zh-hans",
        profile__contact_channel="email",
    )
    conversation = short_term.store().start(user.pk).id
    run_turn(user.pk, conversation, ask)
    assert PendingAction.objects.get(conversation_id=conversation).arguments == {"channel": "sms"}

    run_turn(user.pk, conversation, answer)

    action = PendingAction.objects.get(conversation_id=conversation)
    assert action.status == ("done" if changed else "cancelled")
    assert CustomerProfile.objects.get(user=user).contact_channel == ("sms" if changed else "email")
