"""Check a chat-completions request the way the real API does, before anything reads it: each failure is an
``InvalidRequest`` carrying the message, ``param`` and ``code`` the API would send with a 400, in the real
API's wording where it has one. See docs/offline-model.md.
"""

from __future__ import annotations

from typing import Any

ROLES = ("system", "developer", "user", "assistant", "tool", "function")


class InvalidRequest(Exception):
    def __init__(self, message: str, param: str | None = None, code: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.param = param
        self.code = code


def _check_tools(body: dict[str, Any]) -> None:
    tools = body.get("tools")
    if tools is None:
        return
    if not isinstance(tools, list):
        raise InvalidRequest("Invalid type for 'tools': expected an array.", "tools", "invalid_type")
    for i, tool in enumerate(tools):
        function = tool.get("function") if isinstance(tool, dict) else None
        if not isinstance(function, dict) or not isinstance(function.get("name"), str) or not function["name"]:
            raise InvalidRequest(
                f"Missing required parameter: 'tools[{i}].function.name'.",
                f"tools[{i}].function.name",
                "missing_required_parameter",
            )


def _check_tool_sequence(messages: list[dict[str, Any]]) -> None:
    """Every tool message answers a call of the assistant message before it; every call is answered."""
    open_calls: dict[str, int] = {}  # call id -> index of the assistant message that made it
    owner: int | None = None
    for i, message in enumerate(messages):
        role = message["role"]
        if role == "tool":
            call_id = message.get("tool_call_id")
            if not isinstance(call_id, str) or not call_id:
                raise InvalidRequest(
                    f"Missing required parameter: 'messages[{i}].tool_call_id'.",
                    f"messages[{i}].tool_call_id",
                    "missing_required_parameter",
                )
            if owner is None or call_id not in open_calls:
                raise InvalidRequest(
                    "Invalid parameter: messages with role 'tool' must be a response to a preceeding message "
                    f"with 'tool_calls'. No tool call with id '{call_id}' is waiting for an answer.",
                    f"messages.[{i}].role",
                )
            del open_calls[call_id]
            continue
        if open_calls:
            raise InvalidRequest(
                "An assistant message with 'tool_calls' must be followed by tool messages responding to each "
                "'tool_call_id'. The following tool_call_ids did not have response messages: "
                + ", ".join(sorted(open_calls)),
                f"messages.[{owner}].role",
            )
        owner = None
        if role == "assistant" and message.get("tool_calls"):
            calls = message["tool_calls"]
            if not isinstance(calls, list):
                raise InvalidRequest(
                    f"Invalid type for 'messages[{i}].tool_calls': expected an array.",
                    f"messages[{i}].tool_calls",
                    "invalid_type",
                )
            for j, call in enumerate(calls):
                function = call.get("function") if isinstance(call, dict) else None
                if (
                    not isinstance(call, dict)
                    or not call.get("id")
                    or not isinstance(function, dict)
                    or not function.get("name")
                ):
                    raise InvalidRequest(
                        f"Missing required parameter: 'messages[{i}].tool_calls[{j}].function.name'.",
                        f"messages[{i}].tool_calls[{j}]",
                        "missing_required_parameter",
                    )
                open_calls[str(call["id"])] = i
            owner = i
    if open_calls:
        raise InvalidRequest(
            "An assistant message with 'tool_calls' must be followed by tool messages responding to each "
            "'tool_call_id'. The following tool_call_ids did not have response messages: "
            + ", ".join(sorted(open_calls)),
            f"messages.[{owner}].role",
        )


def check_chat_request(body: Any) -> None:
    """Raise `InvalidRequest` for a body the chat-completions API would refuse."""
    if not isinstance(body, dict):
        raise InvalidRequest("Invalid request body: expected a JSON object.")
    if not isinstance(body.get("model"), str) or not body["model"]:
        raise InvalidRequest("you must provide a model parameter", "model", "missing_required_parameter")
    if "messages" not in body or body["messages"] is None:
        raise InvalidRequest("Missing required parameter: 'messages'.", "messages", "missing_required_parameter")
    messages = body["messages"]
    if not isinstance(messages, list):
        raise InvalidRequest("Invalid type for 'messages': expected an array.", "messages", "invalid_type")
    if not messages:
        raise InvalidRequest(
            "Invalid 'messages': empty array. Expected an array with minimum length 1, but got an empty array instead.",
            "messages",
            "empty_array",
        )
    for i, message in enumerate(messages):
        if not isinstance(message, dict):
            raise InvalidRequest(
                f"Invalid type for 'messages[{i}]': expected an object.", f"messages[{i}]", "invalid_type"
            )
        role = message.get("role")
        if role is None:
            raise InvalidRequest(
                f"Missing required parameter: 'messages[{i}].role'.",
                f"messages[{i}].role",
                "missing_required_parameter",
            )
        if role not in ROLES:
            raise InvalidRequest(
                f"Invalid value: '{role}'. Supported values are: 'system', 'assistant', 'user', 'function', "
                "'tool', and 'developer'.",
                f"messages[{i}].role",
                "invalid_value",
            )
        content = message.get("content")
        if content is not None and not isinstance(content, (str, list)):
            raise InvalidRequest(f"Invalid type for 'messages[{i}].content'.", f"messages[{i}].content", "invalid_type")
        if role in ("user", "system", "developer") and content is None:
            raise InvalidRequest(
                f"Missing required parameter: 'messages[{i}].content'.",
                f"messages[{i}].content",
                "missing_required_parameter",
            )
    _check_tools(body)
    _check_tool_sequence(messages)
    stream = body.get("stream")
    if stream is not None and not isinstance(stream, bool):
        raise InvalidRequest("Invalid type for 'stream': expected a boolean.", "stream", "invalid_type")
    for name in ("max_tokens", "max_completion_tokens"):
        value = body.get(name)
        if value is not None and (not isinstance(value, int) or isinstance(value, bool) or value < 1):
            raise InvalidRequest(f"Invalid '{name}': expected an integer of at least 1.", name, "invalid_value")
    if body.get("stream_options") is not None and not isinstance(body["stream_options"], dict):
        raise InvalidRequest("Invalid type for 'stream_options': expected an object.", "stream_options", "invalid_type")
    n = body.get("n")
    if n is not None and (not isinstance(n, int) or not 1 <= n <= 8):
        raise InvalidRequest("Invalid value for 'n': expected an integer from 1 to 8.", "n", "invalid_value")
    response_format = body.get("response_format")
    if isinstance(response_format, dict) and response_format.get("type") == "json_object":
        text = " ".join(str(m.get("content") or "") for m in messages).lower()
        if "json" not in text:
            raise InvalidRequest(
                "'messages' must contain the word 'json' in some form, to use 'response_format' of type 'json_object'.",
                "messages",
            )
