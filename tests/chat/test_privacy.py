"""customer_export writes everything held about a customer; customer_erase removes it, and only it."""

import io
import json
import subprocess
import sys

import pytest
from django.core.management import CommandError, call_command
from django_redis import get_redis_connection

from agentsite.models import ModelCall
from chat import handoff, privacy
from chat.agent import run_turn
from chat.models import ConversationRating, Handoff, PendingAction
from memory.compression import ChunkDigest
from memory.consolidation import consolidate
from memory.models import (
    CompressionSummary,
    Conversation,
    ConversationMessage,
    LongTermMemory,
    MemoryConflict,
    MemoryEvent,
    Source,
    StateTransition,
)
from memory.recall import recall
from memory.session import SessionStore
from memory.tasks import consolidate_conversation
from tests.procs import ROOT

pytestmark = pytest.mark.django_db

SAID = {
    "wang": ["我的订单号是 ORD-2025-0816", "我的生日是3月15日", "我想退款"],
    "li": ["我的生日是3月15日", "我的订单到哪了？"],
}


@pytest.fixture
def shop(db):
    from django.contrib.auth import get_user_model

    call_command("seed_demo", stdout=io.StringIO())
    return {u.username: u for u in get_user_model().objects.all()}


def held(user) -> dict[str, int]:
    """Every kind of row and key the system holds about ``user``."""
    conversations = list(Conversation.objects.filter(customer=user).values_list("pk", flat=True))
    redis = get_redis_connection("default")
    keys = [k for c in conversations for k in (f"stm:{{{c}}}", f"stm:{{{c}}}:msgs") if redis.exists(k)]
    return {
        "conversations": len(conversations),
        "messages": ConversationMessage.objects.filter(conversation__customer=user).count(),
        "summaries": CompressionSummary.objects.filter(conversation__customer=user).count(),
        "transitions": StateTransition.objects.filter(customer=user).count(),
        "memories": LongTermMemory.objects.filter(customer=user).count(),
        "events": MemoryEvent.objects.filter(customer=user).count(),
        "conflicts": MemoryConflict.objects.filter(customer=user).count(),
        "ratings": ConversationRating.objects.filter(conversation__customer=user).count(),
        "handoffs": Handoff.objects.filter(conversation__customer=user).count(),
        "pending_actions": PendingAction.objects.filter(customer=user).count(),
        "model_calls": ModelCall.objects.filter(conversation_id__in=conversations).count(),
        "redis_keys": len(keys),
        "queued": sum(privacy._consolidates(m, {str(c) for c in conversations}) for m in queued_messages()),
    }


def queued_messages() -> list[bytes]:
    import redis as redis_py
    from django.conf import settings

    broker = redis_py.Redis.from_url(settings.CELERY_BROKER_URL)
    try:
        return broker.lrange("celery", 0, -1)
    finally:
        broker.close()


def live_customer(user, lines: list[str]) -> str:
    """Give ``user`` a conversation, long-term memories, a conflict, a rating, a handoff and queued work."""
    store = SessionStore()
    conversation = str(store.start(user.pk).id)
    for line in lines:
        run_turn(user.pk, conversation, line)
    SessionStore(compress_after=2, keep_recent=1, chunk_size=2).compress(
        conversation,
        digest=lambda lines, cap: ChunkDigest("summary", {"name": "Erased Person"}),
        fold=lambda text, cap: text[:cap],
    )
    consolidate(conversation, final=True)
    memory = LongTermMemory.objects.filter(customer=user, key="birthday").first()
    MemoryConflict.objects.create(
        customer=user,
        existing=memory,
        key="birthday",
        incoming_value="05-13",
        incoming_content="birthday 05-13",
        incoming_source=Source.CUSTOMER_STATED,
    )
    ConversationRating.objects.create(conversation_id=conversation, score=4, comment="ok")
    Handoff.objects.create(conversation_id=conversation, packet=handoff.build_packet(conversation))
    PendingAction.objects.get_or_create(
        conversation_id=conversation,
        customer=user,
        status="pending",
        defaults={"tool": "update_contact_channel", "arguments": {"channel": "sms"}, "summary": "use SMS"},
    )
    consolidate_conversation.delay(conversation)  # no worker runs: it waits in the broker's queue
    return conversation


def test_erase_removes_one_customer_everywhere_and_nothing_of_anyone_else(shop):
    wang, li = shop["wang"], shop["li"]
    wang_conversation = live_customer(wang, SAID["wang"])
    live_customer(li, SAID["li"])
    before_wang, before_li = held(wang), held(li)
    assert all(before_wang[kind] > 0 for kind in before_wang), before_wang  # every kind is really there
    assert all(before_li[kind] > 0 for kind in before_li), before_li
    assert recall(wang.pk, "我的生日是哪天") and recall(li.pk, "我的生日是哪天")

    out = io.StringIO()
    call_command("customer_erase", "wang", "--yes", stdout=out)

    assert "erased wang" in out.getvalue()
    assert held(wang) == dict.fromkeys(before_wang, 0)
    assert held(li) == before_li  # mem0's delete_all once wiped every user
    assert recall(wang.pk, "我的生日是哪天") == [] and recall(wang.pk, "ORD-2025-0816") == []
    assert recall(li.pk, "我的生日是哪天")
    assert wang.orders.exists()  # the shop's own records stay (unless --delete-account)
    # A consolidation run that was already taken by a worker finds nothing to bring back.
    assert consolidate(wang_conversation, final=True).skipped_reason == "the conversation no longer exists"
    assert held(wang)["memories"] == 0
    privacy._drop_queued_consolidations({str(c) for c in Conversation.objects.values_list("pk", flat=True)})


def test_export_holds_everything_about_the_customer_and_nothing_of_others(shop, tmp_path):
    wang, li = shop["wang"], shop["li"]
    live_customer(wang, SAID["wang"])
    li_conversation = live_customer(li, SAID["li"])
    target = tmp_path / "wang.json"

    call_command("customer_export", "wang", "--output", str(target), stderr=io.StringIO())

    data = json.loads(target.read_text())
    assert data["account"]["username"] == "wang"
    [conversation] = data["conversations"]
    assert [m["content"] for m in conversation["messages"] if m["role"] == "user"] == SAID["wang"]
    assert conversation["summaries"] and conversation["state_transitions"]
    assert conversation["rating"]["score"] == 4 and conversation["handoff"]["packet"]["issue"]
    assert {m["value"] for m in data["long_term_memories"]} >= {"03-15", "ORD-2025-0816"}
    assert all("embedding" not in m for m in data["long_term_memories"])
    assert len(data["memory_events"]) == MemoryEvent.objects.filter(customer=wang).count()
    assert data["memory_conflicts"] and data["pending_actions"] and data["model_calls"] and data["orders"]
    assert data["short_term_memory_keys"]
    assert li_conversation not in target.read_text()
    assert all(o["number"] in set(wang.orders.values_list("number", flat=True)) for o in data["orders"])
    privacy._drop_queued_consolidations({str(c) for c in Conversation.objects.values_list("pk", flat=True)})


def test_erase_asks_for_the_user_name_unless_yes(django_user_model, monkeypatch):
    wang = django_user_model.objects.create_user(username="wang")
    SessionStore().start(wang.pk)
    monkeypatch.setattr("builtins.input", lambda prompt: "y")
    with pytest.raises(CommandError, match="not confirmed"):
        call_command("customer_erase", "wang", stdout=io.StringIO())
    assert Conversation.objects.filter(customer=wang).count() == 1
    monkeypatch.setattr("builtins.input", lambda prompt: "wang")
    call_command("customer_erase", "wang", stdout=io.StringIO())
    assert Conversation.objects.filter(customer=wang).count() == 0


@pytest.mark.slow
def test_a_bad_user_name_is_a_clear_error_and_exit_code(db, process_env):
    with pytest.raises(CommandError, match="no customer with the user name 'nobody'"):
        call_command("customer_export", "nobody")
    done = subprocess.run(
        [sys.executable, "manage.py", "customer_erase", "nobody", "--yes"],
        cwd=ROOT,
        env=process_env.as_environ(),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 1
    assert "no customer with the user name 'nobody'" in done.stderr
