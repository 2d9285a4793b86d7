"""Asked in chat to change an address, a notification setting or a contact channel, the agent never proposes
another value or another setting than the one asked for.

A proposal names the change and the customer confirms it, so a misread value would become the shop's
record on a reflexive "yes". The messages were written blind, without the rules, by people playing customers
(``data/shop_keys_tests.json`` and two later sets); each goes through the real turn with the offline model.
A message not understood proposes nothing, which is allowed here: how many are understood is measured in
docs/offline-model.md ("Changes of address, notifications and channel").
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from chat.agent import run_turn
from chat.models import PendingAction
from memory import session as short_term
from memory.keys import normalise
from tests.factories import CustomerFactory

pytestmark = pytest.mark.django_db(transaction=True)

DATA = Path(__file__).parent / "data"
SETS = {
    "shop_keys": json.loads((DATA / "shop_keys_tests.json").read_text())["statements"],
    "blind_1": json.loads((DATA / "profile_changes_blind_1.json").read_text()),
    "blind_2": json.loads((DATA / "profile_changes_blind_2.json").read_text()),
}
TOOL = {
    "shipping_address": "update_shipping_address",
    "notification_preference": "update_notification_preference",
    "contact_channel": "update_contact_channel",
}
START = {"en": "1 Start Road, Leeds LS1 1AA", "zh": "上海市黄浦区南京东路1号"}


def proposed(key: str, lang: str, item: dict[str, str], n: int) -> tuple[str, str] | None:
    """The (tool, value) the agent proposed for one message, from a customer whose record differs from it."""
    user = CustomerFactory(
        username=f"reader{n}",
        profile__language="en" if lang == "en" else "zh-hans",
        profile__default_address=START[lang],
        profile__notification_preference="on" if item["value"] == "mute" else "mute",
        profile__contact_channel="sms" if item["value"] == "email" else "email",
    )
    conversation = short_term.store().start(user.pk).id
    run_turn(user.pk, conversation, item["text"])
    action = PendingAction.objects.filter(customer=user).order_by("created_at").first()
    if action is None:
        return None
    value = next(iter(action.arguments.values()))
    return action.tool, normalise(key, value) if action.tool == TOOL[key] else str(value)


@pytest.mark.parametrize("name", list(SETS))
def test_no_message_proposes_another_value_than_the_one_asked_for(name):
    wrong = []
    for n, (key, lang, item) in enumerate(
        (key, lang, item) for key, by_lang in SETS[name].items() for lang, items in by_lang.items() for item in items
    ):
        got = proposed(key, lang, item, n)
        if got is not None and got != (TOOL[key], normalise(key, item["value"])):
            wrong.append((item["text"], got))
    assert wrong == []
