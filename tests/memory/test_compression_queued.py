"""A live conversation gets compressed: the turn queues compression once a chunk is due."""

import pytest

from agentsite import clock
from agentsite.celery import app
from chat.agent import run_turn
from memory import session as short_term
from memory.models import CompressionSummary, Conversation
from memory.working import Entry, Role
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def eager():
    """Run queued tasks inline: this test is about the turn queueing compression, not the worker."""
    before = app.conf.task_always_eager
    app.conf.task_always_eager = True
    yield
    app.conf.task_always_eager = before


def test_a_turn_past_the_threshold_compresses_the_session(eager, settings):

    settings.MEMORY_RECALL_MODE = "off"  # no consolidation: only compression runs inline
    customer = UserFactory(username="talkative")
    store = short_term.store()
    conversation = store.start(customer.pk).id
    for number in range(store.compression.compress_after + store.compression.keep_recent // 2):
        role = Role.USER if number % 2 == 0 else Role.ASSISTANT
        store.append(
            conversation, Entry.create(role, f"message {number} about my blue umbrella", timestamp=clock.now())
        )
    assert not CompressionSummary.objects.filter(conversation_id=conversation).exists()

    run_turn(customer.pk, conversation, "What is the refund policy?")

    summaries = CompressionSummary.objects.filter(conversation_id=conversation).order_by("first_seq")
    assert summaries.exists()
    history = store.history(conversation)  # what the next turn builds working memory from
    assert history[0].metadata.get("kind") == "summary"
    assert history[0].metadata["last_seq"] == summaries.last().last_seq
    last_seq = Conversation.objects.get(pk=conversation).last_seq
    assert last_seq - summaries.last().last_seq >= store.compression.keep_recent  # the latest messages stay verbatim
    assert len(history) == 1 + last_seq - summaries.last().last_seq


def test_what_was_said_before_the_compressed_part_is_still_answered(eager, settings):

    settings.MEMORY_RECALL_MODE = "off"  # only this conversation is known: the answer must come from it
    customer = UserFactory(username="forgetful")
    store = short_term.store()
    conversation = store.start(customer.pk).id
    said = ["My phone number is 07700 900321", "Order ORD-2025-0816 is the kettle, where is it now?"]
    for number in range(store.compression.compress_after + store.compression.keep_recent // 2):
        text = said[number // 2] if number < 4 and number % 2 == 0 else f"message {number} about the weather"
        role = Role.USER if number % 2 == 0 else Role.ASSISTANT
        store.append(conversation, Entry.create(role, text, timestamp=clock.now()))
    run_turn(customer.pk, conversation, "thanks")  # queues compression: the first messages are digested
    assert store.history(conversation)[0].metadata.get("kind") == "summary"

    phone = run_turn(customer.pk, conversation, "What's my phone number?")
    kettle = run_turn(customer.pk, conversation, "What was the order number for the kettle?")

    assert "07700900321" in phone.reply
    assert "ORD-2025-0816" in kettle.reply
