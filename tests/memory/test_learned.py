"""The memory inspector's "learned" list: what consolidation took from this conversation, still valid."""

from datetime import timedelta

import pytest
from django.db import transaction

from agentsite import clock
from chat.agent import memory_frame
from memory.embeddings import get_embedder
from memory.longterm import Candidate, insert, learned_in
from memory.models import Conversation, LongTermMemory

pytestmark = pytest.mark.django_db


def learn(customer_id, content, conversation_id, **fields):
    candidate = Candidate(type="fact", content=content, confidence=0.9, conversation_id=conversation_id)
    with transaction.atomic():
        memory = insert(
            customer_id, candidate, get_embedder().embed_passages([content])[0], actor="test", now=clock.now()
        )
    if fields:
        LongTermMemory.objects.filter(pk=memory.pk).update(**fields)
    return memory


def test_learned_holds_this_conversations_valid_memories_of_this_customer_oldest_first(make_customer, store):
    alice, bob = make_customer(), make_customer()
    here, elsewhere = store.start(alice.pk), store.start(alice.pk)
    learn(alice.pk, "The customer's birthday is 14 March", here.id)
    learn(alice.pk, "The customer prefers email", here.id)
    learn(alice.pk, "The customer lived in Lyon", here.id, invalidated_at=clock.now())
    learn(alice.pk, "The customer had a voucher", here.id, expires_at=clock.now() - timedelta(days=1))
    learn(alice.pk, "The customer's old phone", here.id, archived_at=clock.now())
    learn(alice.pk, "The customer owns a bicycle", elsewhere.id)
    learn(bob.pk, "Bob's address is in Berlin", here.id)  # another customer's row naming this conversation

    assert learned_in(alice.pk, here.id) == ["The customer's birthday is 14 March", "The customer prefers email"]
    assert learned_in(alice.pk, here.id, limit=1) == ["The customer's birthday is 14 March"]


def test_the_frame_lists_nothing_learned_before_the_first_consolidation(make_customer, store, sent_sql):
    customer = make_customer()
    conversation = store.start(customer.pk)
    learn(customer.pk, "The customer prefers email", conversation.id)
    row = Conversation.objects.get(pk=conversation.id)
    sent_sql.clear()

    assert memory_frame(row, [], "en")["learned"] == []
    assert sent_sql == []  # not even asked

    row.consolidated_seq = 2
    assert memory_frame(row, [], "en")["learned"] == ["The customer prefers email"]
