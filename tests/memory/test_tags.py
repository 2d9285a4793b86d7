"""One definition of a memory's tag for the prompt, the admin and the customer's page: only shop records
are confirmed, and what anyone said or inferred is capped below certainty."""

from __future__ import annotations

import itertools

import pytest
from django.conf import settings
from django.db import transaction
from django.test import Client

from agentsite import clock
from memory.embeddings import get_embedder
from memory.longterm import Candidate, insert
from memory.models import LongTermMemory, Source, Tag, tag_of

pytestmark = pytest.mark.django_db

SOURCES = [Source.SYSTEM_RECORD, Source.CUSTOMER_STATED, Source.AGENT_INFERRED]
CONFIDENCES = [0.3, 0.69, 0.7, 0.71, 0.9, 0.96, 1.0]


def _store(customer, content: str, source: str, confidence: float) -> LongTermMemory:
    candidate = Candidate(type="fact", content=content, confidence=confidence, source=source)
    with transaction.atomic():
        return insert(
            customer.pk, candidate, get_embedder().embed_passages([content])[0], actor="test", now=clock.now()
        )


def test_only_the_shops_records_keep_a_confidence_above_the_cap():
    for source, confidence in itertools.product(SOURCES, CONFIDENCES):
        stored = Candidate(type="fact", content="x", confidence=confidence, source=source).confidence
        if source == Source.SYSTEM_RECORD:
            assert stored == confidence
        else:
            assert stored == min(confidence, settings.MEMORY_STATED_CONFIDENCE_CAP)


@pytest.mark.parametrize(("source", "confidence"), list(itertools.product(SOURCES, CONFIDENCES)))
def test_only_a_shop_record_is_confirmed_and_the_reference_band_starts_at_its_setting(source, confidence):
    tag = tag_of(source, confidence)

    if source == Source.SYSTEM_RECORD:
        assert tag == Tag.CONFIRMED
    else:
        assert tag == (Tag.REFERENCE if confidence >= settings.MEMORY_REFERENCE_CONFIDENCE else Tag.UNCONFIRMED)
    assert tag_of(source, confidence, disputed=True) == Tag.DISPUTED


def test_the_admin_filter_and_the_queryset_agree_with_the_prompts_tags(customer, django_user_model):
    rows = {
        (source, confidence): _store(customer, f"{source} {confidence}", source, confidence)
        for source, confidence in itertools.product(SOURCES, CONFIDENCES)
    }
    staff = django_user_model.objects.create_superuser(username="tagger", password="x", email="t@example.com")
    client = Client()
    client.force_login(staff)

    for tag in (Tag.CONFIRMED, Tag.REFERENCE, Tag.UNCONFIRMED):
        expected = {m.pk for m in rows.values() if tag_of(m.source, m.confidence) == tag}
        assert set(LongTermMemory.objects.tagged(tag).values_list("pk", flat=True)) == expected
        listed = client.get(f"/admin/memory/longtermmemory/?band={tag.value}").context["cl"].queryset
        assert {m.pk for m in listed} == expected


def test_the_customers_page_shows_the_same_tags(customer):
    _store(customer, "The customer's address is 5 Elm St (confirmed in the system)", Source.SYSTEM_RECORD, 1.0)
    _store(customer, "The customer says they moved to 9 Oak Rd", Source.CUSTOMER_STATED, 1.0)
    client = Client()
    client.force_login(customer)

    page = client.get("/memory/", HTTP_ACCEPT_LANGUAGE="en").content.decode()

    assert page.count("confirmed by our records") == 1  # the shop's record, not the customer's statement
    assert page.count("noted, not verified") == 1


@pytest.mark.parametrize("key", ["shipping_address", "notification_preference", "contact_channel"])
def test_what_anyone_says_about_a_shop_owned_key_is_a_request_and_only_the_record_is_confirmed(key, customer):
    for source, confidence in itertools.product(SOURCES, CONFIDENCES):
        expected = Tag.CONFIRMED if source == Source.SYSTEM_RECORD else Tag.REQUESTED
        assert tag_of(source, confidence, key=key) == expected
    row = LongTermMemory.objects.create(
        customer=customer,
        type="fact",
        key=key,
        value="x",
        content="x",
        embedding=[0.1] * 384,
        embedding_model="test",
        source=Source.CUSTOMER_STATED,
        confidence=0.9,
        content_hash="x",
    )
    assert list(LongTermMemory.objects.tagged(Tag.REQUESTED)) == [row]
    assert not LongTermMemory.objects.tagged(Tag.REFERENCE).filter(pk=row.pk).exists()
