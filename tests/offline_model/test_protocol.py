"""The OpenAI protocol: models, validation errors, streaming, usage, JSON mode, determinism."""

from __future__ import annotations

import json
import urllib.error
import urllib.request

import openai
import pytest

from agentsite.offline_model import server


def _post(url: str, body: bytes, headers: dict[str, str] | None = None) -> tuple[int, dict]:
    request = urllib.request.Request(
        url, data=body, method="POST", headers={"Content-Type": "application/json", **(headers or {})}
    )
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


def _assert_openai_error(body: dict, type_: str = "invalid_request_error") -> dict:
    error = body["error"]
    assert set(error) == {"message", "type", "param", "code"}
    assert error["type"] == type_ and error["message"]
    return error


def test_models_lists_both_offline_models(client):
    assert {m.id for m in client.models.list()} >= {"offline-main", "offline-cheap"}


def test_any_model_name_is_accepted_and_echoed(client):
    response = client.chat.completions.create(model="gpt-4o-mini", messages=[{"role": "user", "content": "hi"}])
    assert response.model == "gpt-4o-mini" and response.choices[0].message.content


def test_usage_is_reported(client):
    response = client.chat.completions.create(model="offline-main", messages=[{"role": "user", "content": "你好"}])
    usage = response.usage
    assert usage.prompt_tokens > 0 and usage.completion_tokens > 0
    assert usage.total_tokens == usage.prompt_tokens + usage.completion_tokens


def test_the_same_request_gets_the_same_reply(client, tools):
    messages = [{"role": "user", "content": "check ORD-2025-0001 and ORD-2025-0002"}]
    first = client.chat.completions.create(model="offline-main", messages=messages, tools=tools)
    second = client.chat.completions.create(model="offline-main", messages=messages, tools=tools)
    assert first.id == second.id
    assert first.choices[0].message.model_dump() == second.choices[0].message.model_dump()


@pytest.mark.parametrize(
    "messages",
    [
        [{"role": "user", "content": "hello, what can you do for me today?"}],
        [{"role": "user", "content": "我的快递ORD-2025-0816到哪了？"}],
        [{"role": "user", "content": "check ORD-2025-0001 and ORD-2025-0002"}],
    ],
)
def test_streaming_yields_many_chunks_that_join_to_the_plain_reply(client, tools, messages):
    plain = client.chat.completions.create(model="offline-main", messages=messages, tools=tools)
    stream = client.chat.completions.create(
        model="offline-main", messages=messages, tools=tools, stream=True, stream_options={"include_usage": True}
    )
    chunks = list(stream)
    content = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    calls: dict[int, dict] = {}
    for chunk in chunks:
        for delta in (chunk.choices[0].delta.tool_calls or []) if chunk.choices else []:
            call = calls.setdefault(delta.index, {"id": None, "name": "", "arguments": ""})
            call["id"] = delta.id or call["id"]
            call["name"] += (delta.function.name or "") if delta.function else ""
            call["arguments"] += (delta.function.arguments or "") if delta.function else ""
    message = plain.choices[0].message
    assert content == (message.content or "")
    assert [(c["id"], c["name"], c["arguments"]) for c in calls.values()] == [
        (c.id, c.function.name, c.function.arguments) for c in message.tool_calls or []
    ]
    assert len(chunks) >= 5
    finishes = [c.choices[0].finish_reason for c in chunks if c.choices and c.choices[0].finish_reason]
    assert finishes == [plain.choices[0].finish_reason]
    assert chunks[-1].choices == [] and chunks[-1].usage.total_tokens == plain.usage.total_tokens


def test_stream_without_include_usage_has_no_usage_chunk(client):
    chunks = list(
        client.chat.completions.create(model="offline-main", messages=[{"role": "user", "content": "hi"}], stream=True)
    )
    assert all(c.choices for c in chunks) and all(c.usage is None for c in chunks)


def test_an_orphan_tool_message_is_a_400(client):
    messages = [{"role": "user", "content": "hi"}, {"role": "tool", "tool_call_id": "call_nobody", "content": "{}"}]
    with pytest.raises(openai.BadRequestError) as caught:
        client.chat.completions.create(model="offline-main", messages=messages)
    error = _assert_openai_error(caught.value.body if "error" in caught.value.body else {"error": caught.value.body})
    assert error["param"] == "messages.[1].role" and "tool" in error["message"]


def test_a_tool_message_answering_another_assistant_turn_is_an_orphan(client):
    call = {"id": "call_1", "type": "function", "function": {"name": "lookup_order", "arguments": "{}"}}
    messages = [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": None, "tool_calls": [call]},
        {"role": "tool", "tool_call_id": "call_1", "content": "{}"},
        {"role": "assistant", "content": "ok"},
        {"role": "tool", "tool_call_id": "call_1", "content": "{}"},
    ]
    with pytest.raises(openai.BadRequestError):
        client.chat.completions.create(model="offline-main", messages=messages)


def test_unanswered_tool_calls_are_a_400(client):
    calls = [
        {"id": f"call_{i}", "type": "function", "function": {"name": "lookup_order", "arguments": "{}"}} for i in (1, 2)
    ]
    messages = [
        {"role": "user", "content": "check two orders"},
        {"role": "assistant", "content": None, "tool_calls": calls},
        {"role": "tool", "tool_call_id": "call_1", "content": "{}"},
        {"role": "user", "content": "well?"},
    ]
    with pytest.raises(openai.BadRequestError) as caught:
        client.chat.completions.create(model="offline-main", messages=messages)
    assert "call_2" in caught.value.message and "call_1" not in caught.value.message.split("messages:")[-1]
    with pytest.raises(openai.BadRequestError):  # unanswered at the very end too
        client.chat.completions.create(model="offline-main", messages=messages[:2])


@pytest.mark.parametrize(
    ("body", "param", "code"),
    [
        ({"model": "m"}, "messages", "missing_required_parameter"),
        ({"model": "m", "messages": []}, "messages", "empty_array"),
        ({"model": "m", "messages": [{"role": "wizard", "content": "hi"}]}, "messages[0].role", "invalid_value"),
        ({"messages": [{"role": "user", "content": "hi"}]}, "model", "missing_required_parameter"),
        (
            {"model": "m", "messages": [{"role": "user", "content": "hi"}], "response_format": {"type": "json_object"}},
            "messages",
            None,
        ),
    ],
)
def test_invalid_requests_get_openai_style_400s(offline_model, body, param, code):
    status, payload = _post(offline_model.base_url + "/chat/completions", json.dumps(body).encode())
    assert status == 400
    error = _assert_openai_error(payload)
    assert (error["param"], error["code"]) == (param, code)


def test_malformed_json_is_a_400(offline_model):
    status, payload = _post(offline_model.base_url + "/chat/completions", b'{"model": "m", "messages": [')
    assert status == 400 and "parse the JSON body" in _assert_openai_error(payload)["message"]


def test_unknown_paths_are_404s_in_the_same_format(offline_model):
    status, payload = _post(offline_model.base_url + "/embeddings-nope", b"{}")
    assert status == 404 and _assert_openai_error(payload)["code"] == "unknown_url"
    try:
        urllib.request.urlopen(offline_model.root_url + "/nothing/here", timeout=5)
    except urllib.error.HTTPError as error:
        assert error.code == 404 and json.loads(error.read())["error"]["type"] == "invalid_request_error"
    else:
        raise AssertionError("expected a 404")


def test_json_mode_returns_parseable_json_for_every_task(client):
    chat = client.chat.completions.create(
        model="offline-main",
        response_format={"type": "json_object"},
        messages=[{"role": "system", "content": "Answer in JSON."}, {"role": "user", "content": "hello"}],
    )
    assert json.loads(chat.choices[0].message.content)["reply"]
    extract = client.chat.completions.create(
        model="offline-cheap",
        response_format={"type": "json_object"},
        messages=[
            {"role": "system", "content": "TASK: extract_memories\nReturn JSON."},
            {"role": "user", "content": "customer: 我的生日是3月15日"},
        ],
    )
    assert json.loads(extract.choices[0].message.content)["memories"][0]["value"] == "03-15"
    summary = client.chat.completions.create(
        model="offline-cheap",
        response_format={"type": "json_object"},
        messages=[
            {"role": "system", "content": "TASK: summarise\nReply as JSON."},
            {"role": "user", "content": "customer: where is ORD-2025-0001?"},
        ],
    )
    assert "ORD-2025-0001" in json.loads(summary.choices[0].message.content)["summary"]


def test_max_tokens_truncates_with_finish_reason_length(client):
    response = client.chat.completions.create(
        model="offline-main", max_tokens=5, messages=[{"role": "user", "content": "hello"}]
    )
    assert response.choices[0].finish_reason == "length" and response.usage.completion_tokens <= 5


def test_content_parts_and_developer_messages_are_read(client, tools):
    response = client.chat.completions.create(
        model="offline-main",
        tools=tools,
        messages=[
            {"role": "developer", "content": "Be helpful."},
            {"role": "user", "content": [{"type": "text", "text": "Where is ORD-2025-0077?"}]},
        ],
    )
    call = response.choices[0].message.tool_calls[0]
    assert json.loads(call.function.arguments) == {"order_number": "ORD-2025-0077"}


def test_concurrent_requests_get_the_same_replies_as_sequential_ones(client, tools):
    from concurrent.futures import ThreadPoolExecutor

    texts = [f"Where is ORD-2025-{i:04d}?" if i % 2 else f"我的生日是{i % 12 + 1}月{i % 28 + 1}日" for i in range(24)]

    def ask(text: str) -> str:
        response = client.chat.completions.create(
            model="offline-main", tools=tools, messages=[{"role": "user", "content": text}]
        )
        return response.choices[0].message.model_dump_json(exclude={"tool_calls": {"__all__": {"id"}}})

    sequential = [ask(t) for t in texts]
    with ThreadPoolExecutor(max_workers=8) as pool:
        assert list(pool.map(ask, texts)) == sequential


@pytest.mark.parametrize("error", [ConnectionResetError, BrokenPipeError])
def test_a_client_dropping_its_connection_prints_no_traceback(capsys, error):
    """openai's pool drops idle keep-alive connections: the demo's log must not show that as a crash."""
    model = server.OfflineModelServer(("127.0.0.1", 0))
    try:
        for raised in (error, ValueError):  # any other error still prints its traceback
            try:
                raise raised("while reading the next request")
            except Exception:
                model.handle_error(None, ("127.0.0.1", 50000))
            printed = capsys.readouterr().err
            assert ("Traceback" in printed) is (raised is ValueError), printed
    finally:
        model.server_close()
