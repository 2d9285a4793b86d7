"""A change the customer turned down is not remembered as one they asked for.

Said in chat, a new address, notification setting or contact channel is a request (``memory.keys.SHOP_OWNED``:
the shop's field is the truth) and the agent proposes it. If the customer says no, or asks for another value
instead, the request is withdrawn: later the agent must not say "you asked for X, but it has not been
applied", which would tell the customer they want what they declined. A proposal that merely lapsed stays a
request (``test_shop_truth_machine``): the customer never said no to it.
"""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path

import pytest

from agentsite import clock
from agentsite.offline_model.replies import say_value
from chat.agent import run_turn
from chat.models import CustomerProfile, PendingAction
from memory import session as short_term
from memory.consolidation import consolidate
from memory.keys import normalise
from memory.models import LongTermMemory
from tests.chat.test_shop_truth_machine import QUESTIONS  # the same question per key, asked as there
from tests.factories import CustomerFactory

pytestmark = pytest.mark.django_db(transaction=True)

CORPUS = json.loads((Path(__file__).parent / "data" / "shop_keys_tests.json").read_text())
RECORD = {
    "shipping_address": {"en": "1 Start Road, Leeds LS1 1AA", "zh": "上海市黄浦区南京东路1号"},
    "notification_preference": {"en": "on", "zh": "on"},
    "contact_channel": {"en": "email", "zh": "email"},
}
NO = {"en": "no, leave it as it is", "zh": "不用了，还是保持原样吧"}
YES = {"en": "yes", "zh": "确认"}


def _customer(lang: str, name: str):
    return CustomerFactory(
        username=name,
        profile__language="en" if lang == "en" else "zh-hans",
        profile__default_address=RECORD["shipping_address"][lang],
        profile__notification_preference="on",
        profile__contact_channel="email",
    )


def _proposed(user, conversation, key: str, lang: str, index: int) -> str:
    """Say a new value of ``key`` (from the corpus, other than the record's): the value the agent proposed."""
    items = [item for item in CORPUS["statements"][key][lang] if item["value"] != RECORD[key][lang]]
    run_turn(user.pk, conversation, items[index % len(items)]["text"])
    action = PendingAction.objects.filter(conversation_id=conversation, status="pending").first()
    assert action is not None  # it was proposed
    return normalise(key, next(iter(action.arguments.values())))


def _asked_later(user, conversation, key: str, lang: str) -> str:
    consolidate(conversation, final=True)
    clock.advance(timedelta(days=3))
    return run_turn(user.pk, short_term.store().start(user.pk).id, QUESTIONS[key][lang]).reply


def _requests(user, key: str) -> set[str]:
    rows = LongTermMemory.objects.valid().filter(customer=user, key=key).exclude(source="system_record")
    return set(rows.values_list("value", flat=True))


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("key", ["shipping_address", "notification_preference", "contact_channel"])
def test_a_declined_change_is_not_quoted_back_as_asked_for(lang, key):
    user = _customer(lang, f"declined-{key}-{lang}")
    conversation = short_term.store().start(user.pk).id
    stated = _proposed(user, conversation, key, lang, 2)

    run_turn(user.pk, conversation, NO[lang])
    reply = _asked_later(user, conversation, key, lang)

    assert say_value(key, RECORD[key][lang], lang) in reply, reply
    assert say_value(key, stated, lang) not in reply, reply
    assert _requests(user, key) == set()


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_request_remembered_before_the_no_is_withdrawn_by_it(lang):
    """Consolidation may run while the change waits (every N messages): the no withdraws what it stored."""
    user = _customer(lang, f"early-{lang}")
    conversation = short_term.store().start(user.pk).id
    stated = _proposed(user, conversation, "shipping_address", lang, 1)
    consolidate(conversation)
    assert _requests(user, "shipping_address") == {stated}

    run_turn(user.pk, conversation, NO[lang])

    assert _requests(user, "shipping_address") == set()
    reply = run_turn(user.pk, conversation, QUESTIONS["shipping_address"][lang]).reply
    assert stated not in reply, reply


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_change_replaced_by_another_is_withdrawn_and_the_other_applies(lang):
    user = _customer(lang, f"replaced-{lang}")
    conversation = short_term.store().start(user.pk).id
    first = _proposed(user, conversation, "shipping_address", lang, 2)
    second = _proposed(user, conversation, "shipping_address", lang, 5)
    run_turn(user.pk, conversation, YES[lang])
    assert CustomerProfile.objects.get(user=user).default_address == second

    reply = _asked_later(user, conversation, "shipping_address", lang)

    assert second in reply and first not in reply, reply
    assert _requests(user, "shipping_address") == set()


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_change_that_lapsed_is_still_a_request(lang):
    """The customer moved on without answering: what they asked for is kept, and named as not applied."""
    user = _customer(lang, f"lapsed-{lang}")
    conversation = short_term.store().start(user.pk).id
    stated = _proposed(user, conversation, "shipping_address", lang, 12)
    run_turn(user.pk, conversation, "What is your returns policy?" if lang == "en" else "退货政策是什么？")

    reply = _asked_later(user, conversation, "shipping_address", lang)

    assert stated in reply and RECORD["shipping_address"][lang] in reply, reply
    assert _requests(user, "shipping_address") == {stated}


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_change_that_lapsed_as_another_value_was_asked_for_is_withdrawn(lang):
    """Round 18: "yes - oh wait, actually make it 11 Downing Street, not 10" after a question in between lapsed the
    first proposal rather than replacing it, and the next chat said "You asked for 10 Downing Street…"."""
    user = _customer(lang, f"corrected-{lang}")
    conversation = short_term.store().start(user.pk).id
    first = _proposed(user, conversation, "shipping_address", lang, 2)
    run_turn(user.pk, conversation, "What is your returns policy?" if lang == "en" else "退货政策是什么？")
    second = _proposed(user, conversation, "shipping_address", lang, 5)
    assert PendingAction.objects.get(conversation_id=conversation, arguments__address=first).status == "lapsed"
    run_turn(user.pk, conversation, YES[lang])

    reply = _asked_later(user, conversation, "shipping_address", lang)

    assert second in reply and first not in reply, reply
    assert _requests(user, "shipping_address") == set()
