"""Secrets typed into any entry point other than the chat never reach a row: forms, staff, tools, transitions.

The chat's own path (messages, memories, the model's requests) is tested in
tests/chat/test_privacy_redaction.py; this covers what people write elsewhere, in the formats the
first redaction missed (dots, mixed spaces, spaced ID numbers, passports, IBANs, security codes).
Each secret goes in through the real view or function, then every text of every table is searched.
"""

from __future__ import annotations

import json
import re

import pytest
from django.apps import apps
from django.contrib.auth import get_user_model
from django.db import connection
from django.test import Client

from agentsite import clock
from chat import handoff
from chat.tools import ToolContext, propose_change
from memory.embeddings import get_embedder
from memory.longterm import Candidate, insert
from memory.session import SessionStore
from memory.working import Entry, Role
from tests.factories import CustomerFactory

pytestmark = pytest.mark.django_db(transaction=True)

# Each secret as it is typed, and what must not survive of it anywhere, separators and case ignored.
SECRETS = {
    "dotted card": ("4111.1111.1111.1111", "4111111111111111"),
    "mixed spaces card": ("5500 0055  5555 5559", "5500005555555559"),
    "spaced ID": ("110105 19491231 002X", "11010519491231002X"),
    "passport": ("passport E12345678", "E12345678"),
    "IBAN": ("GB82 WEST 1234 5698 7654 32", "GB82WEST12345698765432"),
    "CVV": ("CVV 737", "CVV737"),  # three digits alone occur in any dump: the value beside its word
}
TEXT = "; ".join(typed for typed, _ in SECRETS.values())


def _squeezed(text: str) -> str:
    return re.sub(r"[^0-9A-Z]", "", text.upper())


def leaks_in_database() -> list[str]:
    tables = set(connection.introspection.table_names())  # not a model another test module declares for itself
    models = [m for m in apps.get_models() if m._meta.db_table in tables]
    everything = _squeezed(
        "\n".join(json.dumps(list(m.objects.values()), default=str, ensure_ascii=False) for m in models)
    )
    return [name for name, (_, needle) in SECRETS.items() if needle in everything]


@pytest.fixture
def customer():
    return CustomerFactory(username="typist", password="x", profile__display_name="Typist")


def test_nothing_written_anywhere_keeps_a_secret(customer):
    store = SessionStore()
    client = Client()
    client.force_login(customer)
    staff = get_user_model().objects.create_superuser(username="ops", password="x", email="o@example.com")
    staff_client = Client()
    staff_client.force_login(staff)

    # The customer: a rating comment, a correction of a memory on "what we remember".
    rated = store.start(customer.pk)
    status = client.post(
        "/rating/", json.dumps({"conversation_id": str(rated.id), "score": 3, "comment": TEXT}), "application/json"
    ).status_code
    assert status == 200
    text = "The customer prefers parcels left at the door"
    memory = insert(
        customer.pk,
        Candidate(type="preference", content=text, confidence=0.8),
        get_embedder().embed_passages([text])[0],
        actor="test",
        now=clock.now(),
    )
    assert client.post(f"/memory/{memory.pk}/correct/", {"text": f"door, {TEXT}"}).status_code == 302

    # A tool the model called with the customer's words, and a transition whose reason quotes them.
    proposed = store.start(customer.pk)
    store.transition(proposed.id, "processing", "test starts in processing")
    context = ToolContext(customer_id=customer.pk, conversation_id=proposed.id, language="en", store=store)
    change = {"address": f"5 Elm St, {TEXT}"}
    propose_change(context, "update_shipping_address", change, change)
    store.transition(proposed.id, "escalated", f"escalate_to_human: {TEXT}")

    # Staff: the handoff packet of that escalation, a reply, and a resolution kept as a memory.
    store.append(proposed.id, Entry.create(Role.USER, "a person please", timestamp=memory.created_at))
    handoff.open_handoff(proposed.id)
    staff_client.post(f"/staff/{proposed.id}/take/")
    assert staff_client.post(f"/staff/{proposed.id}/reply/", {"text": f"We have {TEXT}"}).status_code == 302
    assert staff_client.post(f"/staff/{proposed.id}/close/", {"resolution": f"Settled: {TEXT}"}).status_code == 302

    assert leaks_in_database() == []
