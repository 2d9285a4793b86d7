"""The read-only admin of transcripts and transitions."""

from __future__ import annotations

import pytest
from django.urls import reverse

from memory.states import AgentState
from memory.working import Role
from tests.factories import entry

pytestmark = pytest.mark.django_db


@pytest.fixture
def staff_client(client, django_user_model):
    staff = django_user_model.objects.create_superuser(username="staff", password="pw-for-tests")
    client.force_login(staff)
    return client


@pytest.fixture
def two_conversations(store, make_customer):
    calm, looping = make_customer(), make_customer()
    quiet = store.start(calm.pk)
    store.append(quiet.id, entry(Role.USER, "where is ORD-2025-0816?"))
    store.transition(quiet.id, AgentState.COLLECTING_INFO, "a quiet question")
    loop = store.start(looping.pk)
    store.transition(loop.id, AgentState.COLLECTING_INFO, "order question")
    for i in range(4):
        store.transition(loop.id, AgentState.PROCESSING, f"try {i}")
        store.transition(loop.id, AgentState.COLLECTING_INFO, f"missing {i}")
    store.append(quiet.id, entry(Role.USER, "hello again"))  # the quiet one is the most recently updated
    return quiet, loop


def test_loop_flagged_conversations_come_first(staff_client, two_conversations):
    quiet, loop = two_conversations

    response = staff_client.get(reverse("admin:memory_conversation_changelist"))

    body = response.content.decode()
    assert response.status_code == 200
    assert body.index(str(loop.id)) < body.index(str(quiet.id))


def test_conversations_filter_by_customer(staff_client, two_conversations):
    quiet, loop = two_conversations

    response = staff_client.get(
        reverse("admin:memory_conversation_changelist"), {"customer__id__exact": quiet.customer_id}
    )

    assert str(quiet.id) in response.content.decode() and str(loop.id) not in response.content.decode()


def test_a_transcript_shows_its_messages(staff_client, two_conversations):
    quiet, _ = two_conversations

    response = staff_client.get(reverse("admin:memory_conversation_change", args=[quiet.id]))

    assert response.status_code == 200
    assert "where is ORD-2025-0816?" in response.content.decode() and "hello again" in response.content.decode()


def test_transitions_filter_by_conversation_and_customer(staff_client, two_conversations):
    quiet, loop = two_conversations
    url = reverse("admin:memory_statetransition_changelist")

    by_conversation = staff_client.get(url, {"conversation__id__exact": str(loop.id)})
    by_customer = staff_client.get(url, {"customer__id__exact": quiet.customer_id})

    assert by_conversation.status_code == 200 and "loop: " in by_conversation.content.decode()
    assert by_customer.status_code == 200
    assert "a quiet question" in by_customer.content.decode() and "loop: " not in by_customer.content.decode()


def test_the_admin_is_read_only(staff_client, two_conversations):
    quiet, _ = two_conversations

    assert staff_client.get(reverse("admin:memory_conversation_add")).status_code == 403
    assert staff_client.get(reverse("admin:memory_statetransition_add")).status_code == 403
    assert staff_client.post(reverse("admin:memory_conversation_delete", args=[quiet.id])).status_code == 403
