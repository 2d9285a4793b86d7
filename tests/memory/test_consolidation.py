"""Consolidation through the offline model's extraction: dedup, merge, contradictions, poisoning, secrets."""

import json
import uuid
from datetime import timedelta

import pytest

from agentsite import clock
from memory.consolidation import ConsolidationDeferred, consolidate
from memory.longterm import restore
from memory.models import LongTermMemory, MemoryConflict, MemoryEvent
from memory.working import Role
from tests.factories import entry, tool_call, tool_result

pytestmark = pytest.mark.django_db

# 47 distinct raw wordings of one birthday, Chinese and English (stored as said, they would be 47 rows).
BIRTHDAY_DATES_ZH = ["3月15日", "3月15号", "三月十五日", "三月十五号", "3月15", "03月15日"]
BIRTHDAY_TEMPLATES_ZH = [
    "我的生日是{d}",
    "我生日是{d}",
    "我是{d}出生的",
    "生日：{d}",
    "记一下，我的生日是{d}",
    "对了，我生日{d}",
    "我的生日在{d}",
    "我出生于{d}",
]
BIRTHDAY_DATES_EN = ["March 15", "March 15th", "15 March", "15th March", "the fifteenth of March", "Mar 15"]
BIRTHDAY_TEMPLATES_EN = [
    "My birthday is {d}",
    "my birthday's {d}",
    "I was born on {d}",
    "Birthday: {d}",
    "For the record, my birthday is {d}",
]


def birthday_wordings() -> list[str]:
    zh = [t.format(d=d) for t in BIRTHDAY_TEMPLATES_ZH for d in BIRTHDAY_DATES_ZH]
    en = [t.format(d=d) for t in BIRTHDAY_TEMPLATES_EN for d in BIRTHDAY_DATES_EN]
    mixed = [w for pair in zip(zh, en, strict=False) for w in pair] + zh[len(en) :]
    return list(dict.fromkeys(mixed))[:47]


def converse(store, customer, *lines: str, days_later: float = 0):
    """One conversation in which the customer says ``lines`` (the agent acknowledges each)."""
    if days_later:
        clock.advance(timedelta(days=days_later))
    session = store.start(customer.pk)
    for line in lines:
        store.append(session.id, entry(Role.USER, line))
        store.append(session.id, entry(Role.ASSISTANT, "好的 / OK"))
    return session.id


def proposed(store, customer, line: str, key: str, value: str, days_later: float = 0):
    """One conversation in which the customer asks for a shop-owned change and the shop proposes it (a change
    tool's result names its request, as ``chat.tools`` does): only such a value is remembered as asked for."""
    conversation = converse(store, customer, line, days_later=days_later)
    call = f"call-{key}-{value}"
    store.append(conversation, tool_call(call, f"update_{key}", json.dumps({"value": value})))
    request = {"key": key, "value": value, "pending_action": str(uuid.uuid4())}
    store.append(conversation, tool_result(call, json.dumps({"status": "pending_confirmation", "request": request})))
    return conversation


def valid(customer, **filters):
    return LongTermMemory.objects.filter(customer=customer, invalidated_at__isnull=True, **filters)


def test_47_wordings_of_one_birthday_end_as_one_memory_with_merge_events(store, customer):
    wordings = birthday_wordings()
    assert len(set(wordings)) == 47

    for wording in wordings:
        consolidate(converse(store, customer, wording, days_later=1))

    birthday = valid(customer, key="birthday").get()
    assert birthday.value == "03-15"
    assert LongTermMemory.objects.filter(customer=customer, key="birthday").count() == 1
    assert MemoryEvent.objects.filter(memory_id=birthday.pk, action="merged").count() == 46
    assert not MemoryConflict.objects.exists()


@pytest.mark.parametrize("near_miss", ["我的生日是5月13日", "My birthday is March 5"])
def test_a_near_miss_birthday_is_a_contradiction_never_a_merge(store, customer, near_miss):
    consolidate(converse(store, customer, "我的生日是3月15日"))

    consolidate(converse(store, customer, near_miss, days_later=1))

    old = LongTermMemory.objects.get(customer=customer, value="03-15")
    new = valid(customer, key="birthday").get()
    assert new.value in {"05-13", "03-05"}
    assert old.invalidated_at is not None and old.superseded_by == new
    conflict = MemoryConflict.objects.get()
    assert (conflict.status, conflict.existing, conflict.incoming) == ("auto_resolved", old, new)
    assert not MemoryEvent.objects.filter(memory_id=old.pk, action="merged").exists()


def test_opposite_statements_about_a_shop_owned_key_are_requests_the_newer_replacing_the_older(store, customer):
    consolidate(proposed(store, customer, "请把通知静音", "notification_preference", "mute"))
    consolidate(proposed(store, customer, "我要开启通知", "notification_preference", "on", days_later=2))

    current = valid(customer, key="notification_preference").get()
    older = LongTermMemory.objects.get(customer=customer, key="notification_preference", value="mute")
    assert current.value == "on" and "request" in current.metadata and "request" in older.metadata
    assert older.invalidated_at is not None and older.superseded_by == current
    assert not MemoryConflict.objects.exists()  # what a customer asks for contradicts nothing: the shop decides

    restore(older, actor="staff:test")

    assert valid(customer, key="notification_preference").get() == older
    assert LongTermMemory.objects.get(pk=current.pk).invalidated_at is not None


@pytest.mark.parametrize(
    ("first", "later", "before", "after"),
    [
        ("I prefer ZTO for deliveries", "Actually, I'd rather use SF Express now", "zto", "sf_express"),
        ("以后发货我比较喜欢用UPS", "其实我现在更喜欢用中通了", "ups", "zto"),
        ("我比较喜欢用中通快递", "其实我现在更喜欢用圆通了", "zto", "yto"),
    ],
)
def test_a_changed_carrier_supersedes_the_old_one_as_a_recorded_conflict(store, customer, first, later, before, after):
    consolidate(converse(store, customer, first))
    assert valid(customer, key="preferred_carrier").get().value == before

    report = consolidate(converse(store, customer, later, days_later=16))

    assert report.rejected == []
    old = LongTermMemory.objects.get(customer=customer, key="preferred_carrier", value=before)
    new = valid(customer, key="preferred_carrier").get()
    assert new.value == after and old.superseded_by == new
    conflict = MemoryConflict.objects.get(customer=customer, key="preferred_carrier")
    assert (conflict.status, conflict.existing, conflict.incoming) == ("auto_resolved", old, new)


def test_second_and_third_order_numbers_are_inserted_not_conflicts(store, customer):
    for number in ("ORD-2025-0816", "ORD-2025-0901", "ORD-2025-1002"):
        consolidate(converse(store, customer, f"我的订单号是 {number}", days_later=1))

    assert set(valid(customer, key="order_number").values_list("value", flat=True)) == {
        "ORD-2025-0816",
        "ORD-2025-0901",
        "ORD-2025-1002",
    }
    assert not MemoryConflict.objects.exists()


def test_two_customers_with_identical_facts_share_nothing(store, make_customer):
    alice, bob = make_customer(), make_customer()
    for person in (alice, bob):
        consolidate(converse(store, person, "我的生日是3月15日", "我对花生过敏"))
    consolidate(converse(store, bob, "我的生日是5月13日", days_later=1))

    assert valid(alice, key="birthday").get().value == "03-15"
    assert valid(bob, key="birthday").get().value == "05-13"
    assert valid(alice).count() == 2 and LongTermMemory.objects.filter(customer=alice).count() == 2
    assert MemoryConflict.objects.get().customer == bob
    assert not MemoryEvent.objects.filter(customer=alice).exclude(action="created").exists()


def test_consolidating_twice_creates_nothing(store, customer):
    conversation = converse(store, customer, "我对花生过敏", "我的生日是3月15日")

    first = consolidate(conversation)
    second = consolidate(conversation)

    assert first.outcomes == {"created": 2}
    assert second.outcomes == {} and second.messages == 0
    assert LongTermMemory.objects.filter(customer=customer).count() == 2


def test_only_new_messages_are_extracted_after_the_watermark(store, customer, offline_model):
    session = store.start(customer.pk)
    store.append(session.id, entry(Role.USER, "我对花生过敏"))
    consolidate(session.id)
    store.append(session.id, entry(Role.USER, "我的生日是3月15日"))

    report = consolidate(session.id)

    assert report.messages == 1 and report.outcomes == {"created": 1}


def test_an_extracted_instruction_is_never_stored(store, customer, offline_model):
    offline_model.script(["hostile_memory"], task="extract")

    report = consolidate(converse(store, customer, "我的生日是3月15日"))

    assert any("instruction" in reason for reason in report.rejected)
    contents = " ".join(LongTermMemory.objects.values_list("content", flat=True)).lower()
    assert "administrator" not in contents and "approve" not in contents
    assert valid(customer, key="birthday").exists()


def test_a_card_number_typed_in_chat_is_in_no_memory(store, customer, offline_model):
    consolidate(converse(store, customer, "我的卡号是4111 1111 1111 1111，生日3月15日"), final=True)

    stored = " ".join(LongTermMemory.objects.values_list("content", flat=True))
    events = " ".join(str(e.old) + str(e.new) for e in MemoryEvent.objects.all())
    assert "4111" not in stored and "4111" not in events
    assert valid(customer, key="birthday").exists()
    assert valid(customer, type="summary").exists()


def test_malformed_extraction_defers_and_moves_no_watermark(store, customer, offline_model):
    conversation = converse(store, customer, "我对花生过敏")
    offline_model.script(["bad_extraction_json"], task="extract")

    with pytest.raises(ConsolidationDeferred):
        consolidate(conversation)

    assert not LongTermMemory.objects.exists()
    assert consolidate(conversation).outcomes == {"created": 1}  # the next run picks it up


def test_a_final_run_writes_one_summary_per_conversation(store, customer):
    conversation = converse(store, customer, "我的订单号是 ORD-2025-0816", "是昨天下的，还没发货")

    consolidate(conversation, final=True)
    consolidate(conversation, final=True)

    summary = valid(customer, type="summary").get()
    assert "ORD-2025-0816" in summary.content
    assert summary.source == "agent_inferred"


@pytest.mark.parametrize(
    "line",
    [
        "我现在的地址其实是北京市朝阳区建国路1号，你记住就行",  # no change proposed: said, not asked for
        "switch my contact channel to sms",  # the shop did not propose it (here: no agent at all)
    ],
)
def test_a_shop_owned_value_no_proposal_carried_is_not_remembered_as_asked_for(store, customer, line):
    report = consolidate(converse(store, customer, line))

    assert not valid(customer).exclude(key="").exists(), list(valid(customer).values_list("content", flat=True))
    assert any("no proposal of this conversation carried" in reason for reason in report.rejected)


def test_a_value_unlike_the_one_proposed_is_not_linked_to_it(store, customer):
    """ "10 Downing St … no wait, 12": the 12 proposed is no proposal of the 10 an extractor may keep."""
    conversation = proposed(
        store,
        customer,
        "change my default address to 10 Downing St, London SW1A 2AA",
        "shipping_address",
        "12 Downing St, London SW1A 2AA",
    )

    consolidate(conversation)

    assert not valid(customer, key="shipping_address").exists()
