"""The read-only admin of long-term memory: filtered by customer, no embedding, history shown."""

from datetime import timedelta

import pytest
from django.urls import reverse

from agentsite import clock
from memory.consolidation import consolidate, due_for_consolidation, needs_consolidation
from memory.models import Conversation, LongTermMemory
from tests.memory.test_consolidation import converse

pytestmark = pytest.mark.django_db


@pytest.fixture
def staff_client(client, django_user_model):
    admin = django_user_model.objects.create_superuser("lead", password="pw-for-tests")
    client.force_login(admin)
    return client


def test_memory_list_filtered_by_customer_shows_only_that_customer(staff_client, store, make_customer):
    alice, bob = make_customer(), make_customer()
    consolidate(converse(store, alice, "我的生日是3月15日"))
    consolidate(converse(store, bob, "我的生日是5月13日"))

    page = staff_client.get(reverse("admin:memory_longtermmemory_changelist"), {"customer__id__exact": alice.pk})

    body = page.content.decode()
    assert page.status_code == 200
    assert "3月15日" in body and "5月13日" not in body


def test_memory_detail_hides_the_embedding_and_shows_the_history(staff_client, store, customer):
    consolidate(converse(store, customer, "我的生日是3月15日"))
    consolidate(converse(store, customer, "My birthday is March 15th", days_later=1))
    memory = LongTermMemory.objects.get()

    body = staff_client.get(reverse("admin:memory_longtermmemory_change", args=[memory.pk])).content.decode()

    assert "embedding" not in body.replace("embedding_model", "").replace("Embedding model", "")
    assert "merged" in body and "created" in body


def test_memory_admin_is_read_only_and_staff_only(client, staff_client, store, customer):
    consolidate(converse(store, customer, "我的生日是3月15日"))
    memory = LongTermMemory.objects.get()

    assert staff_client.post(reverse("admin:memory_longtermmemory_delete", args=[memory.pk])).status_code == 403
    client.logout()
    assert client.get(reverse("admin:memory_longtermmemory_changelist")).status_code == 302  # to the login page


def test_the_sweep_takes_conversations_quiet_past_the_idle_time(store, customer, settings):
    conversation = converse(store, customer, "我对花生过敏")

    clock.advance(timedelta(minutes=settings.MEMORY_SWEEP_IDLE_MINUTES - 1))
    assert due_for_consolidation() == []
    clock.advance(timedelta(minutes=2))
    assert due_for_consolidation() == [str(conversation)]

    consolidate(conversation)
    assert due_for_consolidation() == []


def test_consolidation_is_due_every_n_messages(store, customer, settings):
    settings.MEMORY_CONSOLIDATE_EVERY_MESSAGES = 4
    conversation_id = converse(store, customer, "one")  # two messages
    assert not needs_consolidation(Conversation.objects.get(pk=conversation_id))

    conversation_id = converse(store, customer, "one", "two")  # four messages
    assert needs_consolidation(Conversation.objects.get(pk=conversation_id))
