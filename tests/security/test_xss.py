"""Memory and message text is escaped on every page that shows it: the customer's, the staff console, the admin."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse

from chat.models import CustomerProfile
from tests.security.footprint import leave_footprint
from tests.security.test_access import staff_urls

pytestmark = pytest.mark.django_db

PAYLOAD = '<script>alert("m")</script><img src=x onerror=alert(1)>"><svg onload=alert(2)>'
RAW = ["<script>alert", "<img src=x", "<svg onload", '"><svg']
ESCAPED = "&lt;script&gt;alert("


def assert_escaped(html: str, url: str, *, shown: bool) -> None:
    for fragment in RAW:
        assert fragment not in html, (url, fragment)
    if shown:
        assert ESCAPED in html, url  # the text is on the page, as text


def test_memory_and_message_text_is_escaped_on_every_page(make_customer):
    user, order = make_customer(display_name=PAYLOAD)
    footprint = leave_footprint(user, order, PAYLOAD)
    customer = Client()
    customer.force_login(user)
    staff = Client()
    staff.force_login(get_user_model().objects.create_user("lead", password="x", is_staff=True, is_superuser=True))
    # Pages whose job is to show the customer's text: it must be there, escaped.
    showing = {
        reverse("memories"),
        reverse("staff-conversation", args=[footprint.handoff.conversation_id]),
        reverse("admin:memory_longtermmemory_changelist"),
        reverse("admin:memory_longtermmemory_change", args=[footprint.memory.pk]),
        reverse("admin:memory_memoryconflict_changelist"),
        reverse("admin:memory_memoryconflict_edit_merge", args=[footprint.conflict.pk]),
        reverse("admin:memory_conversation_change", args=[footprint.conversation_id]),
        reverse("admin:chat_refund_changelist"),
        reverse("admin:chat_pendingaction_changelist"),
        reverse("admin:chat_customerprofile_changelist"),
    }
    pages = {reverse("chat"): customer, reverse("memories"): customer}
    pages.update(dict.fromkeys(staff_urls(footprint), staff))
    # staff_urls opens the first row of each model by primary key; conversations have random UUIDs, so
    # the footprint's transcript is not always that row: open it explicitly.
    pages[reverse("admin:memory_conversation_change", args=[footprint.conversation_id])] = staff
    for model_admin in ("memory_memoryevent", "memory_statetransition", "chat_order", "chat_refund"):
        pages[reverse(f"admin:{model_admin}_changelist") + f"?q={user.username}"] = staff

    assert showing <= set(pages)
    for url, client in pages.items():
        response = client.get(url, HTTP_ACCEPT_LANGUAGE="en")
        if url.endswith("/add/") and response.status_code == 403:  # read-only models have no add page
            continue
        assert response.status_code == 200, url
        assert_escaped(response.content.decode(), url, shown=url in showing)


def test_a_memory_corrected_to_markup_is_shown_escaped(make_customer):
    user, order = make_customer()
    footprint = leave_footprint(user, order, "likes tea")
    CustomerProfile.objects.filter(user=user).update(display_name="plain")
    customer = Client()
    customer.force_login(user)

    response = customer.post(
        reverse("memory-correct", args=[footprint.memory.pk]), {"text": "03-16 " + PAYLOAD[:200]}, follow=True
    )

    assert response.status_code in (200, 400)
    assert_escaped(response.content.decode(), "after correction", shown=False)
