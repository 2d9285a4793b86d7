"""Provenance: each memory names the customer's message it was taken from, quoted as stored, for the
customer and for staff; erasure takes the quotes with it."""

from __future__ import annotations

import pytest
from django.test import Client

from chat import privacy
from memory.consolidation import attribute, consolidate
from memory.longterm import Candidate
from memory.models import ConversationMessage, LongTermMemory
from memory.provenance import quotes
from tests.memory.test_consolidation import converse, valid

pytestmark = pytest.mark.django_db


def test_each_memory_names_the_message_it_came_from(store, customer):
    conversation = converse(store, customer, "你好", "我的生日是3月15日", "I'm allergic to peanuts, by the way", "谢谢")

    consolidate(conversation)

    said = {m.seq: m.content for m in ConversationMessage.objects.filter(conversation_id=conversation)}
    birthday = valid(customer, key="birthday").get()
    assert [said[seq] for seq in birthday.source_seqs] == ["我的生日是3月15日"]
    allergy = valid(customer).filter(content__icontains="peanut").get()
    assert [said[seq] for seq in allergy.source_seqs] == ["I'm allergic to peanuts, by the way"]
    assert quotes([birthday])[birthday.pk].text == "我的生日是3月15日"


def test_a_paraphrase_is_attributed_by_shared_characters_and_nothing_close_is_not_quoted(store, customer):
    conversation = converse(store, customer, "我家里养了两只猫", "请问退货政策是什么")
    messages = list(ConversationMessage.objects.filter(conversation_id=conversation).order_by("seq"))

    cats = Candidate(type="fact", content="客户家里养了两只猫", confidence=0.8)
    unrelated = Candidate(type="fact", content="The customer collects stamps", confidence=0.8)

    assert [m.content for m in messages if m.seq in attribute(cats, messages)] == ["我家里养了两只猫"]
    assert attribute(unrelated, messages) == ()


def test_the_customers_page_and_the_admin_quote_it_and_erasure_removes_it(store, customer, django_user_model):
    customer.set_password("pw")
    customer.save()
    consolidate(converse(store, customer, "我的生日是3月15日"))
    me = Client()
    me.force_login(customer)
    staff = Client()
    staff.force_login(django_user_model.objects.create_superuser("quoter", "q@example.com", "x"))
    birthday = valid(customer, key="birthday").get()

    assert "«我的生日是3月15日»" in me.get("/memory/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    admin_page = staff.get(f"/admin/memory/longtermmemory/{birthday.pk}/change/").content.decode()
    assert "«我的生日是3月15日»" in admin_page

    privacy.erase(customer)

    assert not LongTermMemory.objects.filter(customer=customer).exists()
    assert not ConversationMessage.objects.filter(content__contains="3月15日").exists()
