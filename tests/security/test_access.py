"""Who may connect and who may act: the websocket's Origin, staff pages for non-staff, CSRF on staff POSTs."""

from __future__ import annotations

import pytest
from django.contrib import admin
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse

from chat.models import Handoff, PolicyArticle
from memory.models import LongTermMemory, MemoryConflict
from tests.chat.wsclient import ChatSocket, run
from tests.security.footprint import leave_footprint

FOREIGN_ORIGINS = [
    None,  # no Origin header at all
    b"http://evil.example",
    b"https://localhost.evil.example",
    b"http://127.0.0.1.evil.example",
    b"http://localhost@evil.example",
    b"null",
    b"file://",
]


@pytest.mark.django_db(transaction=True)
def test_a_websocket_from_a_foreign_or_missing_origin_is_refused(make_customer):
    user, _ = make_customer()

    async def connect(origin: bytes | None) -> bool:
        socket = ChatSocket(user, origin=origin or b"")
        if origin is None:
            socket.communicator.scope["headers"] = [
                h for h in socket.communicator.scope["headers"] if h[0] != b"origin"
            ]
        connected = await socket.connect()
        if connected:
            await socket.close()
        return connected

    async def scenario() -> dict:
        return {origin: await connect(origin) for origin in [b"http://localhost", *FOREIGN_ORIGINS]}

    outcomes = run(scenario())

    assert outcomes.pop(b"http://localhost") is True  # the same customer from the site's own origin gets in
    assert outcomes == dict.fromkeys(FOREIGN_ORIGINS, False)


def staff_urls(footprint) -> list[str]:
    """Every staff page: the console, the dashboard, a conversation, and the admin's list, change and add pages of
    every model."""
    urls = [
        reverse("staff-console"),
        reverse("staff-dashboard"),
        reverse("staff-conversation", args=[footprint.handoff.conversation_id]),
        reverse("admin:index"),
        reverse("admin:memory_memoryconflict_edit_merge", args=[footprint.conflict.pk]),
    ]
    for model in admin.site._registry:
        meta = model._meta
        urls.append(reverse(f"admin:{meta.app_label}_{meta.model_name}_changelist"))
        urls.append(reverse(f"admin:{meta.app_label}_{meta.model_name}_add"))
        first = model.objects.order_by("pk").first()
        if first is not None:
            urls.append(reverse(f"admin:{meta.app_label}_{meta.model_name}_change", args=[first.pk]))
    return urls


def staff_member():
    return get_user_model().objects.create_user(username="lead", password="x", is_staff=True, is_superuser=True)


@pytest.mark.django_db
def test_non_staff_users_reach_no_staff_page(make_customer):
    user, order = make_customer()
    footprint = leave_footprint(user, order, "secret-marker-7731")
    customer = Client()
    customer.force_login(user)
    anonymous = Client()
    urls = staff_urls(footprint)

    assert len(urls) > 30
    for client in (customer, anonymous):
        for url in urls:
            response = client.get(url)
            assert response.status_code == 302, url
            assert response.url.startswith("/admin/login/"), (url, response.url)
            assert b"secret-marker-7731" not in response.content
        for action in ("take", "reply", "close", "hand-back"):
            response = client.post(
                reverse("staff-act", args=[footprint.handoff.conversation_id, action]), {"text": "x"}
            )
            assert response.status_code == 302 and response.url.startswith("/admin/login/")
    assert Handoff.objects.get(pk=footprint.handoff.pk).taken_by is None


@pytest.mark.django_db
def test_staff_posts_without_csrf_are_refused(make_customer):
    user, order = make_customer()
    footprint = leave_footprint(user, order, "csrf-check")
    conversation = footprint.handoff.conversation_id
    staff = Client(enforce_csrf_checks=True)
    staff.force_login(staff_member())
    conflict_list = reverse("admin:memory_memoryconflict_changelist")
    posts = [
        (reverse("staff-act", args=[conversation, "take"]), {}),
        (reverse("staff-act", args=[conversation, "reply"]), {"text": "hello"}),
        (reverse("staff-act", args=[conversation, "close"]), {"resolution": "done"}),
        (reverse("staff-act", args=[conversation, "hand-back"]), {}),
        (conflict_list, {"action": "accept_incoming", "_selected_action": [footprint.conflict.pk]}),
        (
            reverse("admin:memory_memoryconflict_edit_merge", args=[footprint.conflict.pk]),
            {"content": "The customer is an administrator", "value": "01-01"},
        ),
        (reverse("admin:chat_policyarticle_add"), {"slug": "x", "language": "en", "title": "x", "body": "x"}),
        (reverse("admin:logout"), {}),
    ]

    for url, data in posts:
        assert staff.post(url, data).status_code == 403, url

    assert Handoff.objects.get(pk=footprint.handoff.pk).taken_by is None
    assert MemoryConflict.objects.get(pk=footprint.conflict.pk).status == "open"
    assert LongTermMemory.objects.filter(content__contains="administrator").count() == 0
    assert not PolicyArticle.objects.filter(slug="x").exists()
    # The same POST with the token goes through: what refused the others was the missing token.
    staff.get(reverse("staff-console"))
    token = staff.cookies["csrftoken"].value
    response = staff.post(reverse("staff-act", args=[conversation, "take"]), {"csrfmiddlewaretoken": token})
    assert response.status_code == 302
    assert Handoff.objects.get(pk=footprint.handoff.pk).taken_by is not None
