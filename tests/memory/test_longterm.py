"""Long-term memory writes called directly: source ranks, hold policy, versions, deletion."""

import numpy as np
import pytest
from django.db import transaction

from memory.longterm import Candidate, StaleVersion, customer_lock, delete_memory, store, update_memory
from memory.models import LongTermMemory, MemoryConflict, MemoryEvent

pytestmark = pytest.mark.django_db


def vector(seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    v = rng.normal(size=384).astype(np.float32)
    return v / np.linalg.norm(v)


def put(customer, candidate, seed=1):
    with transaction.atomic():
        customer_lock(customer.pk)
        return store(customer.pk, candidate, vector(seed), actor="test")


STATED_ZTO = Candidate(
    type="preference",
    key="preferred_carrier",
    value="zto",
    content="客户喜欢用中通快递",
    confidence=0.9,
    source="customer_stated",
)
INFERRED_SF = Candidate(
    type="preference",
    key="preferred_carrier",
    value="sf_express",
    content="客户似乎更喜欢顺丰",
    confidence=0.75,
    source="agent_inferred",
)


def test_an_agent_inference_against_a_customer_statement_leaves_an_open_conflict(customer):
    put(customer, STATED_ZTO)

    outcome = put(customer, INFERRED_SF, seed=2)

    assert outcome.action == "conflict"
    valid = LongTermMemory.objects.valid().filter(customer=customer, key="preferred_carrier").get()
    assert valid.value == "zto"
    conflict = MemoryConflict.objects.get()
    assert (conflict.status, conflict.incoming_value, conflict.incoming_source) == (
        "open",
        "sf_express",
        "agent_inferred",
    )
    assert conflict.incoming is None


def test_a_system_record_supersedes_a_customer_statement(customer):
    put(customer, STATED_ZTO)
    record = Candidate(
        type="preference",
        key="preferred_carrier",
        value="sf_express",
        content="快递偏好：顺丰（系统记录）",
        confidence=1.0,
        source="system_record",
    )

    assert put(customer, record, seed=3).action == "superseded"
    assert LongTermMemory.objects.valid().get(customer=customer, key="preferred_carrier").source == "system_record"


def test_hold_policy_sends_every_contradiction_to_staff(customer, settings):
    settings.MEMORY_CONTRADICTION_POLICY = "hold"
    put(customer, STATED_ZTO)
    stated_on = Candidate(
        type="preference",
        key="preferred_carrier",
        value="sf_express",
        content="客户希望改用顺丰",
        confidence=0.95,
        source="customer_stated",
    )

    assert put(customer, stated_on, seed=4).action == "conflict"
    assert LongTermMemory.objects.valid().get(customer=customer, key="preferred_carrier").value == "zto"


def test_same_text_within_the_window_is_skipped(customer):
    allergy = Candidate(type="fact", content="The customer is allergic to peanuts", confidence=0.9)

    assert put(customer, allergy).action == "created"
    assert put(customer, allergy).action == "skipped"


def test_free_form_facts_that_differ_in_a_number_are_not_merged(customer):
    two = Candidate(type="fact", content="The customer has 2 cats", confidence=0.9)
    three = Candidate(type="fact", content="The customer has 3 cats", confidence=0.9)

    put(customer, two, seed=5)
    outcome = put(customer, three, seed=5)  # the same vector: only the anchors tell them apart

    assert outcome.action == "created"
    assert LongTermMemory.objects.filter(customer=customer).count() == 2


def test_a_free_form_paraphrase_merges_and_the_stronger_text_wins(customer):
    weak = Candidate(type="fact", content="Customer allergic to peanuts", confidence=0.75)
    strong = Candidate(type="fact", content="The customer is allergic to peanuts", confidence=0.95)

    first = put(customer, weak, seed=6)
    second = put(customer, strong, seed=6)

    assert second.action == "merged" and second.memory_id == first.memory_id
    memory = LongTermMemory.objects.get()
    assert (memory.content, memory.confidence, memory.version) == (strong.content, strong.confidence, 2)
    merge = MemoryEvent.objects.get(action="merged")
    assert merge.old["content"] == weak.content


def test_a_stale_version_update_becomes_a_conflict_and_changes_nothing(customer):
    memory = LongTermMemory.objects.get(pk=put(customer, STATED_ZTO).memory_id)
    update_memory(memory.pk, customer.pk, memory.version, content="客户希望所有通知静音", actor="staff:a")

    with pytest.raises(StaleVersion) as raised:
        update_memory(memory.pk, customer.pk, memory.version, content="客户不想要通知", actor="staff:b")

    memory.refresh_from_db()
    assert memory.content == "客户希望所有通知静音" and memory.version == 2
    assert raised.value.conflict.reason == "stale_version"
    assert raised.value.conflict.incoming_content == "客户不想要通知"


def test_a_deleted_memory_leaves_no_content_in_events_or_conflicts(customer):
    memory = LongTermMemory.objects.get(pk=put(customer, STATED_ZTO).memory_id)
    put(customer, INFERRED_SF, seed=2)  # an open conflict about it

    memory_id = memory.pk
    delete_memory(memory, actor="customer", reason="customer asked")

    assert not LongTermMemory.objects.filter(pk=memory_id).exists()
    history = " ".join(str(e.old) + str(e.new) for e in MemoryEvent.objects.all())
    conflicts = " ".join(c.incoming_content + c.incoming_value for c in MemoryConflict.objects.all())
    assert "中通" not in history and "顺丰" not in history and "顺丰" not in conflicts and "zto" not in history
    assert MemoryEvent.objects.filter(memory_id=memory_id, action="deleted").exists()


def test_updates_are_scoped_to_the_customer(customer, make_customer):
    memory = LongTermMemory.objects.get(pk=put(customer, STATED_ZTO).memory_id)
    other = make_customer()

    with pytest.raises(LongTermMemory.DoesNotExist):
        update_memory(memory.pk, other.pk, memory.version, content="hijacked", actor="x")


def test_a_shop_record_switched_back_within_the_window_is_the_valid_one(customer):
    """on → muted → on within minutes: the last record holds, though its text was stored (and since replaced)
    moments ago. The repeat check skipped it, and the page showed the replaced value as confirmed."""

    def record(value: str, words: str) -> Candidate:
        content = f"The customer's notifications are {words} (confirmed in the system)"
        return Candidate(
            type="preference",
            key="notification_preference",
            value=value,
            content=content,
            confidence=1.0,
            source="system_record",
        )

    for value, words in [("on", "on"), ("mute", "muted"), ("on", "on")]:
        put(customer, record(value, words))

    valid = LongTermMemory.objects.valid().filter(customer=customer, key="notification_preference")
    assert list(valid.values_list("value", flat=True)) == ["on"]
