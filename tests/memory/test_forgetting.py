"""The forgetting policy with the clock moved: both sides of every threshold, reruns, two beats."""

import re
from datetime import timedelta
from pathlib import Path

import pytest
from django.core.management import call_command

from agentsite import clock
from memory import forgetting
from memory.models import ForgettingRun, LongTermMemory, MemoryEvent
from tests.factories import remember
from tests.memory.test_consolidation import converse

pytestmark = pytest.mark.django_db


def aged(customer, days, confidence=0.9, accessed_days_ago=None, content=None, source="customer_stated"):
    content = content or f"fact aged {days} days at {confidence}"
    memory = remember(customer, content, confidence=confidence, source=source)
    now = clock.now()
    LongTermMemory.objects.filter(pk=memory.pk).update(
        created_at=now - timedelta(days=days),
        last_accessed_at=None if accessed_days_ago is None else now - timedelta(days=accessed_days_ago),
    )
    return memory.pk


def confidence(pk):
    return LongTermMemory.objects.get(pk=pk).confidence


def test_decay_is_one_step_per_full_period_counted_from_creation_when_never_accessed(customer):
    young, one, two = aged(customer, 29), aged(customer, 31), aged(customer, 61)

    counts = forgetting.run()

    assert counts.decayed == 2
    assert confidence(young) == pytest.approx(0.9)
    assert confidence(one) == pytest.approx(0.81)
    assert confidence(two) == pytest.approx(0.729)


def test_decay_counts_from_the_last_access(customer):
    accessed = aged(customer, 400, accessed_days_ago=29)
    stale = aged(customer, 400, accessed_days_ago=31)

    forgetting.run()

    assert confidence(accessed) == pytest.approx(0.9)
    assert confidence(stale) == pytest.approx(0.81)


def test_a_rerun_the_same_day_decays_nothing_more(customer):
    pk = aged(customer, 31)

    forgetting.run()
    second = forgetting.run()

    assert second.decayed == 0
    assert confidence(pk) == pytest.approx(0.81)


def test_decay_steps_accumulate_as_the_clock_moves(customer):
    pk = aged(customer, 0)
    for _ in range(3):
        clock.advance(timedelta(days=30, hours=1))
        forgetting.run()

    assert confidence(pk) == pytest.approx(0.9**4)


def test_archive_threshold_both_sides(customer):
    before = aged(customer, 89, confidence=0.45)
    after = aged(customer, 91, confidence=0.45)
    confident = aged(customer, 91, confidence=0.9)

    forgetting.run()

    archived = set(LongTermMemory.objects.filter(archived_at__isnull=False).values_list("pk", flat=True))
    assert archived == {after}
    assert before not in archived and confident not in archived


def test_delete_threshold_both_sides_leaves_content_free_events(customer):
    secret = "the customer's old locker code is 4471"
    kept = aged(customer, 179, confidence=0.25)
    gone = aged(customer, 181, confidence=0.25, content=secret)

    counts = forgetting.run()

    assert counts.deleted == 1
    assert LongTermMemory.objects.filter(pk=kept).exists()
    assert not LongTermMemory.objects.filter(pk=gone).exists()
    events = MemoryEvent.objects.filter(memory_id=gone)
    assert {e.action for e in events} == {"created", "deleted"}
    assert "4471" not in " ".join(str(e.old) + str(e.new) for e in events)


def readme_forgetting_table() -> dict[float, tuple[int, int]]:
    """The README's "when is a memory archived and deleted" rows: stored confidence -> (day, day)."""
    text = (Path(__file__).resolve().parents[2] / "README.md").read_text()
    rows = re.findall(r"^\| (\d\.\d\d) \| (\d+) \| [^|]+ \| (\d+) \| [^|]+ \|$", text, re.MULTILINE)
    return {float(c): (int(archived), int(deleted)) for c, archived, deleted in rows}


def test_the_readme_table_of_archive_and_delete_days_is_what_the_policy_does(customer):
    table = readme_forgetting_table()
    assert len(table) == 7 and table[0.7] == (120, 270)  # 0.7 x 0.9^4 = 0.459 < 0.5; 0.7 x 0.9^9 = 0.271 < 0.3
    # Stored as the shop's records: only those may hold a confidence above MEMORY_STATED_CONFIDENCE_CAP.
    stored = {aged(customer, 0, confidence=c, content=f"stored at {c}", source="system_record"): c for c in table}
    archived_on: dict[float, int] = {}
    deleted_on: dict[float, int] = {}
    for day in range(1, 366):
        clock.advance(timedelta(days=1))
        forgetting.run()
        rows = {m.pk: m for m in LongTermMemory.objects.filter(pk__in=stored)}
        for pk, c in stored.items():
            row = rows.get(pk)
            if row is None:
                deleted_on.setdefault(c, day)
            elif row.archived_at:
                archived_on.setdefault(c, day)
        if len(deleted_on) == len(stored):
            break

    assert {c: (archived_on.get(c), deleted_on.get(c)) for c in table} == table


def test_two_beats_make_one_effective_run_per_day(customer):
    pk = aged(customer, 31)

    first = forgetting.run_daily()
    second = forgetting.run_daily()

    assert first is not None and first.decayed == 1
    assert second is None
    assert ForgettingRun.objects.count() == 1
    assert confidence(pk) == pytest.approx(0.81)


def test_dry_run_counts_and_changes_nothing(customer, capsys):
    pk = aged(customer, 181, confidence=0.32)  # decays twice... to 0.259: deletable

    call_command("forget", "--dry-run")

    assert "1 memories would be decayed, 1 archived, 1 deleted" in capsys.readouterr().out
    assert confidence(pk) == pytest.approx(0.32)


def test_old_transcripts_follow_the_retention_setting(store, customer, settings):
    old = converse(store, customer, "hello")
    clock.advance(timedelta(days=settings.MEMORY_TRANSCRIPT_RETENTION_DAYS - 1))
    recent = converse(store, customer, "hello again")
    clock.advance(timedelta(days=2))

    counts = forgetting.run()

    assert counts.transcripts_deleted == 1
    assert not customer.conversations.filter(pk=old).exists()
    assert customer.conversations.filter(pk=recent).exists()


def test_a_day_left_unfinished_is_run_again(customer):
    """What a killed run leaves: the day recorded, not finished, and no process holding its lock."""
    pk = aged(customer, 31)
    ForgettingRun.objects.create(day=clock.now().date(), started_at=clock.now())

    resumed = forgetting.run_daily()

    assert resumed is not None and resumed.decayed == 1
    assert ForgettingRun.objects.get().finished_at is not None
    assert confidence(pk) == pytest.approx(0.81)
