"""One truth, as a state machine over one customer's conversations: for a shop-owned key (address,
notifications, contact channel) the agent answers with the shop's record, whatever was said.

The customer states new values in wordings written from the key list alone (``data/shop_keys_tests.json``),
confirms, declines, changes the topic, corrects memories on their page; staff accept or edit what waits in
the conflict queue; conversations end and days pass. After every step a fresh conversation asks for each
key through the real turn: the reply gives the record's value, and any other value the customer asked for
only as not applied.
"""

from __future__ import annotations

import contextlib
import itertools
import json
from datetime import timedelta
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule

from agentsite import clock
from agentsite.offline_model.replies import say_value
from chat.agent import run_turn
from chat.forms import CorrectMemoryForm
from chat.models import CustomerProfile
from memory import session as short_term
from memory.consolidation import consolidate
from memory.keys import SHOP_OWNED
from memory.longterm import CannotResolve, ConflictAction, resolve_conflict
from memory.models import LongTermMemory, MemoryConflict
from tests.factories import CustomerFactory

pytestmark = pytest.mark.django_db(transaction=True)

CORPUS = json.loads((Path(__file__).parent / "data" / "shop_keys_tests.json").read_text())
KEYS = list(SHOP_OWNED)
QUESTIONS = {
    "shipping_address": {"en": "What shipping address do you have for me?", "zh": "我的收货地址是什么？"},
    "notification_preference": {"en": "Are my notifications muted?", "zh": "我的通知设置是什么？"},
    "contact_channel": {"en": "How will you contact me?", "zh": "你们会怎么联系我？"},
}
SAY = {
    "yes": {"en": "yes", "zh": "确认"},
    "no": {"en": "no", "zh": "不用了"},
    "topic": {"en": "What is your returns policy?", "zh": "退货政策是什么？"},
}
NOT_APPLIED = {"en": "has not been applied", "zh": "尚未生效"}
START = {"en": "1 Start Road, Leeds LS1 1AA", "zh": "上海市黄浦区南京东路1号"}
_usernames = itertools.count()


class ShopTruth(RuleBasedStateMachine):
    @initialize(lang=st.sampled_from(["en", "zh"]))
    def a_customer(self, lang: str) -> None:
        self.lang = lang
        self.user = CustomerFactory(
            username=f"truth{next(_usernames)}",
            email="t@example.com",
            profile__display_name="T",
            profile__language="en" if lang == "en" else "zh-hans",
            profile__default_address=START[lang],
            profile__notification_preference="on",
            profile__contact_channel="email",
        )
        self.stated: dict[str, set[str]] = {key: set() for key in KEYS}
        self.conversation = short_term.store().start(self.user.pk).id

    def say(self, text: str) -> str:
        return run_turn(self.user.pk, self.conversation, text).reply

    @rule(key=st.sampled_from(KEYS), index=st.integers(0, 14))
    def state_a_new_value(self, key: str, index: int) -> None:
        item = CORPUS["statements"][key][self.lang][index]
        self.stated[key].add(item["value"])
        self.say(item["text"])

    @rule(key=st.sampled_from(KEYS), index=st.integers(0, 14), answer=st.sampled_from(["yes", "no", "topic"]))
    def state_a_new_value_and_answer(self, key: str, index: int, answer: str) -> None:
        self.state_a_new_value(key, index)
        self.answer(answer)

    @rule(answer=st.sampled_from(["yes", "no", "topic"]))
    def answer(self, answer: str) -> None:
        self.say(SAY[answer][self.lang])

    @rule(key=st.sampled_from(KEYS), index=st.integers(0, 14))
    def correct_on_the_memory_page(self, key: str, index: int) -> None:
        memory = LongTermMemory.objects.valid().filter(customer=self.user, key=key).first()
        if memory is None:
            return
        value = CORPUS["statements"][key][self.lang][index]["value"]
        form = CorrectMemoryForm({"text": value}, memory=memory)
        if form.is_valid():
            self.stated[key].add(value)
            form.save()

    @rule(accept=st.booleans())
    def staff_decide(self, accept: bool) -> None:
        waiting = MemoryConflict.objects.filter(customer=self.user, status=MemoryConflict.Status.OPEN).first()
        if waiting is None:
            return
        action = ConflictAction.ACCEPT_INCOMING if accept else ConflictAction.EDIT_AND_MERGE
        with contextlib.suppress(CannotResolve):  # a decision that no longer applies changes nothing
            resolve_conflict(
                waiting.pk,
                action,
                actor="staff:machine",
                content=waiting.incoming_content,
                value=waiting.incoming_value,
            )

    @rule(days=st.integers(1, 40))
    def days_later(self, days: int) -> None:
        consolidate(self.conversation, final=True)
        clock.advance(timedelta(days=days))
        self.conversation = short_term.store().start(self.user.pk).id

    @invariant()
    def asked_for_each_key_the_agent_gives_the_record(self) -> None:
        if not hasattr(self, "user"):
            return
        probe = short_term.store().start(self.user.pk).id
        profile = CustomerProfile.objects.get(user=self.user)
        for key, field in SHOP_OWNED.items():
            record = getattr(profile, field)
            reply = run_turn(self.user.pk, probe, QUESTIONS[key][self.lang]).reply
            assert say_value(key, record, self.lang) in reply, (key, record, reply)
            for other in self.stated[key] - {record}:
                if say_value(key, other, self.lang) in reply:
                    assert NOT_APPLIED[self.lang] in reply, (key, record, other, reply)


ShopTruth.TestCase.settings = settings(
    max_examples=8,
    stateful_step_count=10,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=list(HealthCheck),
)
test_shop_truth = ShopTruth.TestCase


@pytest.mark.parametrize(
    ("lang", "statement", "stated"),
    [
        ("en", "my new place is 9 Willow Close, Cambridge CB4 3HT", "9 Willow Close, Cambridge CB4"),
        ("zh", "搬到武汉市洪山区珞喻路1037号了", "武汉市洪山区珞喻路1037号"),
    ],
)
def test_a_remembered_statement_days_later_never_replaces_the_record(lang, statement, stated):
    machine = ShopTruth()
    machine.a_customer(lang)
    machine.say(statement)
    machine.answer("topic")  # moved on: whatever was proposed is not confirmed
    machine.days_later(3)

    reply = machine.say(QUESTIONS["shipping_address"][lang])

    assert START[lang] in reply and NOT_APPLIED[lang] in reply and stated in reply, reply
    assert CustomerProfile.objects.get(user=machine.user).default_address == START[lang]
