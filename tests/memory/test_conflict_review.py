"""Staff review of memory conflicts: each action through the policy's own writes, staff only, CSRF."""

import pytest
from django.test import Client
from django.urls import reverse

from memory.longterm import CannotResolve, ConflictAction, resolve_conflict
from memory.models import LongTermMemory, MemoryConflict, MemoryEvent
from tests.memory.test_longterm import INFERRED_SF, STATED_ZTO, put

pytestmark = pytest.mark.django_db

STATED_SF = STATED_ZTO.__class__(
    type="preference",
    key="preferred_carrier",
    value="sf_express",
    content="客户希望改用顺丰",
    confidence=0.95,
    source="customer_stated",
)


def valid_value(customer):
    return LongTermMemory.objects.valid().get(customer=customer, key="preferred_carrier").value


@pytest.fixture
def open_conflict(customer):
    put(customer, STATED_ZTO)
    put(customer, INFERRED_SF, seed=2)  # an agent inference against a statement: waits for staff
    return MemoryConflict.objects.get(status="open")


@pytest.fixture
def auto_resolved(customer):
    put(customer, STATED_ZTO)
    put(customer, STATED_SF, seed=3)  # the customer changed their mind: superseded at once
    return MemoryConflict.objects.get(status="auto_resolved")


def test_keep_current_discards_the_incoming_value(customer, open_conflict):
    resolve_conflict(open_conflict.pk, ConflictAction.KEEP_CURRENT, actor="staff:lead")

    open_conflict.refresh_from_db()
    assert (open_conflict.status, open_conflict.resolution, open_conflict.resolved_by) == (
        "resolved",
        "keep_current",
        "staff:lead",
    )
    assert valid_value(customer) == "zto"
    assert MemoryEvent.objects.filter(action="conflict_resolved", actor="staff:lead").exists()


def test_accept_incoming_supersedes_the_current_value(customer, open_conflict):
    resolve_conflict(open_conflict.pk, ConflictAction.ACCEPT_INCOMING, actor="staff:lead")

    assert valid_value(customer) == "sf_express"
    old = LongTermMemory.objects.get(customer=customer, value="zto")
    assert old.invalidated_at is not None and old.superseded_by.value == "sf_express"
    assert MemoryEvent.objects.filter(memory_id=old.pk, action="superseded", actor="staff:lead").exists()


def test_restore_reverts_an_auto_resolution(customer, auto_resolved):
    resolve_conflict(auto_resolved.pk, ConflictAction.RESTORE, actor="staff:lead")

    assert valid_value(customer) == "zto"
    assert MemoryEvent.objects.filter(action="restored", actor="staff:lead").exists()


def test_edit_and_merge_writes_staffs_text_as_a_system_record(customer, open_conflict):
    resolve_conflict(
        open_conflict.pk, ConflictAction.EDIT_AND_MERGE, actor="staff:lead", content="客户只用顺丰", value="sf_express"
    )

    current = LongTermMemory.objects.valid().get(customer=customer, key="preferred_carrier")
    assert (current.content, current.source, current.confidence) == ("客户只用顺丰", "system_record", 1.0)


def test_dismiss_changes_no_memory(customer, open_conflict):
    before = list(LongTermMemory.objects.values_list("pk", "invalidated_at", "version"))

    resolve_conflict(open_conflict.pk, ConflictAction.DISMISS, actor="staff:lead")

    assert list(LongTermMemory.objects.values_list("pk", "invalidated_at", "version")) == before
    assert MemoryConflict.objects.get(pk=open_conflict.pk).status == "dismissed"


def test_accepting_an_auto_resolved_conflict_is_refused(auto_resolved):
    with pytest.raises(CannotResolve):
        resolve_conflict(auto_resolved.pk, ConflictAction.ACCEPT_INCOMING, actor="staff:lead")


@pytest.fixture
def staff(django_user_model):
    return django_user_model.objects.create_user("reviewer", password="pw", is_staff=True, is_superuser=True)


def test_the_queue_lists_open_conflicts_first_with_both_versions(customer, open_conflict, auto_resolved, staff):
    client = Client()
    client.force_login(staff)

    page = client.get(reverse("admin:memory_memoryconflict_changelist")).content.decode()

    assert page.index("客户似乎更喜欢顺丰") < page.index("客户希望改用顺丰")  # open before auto-resolved
    assert "customer statement" in page and "agent inference" in page


def test_an_admin_action_resolves_through_the_policy(customer, open_conflict, staff):
    client = Client()
    client.force_login(staff)

    response = client.post(
        reverse("admin:memory_memoryconflict_changelist"),
        {"action": "accept_incoming", "_selected_action": [open_conflict.pk]},
    )

    assert response.status_code == 302
    assert valid_value(customer) == "sf_express"
    assert MemoryConflict.objects.get(pk=open_conflict.pk).resolved_by == "staff:reviewer"


def test_edit_and_merge_page(customer, open_conflict, staff):
    client = Client()
    client.force_login(staff)
    url = reverse("admin:memory_memoryconflict_edit_merge", args=[open_conflict.pk])

    assert client.get(url).status_code == 200
    client.post(url, {"content": "客户要用顺丰", "value": "sf_express"})

    assert valid_value(customer) == "sf_express"


def test_non_staff_and_csrf_less_posts_are_refused(customer, open_conflict, staff, django_user_model):
    plain = django_user_model.objects.create_user("someone", password="pw")
    outsider = Client()
    outsider.force_login(plain)
    changelist = reverse("admin:memory_memoryconflict_changelist")
    assert outsider.get(changelist).status_code == 302  # to the admin login
    outsider.post(changelist, {"action": "accept_incoming", "_selected_action": [open_conflict.pk]})

    checked = Client(enforce_csrf_checks=True)
    checked.force_login(staff)
    refused = checked.post(changelist, {"action": "accept_incoming", "_selected_action": [open_conflict.pk]})

    assert refused.status_code == 403
    assert MemoryConflict.objects.get(pk=open_conflict.pk).status == "open"
    assert valid_value(customer) == "zto"
