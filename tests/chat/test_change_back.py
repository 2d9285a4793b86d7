"""Taking a change back ("I didnt ask for sms, change it back to email", "通知别关了，还是开着吧") proposes the value
wanted, never "nothing needs changing" about the value taken back.

Red team, session 19 (5 of 5 customers): the value named first, in "I didnt ask for sms" or "我没让你改成微信", was
read as the one wanted, and since the record already held it the reply said "Nothing needs changing."
"""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command

from agentsite.offline_model import slots
from chat.agent import run_turn
from chat.models import CustomerProfile
from memory import session as short_term

pytestmark = pytest.mark.django_db(transaction=True)

FLOWS = [
    (
        "alice",
        "switch me to sms",
        "yes",
        "I didnt ask for sms, change it back to email pls",
        "yes",
        "contact_channel",
        "email",
    ),
    (
        "bob",
        "mute my notifications",
        "yes",
        "I didnt want notifications muted, keep them on",
        "yes",
        "notification_preference",
        "on",
    ),
    ("wang", "以后微信联系我", "确认", "我没让你改成微信联系啊，改回邮件", "确认", "contact_channel", "email"),
    ("li", "把通知关了", "确认", "通知别关了，还是开着吧，之前关错了", "确认", "notification_preference", "on"),
    ("chen", "", "", "我的通知别开着了，还是关了吧", "确认", "notification_preference", "mute"),
]


@pytest.mark.parametrize(("username", "ask", "yes", "back", "again", "field", "value"), FLOWS)
def test_a_change_taken_back_proposes_the_value_wanted(username, ask, yes, back, again, field, value):
    call_command("seed_demo", stdout=open("/dev/null", "w"))  # noqa: SIM115
    user = get_user_model().objects.get(username=username)
    conversation = short_term.store().start(user.pk).id
    for said in [ask, yes] if ask else []:
        run_turn(user.pk, conversation, said)

    reply = run_turn(user.pk, conversation, back).reply
    run_turn(user.pk, conversation, again)

    assert "Nothing needs changing" not in reply and "无需更改" not in reply, reply
    assert getattr(CustomerProfile.objects.get(user=user), field) == value


@pytest.mark.parametrize(
    ("text", "channel"),
    [
        ("switch back to email", "email"),
        ("put it back to email", "email"),
        ("改回短信", "sms"),
        ("I didn't call you, text me", "sms"),
        ("not sms, email please", "email"),
        # red team, session 19: the "not" of "notifications" negated the channel after it (read as muting)
        ("switch my notifications to sms", "sms"),
        ("send my notifications by text", "sms"),
        ("notifications by email please", "email"),
    ],
)
def test_the_channel_wanted_is_the_one_gone_back_to(text, channel):
    assert slots.contact_channel(text) == channel
