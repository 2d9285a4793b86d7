"""A conversation's recap: what the customer wanted, what was done, how it ended, within the cap, in their
language, never a transcript; one per conversation (a re-run replaces it, a look-alike keeps its own); shown
on the memory page as "our conversation on <date>", cited with its date in the memory block, erased with
the rest."""

from __future__ import annotations

import io
import re

import pytest
from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command
from django.test import Client

from chat.agent import run_turn
from chat.models import Order
from chat.privacy import erase
from memory import session as short_term
from memory.consolidation import consolidate
from memory.models import LongTermMemory
from memory.recall import Recalled, format_memory_block
from memory.tokens import count_tokens

pytestmark = pytest.mark.django_db(transaction=True)

TALK = {
    "zh": ("wang", "ORD-2025-0816", ["你好", "订单 ORD-2025-0816 我要退款，因为东西坏了", "确认", "谢谢，再见"]),
    "en": (
        "alice",
        "ORD-2025-0923",
        ["Hi", "I want a refund for ORD-2025-0923, it arrived broken", "yes", "thanks, bye"],
    ),
}
OUTCOME = {"zh": "已解决", "en": "resolved"}


@pytest.fixture
def customers(db):
    call_command("seed_demo", stdout=open("/dev/null", "w"))  # noqa: SIM115
    return {u.username: u for u in get_user_model().objects.all()}


def _talk(user, messages: list[str]) -> str:
    conversation = short_term.store().start(user.pk).id
    for text in messages:
        run_turn(user.pk, conversation, text)
    return str(conversation)


def _recaps(user, **filters):
    return LongTermMemory.objects.filter(customer=user, type="summary", **filters)


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_a_recap_names_the_order_the_amount_and_the_outcome_within_the_cap(customers, lang):
    username, number, messages = TALK[lang]
    user = customers[username]
    amount = f"{Order.objects.get(number=number).total:,.2f}"

    consolidate(_talk(user, messages), final=True)

    recap = _recaps(user).get().content
    assert number in recap and amount in recap and OUTCOME[lang] in recap, recap
    assert count_tokens(recap) <= settings.MEMORY_SUMMARY_MAX_TOKENS == 80, recap
    assert not re.search(r"(?im)^\s*(?:customer|agent|客户|客服)\s*[:：]", recap), recap
    assert bool(re.search(r"[\u4e00-\u9fff]", recap)) is (lang == "zh"), recap


OTHER_ENDINGS = {
    "zh": (
        "wang",
        "ORD-2025-0817",
        [
            (["帮我查一下ORD-2025-0817到哪了，另外以后用微信联系我"], "对话结束时未确认（未改动）"),
            (["订单ORD-2025-0817的状态", "转人工"], "已转人工"),
        ],
    ),
    "en": (
        "alice",
        "ORD-2025-0924",
        [
            (["Where is ORD-2025-0924? Also contact me on WeChat from now on"], "Not confirmed when the chat ended"),
            (["What's the status of ORD-2025-0924?", "I want to talk to a human"], "handed to our staff"),
        ],
    ),
}


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_a_recap_says_what_waits_and_who_took_over(customers, lang):
    username, number, endings = OTHER_ENDINGS[lang]
    user = customers[username]
    for messages, outcome in endings:
        conversation = _talk(user, messages)
        consolidate(conversation, final=True)
        recap = _recaps(user, source_conversation_id=conversation).get().content
        assert number in recap and outcome in recap, recap
        assert count_tokens(recap) <= settings.MEMORY_SUMMARY_MAX_TOKENS, recap


def test_two_alike_conversations_keep_two_recaps_and_a_rerun_replaces_its_own(customers):
    username, _, messages = TALK["en"]
    user = customers[username]
    first, second = _talk(user, messages[:2]), _talk(user, messages[:2])

    consolidate(first, final=True)
    consolidate(second, final=True)
    assert _recaps(user, invalidated_at__isnull=True).count() == 2  # never merged, never skipped as a repeat

    run_turn(user.pk, first, "yes")  # the customer comes back to the first one
    consolidate(first, final=True)

    own = _recaps(user, source_conversation_id=first)
    assert own.count() == 2 and own.filter(invalidated_at__isnull=True).count() == 1
    replaced = own.get(invalidated_at__isnull=False)
    assert replaced.superseded_by == own.get(invalidated_at__isnull=True)
    assert _recaps(user, source_conversation_id=second, invalidated_at__isnull=True).count() == 1


def test_the_memory_page_and_the_memory_block_say_which_conversation(customers):
    username, number, messages = TALK["en"]
    user = customers[username]
    consolidate(_talk(user, messages), final=True)
    recap = _recaps(user).get()

    client = Client()
    client.force_login(user)
    page = client.get("/memory/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    recalled = Recalled(
        recap.pk, "summary", "", "", recap.content, recap.confidence, recap.source, 1.0, created_at=recap.created_at
    )
    block = format_memory_block([recalled], "en")

    assert "Our conversation on" in page and number in page
    assert f"Our conversation on {recap.created_at:%Y-%m-%d}: {recap.content}" in block


def test_erasure_removes_the_recaps(customers):
    username, _, messages = TALK["zh"]
    user = customers[username]
    consolidate(_talk(user, messages), final=True)
    assert _recaps(user).exists()

    erase(user)

    assert not _recaps(user).exists()


def test_old_transcript_recaps_are_rewritten_by_the_command(customers):
    username, number, messages = TALK["en"]
    user = customers[username]
    conversation = _talk(user, messages)
    consolidate(conversation, final=True)
    _recaps(user).update(content=f"customer: {messages[1]}\nagent: ok (conversation ended: resolved)")
    out = io.StringIO()

    call_command("recap_conversations", "--dry-run", stdout=out)
    call_command("recap_conversations", stdout=out)
    call_command("recap_conversations", stdout=out)  # nothing old is left

    assert out.getvalue().splitlines() == [
        "1 conversation(s) would get a new recap.",
        "1 conversation(s): 1 superseded.",
        "0 conversation(s): nothing to do.",
    ]
    current = _recaps(user, invalidated_at__isnull=True).get().content
    assert number in current and "customer:" not in current
    with pytest.raises(CommandError, match="no customer called 'nobody'"):
        call_command("recap_conversations", "--customer", "nobody")
