"""The model boundary against the offline model over real HTTP: retries, timeouts, breaker, records."""

from decimal import Decimal

import pytest

from agentsite import llm
from agentsite.llm import (
    CircuitBreaker,
    CircuitOpen,
    LLMError,
    MalformedOutput,
    MalformedToolCalls,
    ModelGateway,
    ModelUnavailable,
    parse_tool_calls,
)
from agentsite.models import BreakerOpening, ModelCall
from tests.pgsettings import current_setting

pytestmark = pytest.mark.django_db

LOOKUP_ORDER = {
    "type": "function",
    "function": {
        "name": "lookup_order",
        "description": "Look up one of the customer's orders by its number.",
        "parameters": {
            "type": "object",
            "properties": {"order_number": {"type": "string", "pattern": "^ORD-\\d{4}-\\d{4}$"}},
            "required": ["order_number"],
            "additionalProperties": False,
        },
    },
}
TRACK_SHIPMENT = {
    "type": "function",
    "function": {
        "name": "track_shipment",
        "description": "Where is the parcel of an order.",
        "parameters": {
            "type": "object",
            "properties": {"order_number": {"type": "string"}},
            "required": ["order_number"],
        },
    },
}
MEMORY_SCHEMA = {
    "type": "object",
    "properties": {"memories": {"type": "array", "items": {"type": "object", "required": ["content"]}}},
    "required": ["memories"],
}
# The boundary takes any prompt; this one starts with the marker the offline model reads.
EXTRACTION_PROMPT = "TASK: extract_memories\nReturn what the customer said about themselves as JSON."


class FakeMonotonic:
    def __init__(self):
        self.now = 1000.0

    def __call__(self):
        return self.now


@pytest.fixture
def gateway_factory(offline_model):
    def build(*, timeout=10.0, max_retries=0, threshold=3, cooldown=30.0, monotonic=None):
        return ModelGateway(
            base_url=offline_model.base_url,
            api_key="offline",
            main_model="offline-main",
            cheap_model="offline-cheap",
            timeout=timeout,
            max_retries=max_retries,
            breaker=CircuitBreaker(threshold, cooldown, monotonic or FakeMonotonic()),
        )

    return build


def test_chat_records_usage_and_cost(gateway_factory, settings):
    settings.LLM_PRICES = {"offline-main": [2.0, 8.0]}
    gateway = gateway_factory()

    reply = gateway.chat([{"role": "user", "content": "你好"}], conversation_id="6f1c7f0e-4d7a-4a7e-9a55-2d6f0e9f1a11")

    assert reply.content
    call = ModelCall.objects.get()
    assert call.ok and call.purpose == "chat" and call.model == "offline-main" and not call.streamed
    assert call.prompt_tokens == reply.prompt_tokens > 0
    assert call.completion_tokens == reply.completion_tokens > 0
    expected = (Decimal(2) * call.prompt_tokens + Decimal(8) * call.completion_tokens) / Decimal(1_000_000)
    assert call.cost_usd == expected.quantize(Decimal("0.000001"))
    assert str(call.conversation_id) == "6f1c7f0e-4d7a-4a7e-9a55-2d6f0e9f1a11"


def test_streaming_delivers_pieces_that_join_to_the_reply(gateway_factory):
    gateway = gateway_factory()
    pieces: list[str] = []
    messages = [{"role": "user", "content": "Can you tell me about your refund policy and shipping times?"}]

    streamed = gateway.chat(messages, stream=True, on_token=pieces.append)
    whole = gateway.chat(messages)

    assert len(pieces) > 3
    assert "".join(pieces) == streamed.content == whole.content
    record = ModelCall.objects.filter(streamed=True).get()
    assert record.prompt_tokens > 0 and record.completion_tokens > 0


def test_tool_call_is_parsed_and_validated(gateway_factory):
    reply = gateway_factory().chat(
        [{"role": "user", "content": "查一下订单 ORD-2025-0816 的状态"}], [LOOKUP_ORDER, TRACK_SHIPMENT]
    )

    assert [(c.name, c.arguments) for c in reply.tool_calls] == [("lookup_order", {"order_number": "ORD-2025-0816"})]
    assert reply.assistant_message()["tool_calls"][0]["function"]["name"] == "lookup_order"


@pytest.mark.parametrize("behaviour", ["bad_tool_args", "unknown_tool"])
def test_malformed_tool_calls_are_errors_not_data(gateway_factory, offline_model, behaviour):
    offline_model.script([behaviour])

    with pytest.raises(MalformedOutput):
        gateway_factory().chat([{"role": "user", "content": "查一下订单 ORD-2025-0816"}], [LOOKUP_ORDER])

    assert ModelCall.objects.get().ok is False


def test_arguments_failing_their_schema_are_an_error(gateway_factory):
    with pytest.raises(MalformedOutput, match="fail its schema"):
        gateway_factory().chat(
            [{"role": "user", "content": "status of order ORD-2025-0816?"}],
            [LOOKUP_ORDER],
            extra_headers={"X-Offline-Script": "off_schema_args"},
        )


def test_a_step_with_a_call_that_cannot_run_is_refused_whole_with_each_call_and_its_fault():
    good = ("call-1", "lookup_order", '{"order_number": "ORD-2025-0816"}')
    bad = ("call-2", "lookup_order", '{"order_number": "ORD-2025-0816", "confirmed": true}')

    with pytest.raises(MalformedToolCalls) as refused:
        parse_tool_calls([good, bad], [LOOKUP_ORDER], "Let me look.")

    assert [(c.id, bool(c.error)) for c in refused.value.calls] == [("call-1", False), ("call-2", True)]
    assert "fail its schema" in refused.value.calls[1].error and refused.value.content == "Let me look."


def test_a_call_with_no_id_cannot_be_answered_so_it_is_plainly_malformed():
    with pytest.raises(MalformedOutput) as caught:
        parse_tool_calls([("", "lookup_order", "{")], [LOOKUP_ORDER])
    assert not isinstance(caught.value, MalformedToolCalls)


def test_extraction_returns_validated_json(gateway_factory):
    result = gateway_factory().extract(
        [("customer", "我的生日是3月15日"), ("agent", "好的，记下了。")], MEMORY_SCHEMA, prompt=EXTRACTION_PROMPT
    )

    assert any(m.get("key") == "birthday" and m.get("value") == "03-15" for m in result["memories"])
    assert ModelCall.objects.get().purpose == "extract"


def test_malformed_extraction_json_is_an_error(gateway_factory, offline_model):
    offline_model.script(["bad_extraction_json"])

    with pytest.raises(MalformedOutput, match="not valid JSON"):
        gateway_factory().extract([("customer", "My birthday is March 15")], MEMORY_SCHEMA, prompt=EXTRACTION_PROMPT)


def test_extra_headers_reach_the_endpoint(gateway_factory):
    """The request goes out through ``client.post`` (see ``ModelGateway._post``): headers must still travel."""
    with pytest.raises(MalformedOutput, match="not valid JSON"):
        gateway_factory().extract(
            [("customer", "My birthday is March 15")],
            MEMORY_SCHEMA,
            prompt=EXTRACTION_PROMPT,
            extra_headers={"X-Offline-Script": "bad_extraction_json"},
        )


def test_summary_keeps_order_numbers(gateway_factory):
    text = " ".join(
        f"Order ORD-2025-{n:04d} was placed on 2025-03-{n % 28 + 1:02d} for ¥{n * 10}.00 and is being prepared."
        for n in range(1, 30)
    )

    summary = gateway_factory().summarise(text)

    assert len(summary) < len(text)
    assert all(f"ORD-2025-{n:04d}" in summary for n in range(1, 30))


def test_rate_limit_then_success_is_retried_by_the_client(gateway_factory, offline_model):
    offline_model.script(["rate_limit"])

    reply = gateway_factory(max_retries=2).chat([{"role": "user", "content": "hello"}])

    assert reply.content
    assert offline_model.stats()["by_task"]["chat"] == 2  # the 429 and the retry


def test_server_errors_exhaust_the_retries_then_fail(gateway_factory, offline_model):
    offline_model.script(["server_error"] * 3)

    with pytest.raises(ModelUnavailable):
        gateway_factory(max_retries=2).chat([{"role": "user", "content": "hello"}])

    assert offline_model.stats()["by_task"]["chat"] == 3
    assert ModelCall.objects.get().ok is False


def test_a_stalled_endpoint_times_out(gateway_factory, offline_model):
    offline_model.script([{"name": "stall", "seconds": 5}])

    with pytest.raises(ModelUnavailable):
        gateway_factory(timeout=0.3).chat([{"role": "user", "content": "hello"}])


STREAMED = [{"role": "user", "content": "Can you tell me about your refund policy and shipping times?"}]


@pytest.mark.parametrize("stream", [True, False])
def test_a_reply_of_the_wrong_shape_is_malformed_output_and_the_endpoint_stays_healthy(
    gateway_factory, offline_model, stream
):
    offline_model.script(["bad_chunk"])
    gateway = gateway_factory(threshold=1)
    pieces: list[str] = []

    with pytest.raises(MalformedOutput, match="delta is not a JSON object" if stream else "message is not a JSON"):
        gateway.chat(STREAMED, stream=stream, on_token=pieces.append)

    assert bool(pieces) == stream  # streamed, the first pieces had gone out
    assert gateway.breaker.state == "closed"  # it answered: what it said is the caller's problem
    assert ModelCall.objects.get().ok is False


@pytest.mark.parametrize("fault", ["stream_error", "cut_stream"])
def test_a_stream_broken_off_midway_is_an_outage_not_a_crash(gateway_factory, offline_model, fault):
    offline_model.script([fault])
    gateway = gateway_factory(threshold=1)
    pieces: list[str] = []

    with pytest.raises(ModelUnavailable, match="broke off its reply"):
        gateway.chat(STREAMED, stream=True, on_token=pieces.append)

    assert pieces  # the first pieces had arrived
    assert gateway.breaker.state == "open"
    assert ModelCall.objects.get().ok is False


def test_a_stream_that_stalls_between_chunks_times_out(gateway_factory):
    # The headers and the first event come at once, the next event after two seconds: the timeout
    # strikes while the reply is read (only reading it raises StreamBroken), not while it is requested.
    with pytest.raises(llm.StreamBroken, match="broke off its reply: APITimeoutError"):
        gateway_factory(timeout=0.3).chat(
            STREAMED, stream=True, on_token=lambda piece: None, extra_headers={"X-Offline-Pace-Ms": "2000"}
        )


def test_every_level_of_a_reply_is_checked_before_it_is_read():
    for broken, message in [
        ([], "completion is not a JSON object"),
        ({"choices": []}, "no choices"),
        ({"choices": "x"}, "choices is not a list"),
        ({"choices": [{"message": {"content": 42}}]}, "content is not text"),
        ({"choices": [{"message": {"content": "", "tool_calls": {"id": "c"}}}]}, "tool calls is not a list"),
        ({"choices": [{"message": {"content": "", "tool_calls": [{"function": {"name": 7}}]}}]}, "name is not text"),
        ({"choices": [{"message": {"content": "ok"}, "finish_reason": ["stop"]}]}, "finish reason is not text"),
    ]:
        with pytest.raises(MalformedOutput, match=message):
            llm._ReplyReader().completion(broken)
    for broken, message in [
        ({"choices": [{"delta": {"tool_calls": [{"index": "0"}]}}]}, "no integer index"),
        ({"choices": [{"delta": {"tool_calls": [{"index": 0, "function": "f"}]}}]}, "function is not a JSON object"),
    ]:
        with pytest.raises(MalformedOutput, match=message):
            llm._ReplyReader().chunk(broken)
    reader = llm._ReplyReader()
    reader.completion({"choices": [{"message": {"content": "ok"}}], "usage": {"prompt_tokens": "many"}})
    assert (reader.content, reader.prompt_tokens) == ("ok", 0)  # a token count is telemetry: never fails a reply


def test_breaker_opens_after_the_threshold_and_fails_fast(gateway_factory, offline_model):
    clock = FakeMonotonic()
    gateway = gateway_factory(threshold=2, cooldown=30, monotonic=clock)
    offline_model.script(["server_error", "server_error"])
    for _ in range(2):
        with pytest.raises(ModelUnavailable):
            gateway.chat([{"role": "user", "content": "hello"}])
    calls_before = offline_model.stats()["by_task"]["chat"]

    with pytest.raises(CircuitOpen):
        gateway.chat([{"role": "user", "content": "hello"}])

    assert gateway.breaker.state == "open"
    assert offline_model.stats()["by_task"]["chat"] == calls_before  # nothing was sent
    opening = BreakerOpening.objects.get()  # the dashboard's history: one opening, not one per refused call
    assert (opening.model, opening.failures) == (gateway.main_model, 2)


def test_breaker_closes_after_a_successful_trial_and_reopens_after_a_failed_one(gateway_factory, offline_model):
    clock = FakeMonotonic()
    gateway = gateway_factory(threshold=1, cooldown=30, monotonic=clock)
    offline_model.script(["server_error"])
    with pytest.raises(ModelUnavailable):
        gateway.chat([{"role": "user", "content": "hello"}])

    clock.now += 29.9
    assert gateway.breaker.state == "open"
    clock.now += 0.2
    assert gateway.breaker.state == "half_open"
    offline_model.script(["server_error"])
    with pytest.raises(ModelUnavailable):
        gateway.chat([{"role": "user", "content": "hello"}])  # the trial fails: open again
    assert gateway.breaker.state == "open"
    assert BreakerOpening.objects.count() == 2

    clock.now += 31
    assert gateway.chat([{"role": "user", "content": "hello"}]).content
    assert gateway.breaker.state == "closed"


def test_an_orphan_tool_message_is_a_request_error_not_an_outage(gateway_factory):
    gateway = gateway_factory(threshold=1)
    orphan = [{"role": "user", "content": "hi"}, {"role": "tool", "tool_call_id": "call_x", "content": "{}"}]

    with pytest.raises(LLMError) as raised:
        gateway.chat(orphan)

    assert not isinstance(raised.value, ModelUnavailable)
    assert gateway.breaker.state == "closed"


def test_module_functions_use_the_settings_endpoint(offline_model, settings):
    settings.OPENAI_BASE_URL = offline_model.base_url
    llm.reset_gateway()
    try:
        assert llm.chat([{"role": "user", "content": "thanks!"}]).content
        assert llm.summarise("Order ORD-2025-0816 shipped on March 3.")
    finally:
        llm.reset_gateway()


@pytest.mark.django_db(transaction=True)
def test_a_calls_record_alone_does_not_wait_for_the_wal_flush_and_a_callers_transaction_does(gateway_factory, sent_sql):
    """Sent alone (as a turn sends it), the record's own commit skips the flush and nothing after it
    does; inside a caller's transaction the plain insert leaves the caller's durable commit alone."""
    from django.db import connection, transaction

    gateway = gateway_factory()
    gateway.chat([{"role": "user", "content": "你好"}], conversation_id="6f1c7f0e-4d7a-4a7e-9a55-2d6f0e9f1a11")
    insert = next(sql for sql in sent_sql if sql.startswith("INSERT INTO agentsite_modelcall"))
    assert "set_config('synchronous_commit', 'off', true)" in insert
    assert current_setting("synchronous_commit") == "on"  # the connection's next commits (a turn's messages) still wait
    assert str(ModelCall.objects.get().conversation_id) == "6f1c7f0e-4d7a-4a7e-9a55-2d6f0e9f1a11"

    sent_sql.clear()
    with transaction.atomic():
        gateway.chat([{"role": "user", "content": "hello"}])
        assert current_setting("synchronous_commit") == "on"
        assert connection.in_atomic_block
    insert = next(sql for sql in sent_sql if sql.startswith("INSERT INTO agentsite_modelcall"))
    assert "set_config" not in insert
    assert ModelCall.objects.count() == 2
