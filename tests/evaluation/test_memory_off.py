"""MEMORY_RECALL_MODE=off: the evaluation's baseline is a real setting the turn honours."""

import pytest
import redis
from django.conf import settings as django_settings

from agentsite.settings import redis_db_url
from chat.agent import run_turn
from memory import session as short_term
from memory.consolidation import consolidate
from memory.models import LongTermMemory
from tests.factories import CustomerFactory

pytestmark = pytest.mark.django_db(transaction=True)


def _queued_tasks() -> int:
    client = redis.Redis.from_url(redis_db_url(django_settings.REDIS_URL, django_settings.REDIS_DB_BROKER))
    try:
        return client.llen("celery")
    finally:
        client.close()


def test_off_recalls_nothing_that_active_recalls(settings):
    user = CustomerFactory(username="offcheck", password="x", profile__language="zh-hans")
    first = short_term.store().start(user.pk).id
    run_turn(user.pk, first, "我的生日是3月15日")
    consolidate(first, final=True)
    assert LongTermMemory.objects.valid().filter(customer=user, key="birthday", value="03-15").exists()

    settings.MEMORY_RECALL_MODE = "off"
    off = run_turn(user.pk, short_term.store().start(user.pk).id, "我的生日是哪天？")
    settings.MEMORY_RECALL_MODE = "active"
    on = run_turn(user.pk, short_term.store().start(user.pk).id, "我的生日是哪天？")

    assert off.recalled == [] and off.reply.startswith("我不确定"), off.reply
    assert "3月15日" in on.reply and on.recalled, on.reply


def test_off_keeps_the_conversation_so_far_but_queues_no_consolidation(settings):
    settings.MEMORY_RECALL_MODE = "off"
    settings.MEMORY_CONSOLIDATE_EVERY_MESSAGES = 2
    user = CustomerFactory(username="offqueue", password="x", profile__language="zh-hans")
    conversation = short_term.store().start(user.pk).id
    before = _queued_tasks()
    run_turn(user.pk, conversation, "我的生日是3月15日")
    turn = run_turn(user.pk, conversation, "我的生日是哪天？")
    assert "3月15日" in turn.reply  # within the session the conversation is kept
    assert _queued_tasks() == before  # 4 messages, threshold 2: "active" would have queued a run

    settings.MEMORY_RECALL_MODE = "active"
    run_turn(user.pk, conversation, "谢谢")
    assert _queued_tasks() == before + 1  # the check above could fail
