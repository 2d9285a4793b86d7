"""Structured logs: JSON lines, and the conversation id on every line of a turn, across the turn pool."""

import io
import logging
from concurrent.futures import ThreadPoolExecutor

import pytest
from django.core.management import call_command

from agentsite.logs import ContextFilter, log_context, run_in_context
from tests.chat.wsclient import ChatSocket, run

log = logging.getLogger("tests.logs")


def test_the_console_handler_adds_the_context_and_redacts(json_log):
    console = next(h for h in logging.getLogger().handlers if h.get_name() == "console")
    assert any(isinstance(f, ContextFilter) for f in console.filters)
    with log_context(conversation_id="c-1", customer_id=7):
        log.info("inside")
    log.info("outside")
    inside, outside = json_log.lines()
    assert inside["conversation_id"] == "c-1" and inside["customer_id"] == "7" and inside["message"] == "inside"
    assert inside["level"] == "INFO" and inside["logger"] == "tests.logs" and inside["time"]
    assert "conversation_id" not in outside


def test_context_reaches_pool_threads_only_when_carried(json_log):
    with ThreadPoolExecutor(1) as pool, log_context(conversation_id="c-2"):
        pool.submit(log.info, "bare").result()  # a pool thread does not inherit context by itself ...
        pool.submit(run_in_context(log.info), "carried").result()  # ... the turn pool's wrapper carries it
    bare, carried = json_log.lines()
    assert "conversation_id" not in bare
    assert carried["conversation_id"] == "c-2"


@pytest.mark.django_db(transaction=True)
def test_every_line_of_a_websocket_turn_names_its_conversation(json_log, offline_model):
    from django.contrib.auth import get_user_model

    call_command("seed_demo", stdout=io.StringIO())
    alice = get_user_model().objects.get(username="alice")
    offline_model.script(["rate_limit"], task="chat")  # the client retries: a warning line inside the turn

    async def turn():
        socket = ChatSocket(alice)
        assert await socket.connect()
        start = len(json_log.lines())
        said = await socket.say("Where is my order ORD-2025-0923?")
        end = len(json_log.lines())
        await socket.close()
        return socket.history["conversation_id"], said, start, end

    conversation_id, said, start, end = run(turn())
    assert said.of("reply_done")
    during = json_log.lines()[start:end]
    assert any(line["message"].startswith("turn ok in") for line in during)  # logged in the pool thread
    assert any(line["thread"].startswith("turn") for line in during)
    assert len(during) >= 3
    assert [line for line in during if line.get("conversation_id") != conversation_id] == []
