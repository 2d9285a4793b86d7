"""A question about an earlier chat is answered from the recap memory keeps of it, as our notes.

Red team, rounds 13 and 14: "what did I ask you to change last time, was it done?", "上次我让你改了啥？" and "what
happened in our last chat?" got the fallback. The recap now says what was done and what was not, and the agent
quotes it, as notes the shop's records outrank.
"""

from __future__ import annotations

import pytest
from django.core.management import call_command

from chat.agent import run_turn
from memory import session as short_term
from memory.consolidation import consolidate
from tests.factories import CustomerFactory

pytestmark = pytest.mark.django_db(transaction=True)

EARLIER = {
    "en": (
        "bob",
        [
            "refund 0931 please, it arrived broken",
            "yes",
            "change my address to 9 Rose Court, Leeds LS2 7AB",
            "no",
            "bye",
        ],
    ),
    "zh": ("li", ["0901退款，质量有问题", "确认", "地址改成北京市朝阳区建国路88号", "不改了", "谢谢再见"]),
}
DONE = {
    "en": ("Done: a refund of $129.00 for order ORD-2025-0931", "Not done (nothing changed): change your default"),
    "zh": ("已办：已为订单ORD-2025-0901提交退款申请", "未办理（未改动）：将您的默认收货地址改为北京市朝阳区建国路88号"),
}


def _talk(user, messages: list[str]) -> str:
    conversation = short_term.store().start(user.pk).id
    replies = [run_turn(user.pk, conversation, message).reply for message in messages]
    consolidate(conversation, final=True)
    return replies[-1]


@pytest.mark.parametrize(
    ("lang", "question"),
    [
        ("en", "what did I ask you to change last time, was it done?"),
        ("en", "what happened in our last chat?"),
        ("en", "Did you do what I asked last time?"),
        ("zh", "上次我让你改了啥？"),
        ("zh", "上次聊了什么？"),
    ],
)
@pytest.mark.parametrize("mode", ["active", "deferred"])
def test_an_earlier_chat_is_told_from_its_recap(settings, lang, question, mode):
    settings.MEMORY_RECALL_MODE = mode
    call_command("seed_demo", stdout=open("/dev/null", "w"))  # noqa: SIM115
    username, messages = EARLIER[lang]
    user = CustomerFactory._meta.model.objects.get(username=username)
    _talk(user, messages)

    conversation = short_term.store().start(user.pk).id
    reply = run_turn(user.pk, conversation, question).reply

    done, not_done = DONE[lang]
    assert done in reply and not_done in reply, reply
    assert ("notes" in reply) if lang == "en" else ("笔记" in reply), reply  # ours, not the shop's record
    # said to the customer, not of them (round 15: "Asked about their orders")
    assert lang == "zh" or ("You asked about" in reply and "their" not in reply), reply


def test_no_earlier_chat_is_said_as_none():
    user = CustomerFactory(username="newcomer", profile__language="en")
    conversation = short_term.store().start(user.pk).id

    reply = run_turn(user.pk, conversation, "what did we talk about last time?").reply

    assert "no notes of an earlier chat" in reply, reply


def test_a_refund_asked_about_from_an_earlier_chat_is_answered_from_the_record():
    call_command("seed_demo", stdout=open("/dev/null", "w"))  # noqa: SIM115
    user = CustomerFactory._meta.model.objects.get(username="li")
    _talk(user, EARLIER["zh"][1])

    conversation = short_term.store().start(user.pk).id
    reply = run_turn(user.pk, conversation, "上次我说的0901退款办了没有").reply

    assert "ORD-2025-0901" in reply and "笔记" not in reply, reply  # the refund's record, not our notes
