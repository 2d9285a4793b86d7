"""The model endpoint down, slow, rate-limited or returning malformed output, under whole agent turns.

The offline model is scripted to misbehave (docs/offline-model.md). Every failure must end the turn
with the polite apology, keep the customer's message, store nothing from the bad output, and the
circuit breaker must open after ``LLM_BREAKER_THRESHOLD`` failures and close after a good trial call.
"""

import json

import pytest

from agentsite import llm
from agentsite.models import ModelCall
from chat import prompts
from chat.agent import run_turn
from chat.models import PendingAction, Refund
from memory.consolidation import ConsolidationDeferred, consolidate
from memory.models import Conversation, ConversationMessage, LongTermMemory
from tests.factories import CustomerFactory, OrderFactory, UserFactory
from tests.memory.test_consolidation import converse
from tests.procs import free_port

pytestmark = pytest.mark.django_db

REFUND = "I want a refund for order ORD-2025-0777 because it arrived broken"


class FakeMonotonic:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def gateway(settings):
    """A fresh gateway per test, built from the settings the test chose (no retries unless it says so)."""
    settings.LLM_MAX_RETRIES = 0
    settings.LLM_BREAKER_THRESHOLD = 2
    settings.LLM_BREAKER_COOLDOWN_SECONDS = 30
    llm.reset_gateway()
    yield llm.get_gateway
    llm.reset_gateway()


@pytest.fixture
def conversation(store):
    user = CustomerFactory(username="shopper", profile__display_name="Shopper")
    OrderFactory(customer=user, number="ORD-2025-0777", status="delivered", total="19.90")
    return user, store.start(user.pk).id


def turn(conversation, text: str = REFUND):
    user, conversation_id = conversation
    frames: list[dict] = []
    result = run_turn(user.pk, conversation_id, text, frames.append)
    return result, frames


def stored(conversation_id) -> list[tuple[str, str]]:
    return list(
        ConversationMessage.objects.filter(conversation_id=conversation_id)
        .order_by("seq")
        .values_list("role", "content")
    )


def assert_polite_failure(result, frames, conversation_id, text: str = REFUND) -> None:
    assert result.failed
    assert result.reply == prompts.APOLOGY["en"]
    assert "".join(f["text"] for f in frames if f["type"] == "token") == prompts.APOLOGY["en"]
    # The turn is kept: the customer's message, then the apology. Nothing else (no tool call, no tool result).
    assert stored(conversation_id) == [("user", text), ("assistant", prompts.APOLOGY["en"])]
    assert not Refund.objects.exists() and not PendingAction.objects.exists()


def test_endpoint_down_gets_an_apology_and_the_message_is_kept(settings, gateway, conversation):
    settings.OPENAI_BASE_URL = f"http://127.0.0.1:{free_port()}/v1"  # nothing listens there
    result, frames = turn(conversation)
    assert_polite_failure(result, frames, conversation[1])


def test_a_slow_endpoint_times_out_into_an_apology(settings, gateway, conversation, offline_model):
    settings.LLM_TIMEOUT_SECONDS = 0.5
    offline_model.script([{"name": "stall", "seconds": 5}], task="chat")
    result, frames = turn(conversation)
    assert_polite_failure(result, frames, conversation[1])


def test_rate_limited_beyond_the_retries_gets_an_apology(settings, gateway, conversation, offline_model):
    settings.LLM_MAX_RETRIES = 2
    offline_model.script(["rate_limit"] * 3, task="chat")
    result, frames = turn(conversation)
    assert_polite_failure(result, frames, conversation[1])
    assert offline_model.stats()["behaviours"]["rate_limit"] == 3


def test_one_429_is_retried_and_the_turn_succeeds(settings, gateway, conversation, offline_model):
    settings.LLM_MAX_RETRIES = 2
    offline_model.script(["rate_limit"], task="chat")
    result, _ = turn(conversation, "What's the status of order ORD-2025-0777?")
    assert not result.failed and "ORD-2025-0777" in result.reply


@pytest.mark.parametrize("behaviour", ["bad_tool_args", "unknown_tool", "off_schema_args"])
def test_a_step_that_cannot_run_goes_back_to_the_model_which_calls_again(
    gateway, conversation, offline_model, behaviour
):
    offline_model.script([behaviour], task="chat")

    result, _ = turn(conversation)

    assert not result.failed and "ORD-2025-0777" in result.reply
    calls = list(ModelCall.objects.filter(purpose="chat").order_by("pk").values_list("ok", flat=True))
    assert calls[0] is False and all(calls[1:]) and len(calls) >= 2
    # The refund is proposed from the call made again; nothing of the refused step ran or was stored.
    pending = PendingAction.objects.get()
    assert pending.tool == "request_refund" and "confirmed" not in pending.arguments
    assert not Refund.objects.exists()
    kept = " ".join(content for _, content in stored(conversation[1]))
    assert "not_run" not in kept and "transfer_store_credit" not in kept
    # The model was told what was wrong: the request after the refused step answers its call with the fault.
    told = [
        json.loads(m["content"])
        for r in offline_model.received()
        for m in r["messages"]
        if m["role"] == "tool" and "not_run" in m["content"]
    ]
    assert told and told[0]["not_run"] is True
    assert any(word in told[0]["error"] for word in ("not valid JSON", "not offered", "fail its schema"))


@pytest.mark.parametrize("behaviour", ["bad_tool_args", "off_schema_args"])
def test_a_second_step_that_cannot_run_fails_the_turn_and_stores_nothing(
    gateway, conversation, offline_model, behaviour
):
    offline_model.script([behaviour, behaviour], task="chat")
    result, frames = turn(conversation)
    assert_polite_failure(result, frames, conversation[1])
    assert ModelCall.objects.filter(purpose="chat", ok=False).count() == 2


@pytest.mark.parametrize("fault", ["stream_error", "cut_stream", "bad_chunk"])
def test_a_reply_broken_off_midway_is_taken_back_and_replaced_by_the_apology(
    gateway, conversation, offline_model, fault
):
    question = "Thanks a lot for your help today, have a nice evening!"  # answered in words, no tool
    offline_model.script([fault], task="chat")

    result, frames = turn(conversation, question)

    assert result.failed and result.reply == prompts.APOLOGY["en"]
    kinds = [f["type"] for f in frames]
    reset = kinds.index("reply_reset")
    assert "token" in kinds[:reset]  # the customer had seen the start of the reply ...
    after = "".join(f["text"] for f in frames[reset:] if f["type"] == "token")
    assert after == prompts.APOLOGY["en"]  # ... which is taken back and replaced by the apology
    assert stored(conversation[1]) == [("user", question), ("assistant", prompts.APOLOGY["en"])]


def test_a_turn_that_fails_before_any_token_sends_no_reset(settings, gateway, conversation):
    settings.OPENAI_BASE_URL = f"http://127.0.0.1:{free_port()}/v1"
    result, frames = turn(conversation)
    assert result.failed and "reply_reset" not in [f["type"] for f in frames]


def test_malformed_extraction_json_stores_no_memory_and_the_next_run_does(gateway, offline_model, store):
    customer = UserFactory(username="rememberer")
    conversation_id = converse(store, customer, "我的生日是3月15日")
    offline_model.script(["bad_extraction_json"], task="extract")
    with pytest.raises(ConsolidationDeferred):
        consolidate(conversation_id)
    assert not LongTermMemory.objects.filter(customer=customer).exists()
    assert Conversation.objects.get(pk=conversation_id).consolidated_seq == 0  # the watermark did not move

    consolidate(conversation_id)  # the retry (or the sweep) with a healthy model
    assert list(LongTermMemory.objects.filter(customer=customer).values_list("key", "value")) == [("birthday", "03-15")]


def test_the_breaker_opens_at_the_threshold_and_closes_after_a_good_trial(gateway, conversation, offline_model):
    fake = FakeMonotonic()
    breaker = gateway().breaker
    breaker._monotonic = fake
    question = "What's the status of order ORD-2025-0777?"
    offline_model.script(["server_error", "server_error"], task="chat")

    for _ in range(2):  # LLM_BREAKER_THRESHOLD = 2 failed calls
        assert turn(conversation, question)[0].failed
    assert breaker.state == "open"
    calls = offline_model.stats()["by_task"]["chat"]
    result, _ = turn(conversation, question)
    assert result.failed and result.reply == prompts.APOLOGY["en"]  # polite, and ...
    assert offline_model.stats()["by_task"]["chat"] == calls  # ... the endpoint was not even called

    fake.now += 29  # still inside the 30 s cooldown
    assert turn(conversation, question)[0].failed
    fake.now += 1
    assert breaker.state == "half_open"
    result, _ = turn(conversation, question)  # the trial call succeeds
    assert not result.failed and "ORD-2025-0777" in result.reply
    assert breaker.state == "closed"
    user_lines = [c for r, c in stored(conversation[1]) if r == "user"]
    assert user_lines == [question] * 5  # every customer message kept, answered or not
