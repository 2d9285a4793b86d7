"""The OpenAI chat-completions wire format: completions, stream chunks and error bodies. See
docs/offline-model.md.
"""

from __future__ import annotations

import hashlib
import json
import time
from dataclasses import dataclass, field
from typing import Any

from . import tokens

MODELS = ("offline-main", "offline-cheap")
FINGERPRINT = "fp_offline"


@dataclass(frozen=True)
class PlannedCall:
    """A tool call the model decided to make; `arguments` is a dict, or raw text when malformed."""

    name: str
    arguments: dict[str, Any] | str

    def arguments_text(self) -> str:
        if isinstance(self.arguments, str):
            return self.arguments
        return json.dumps(self.arguments, ensure_ascii=False)


@dataclass(frozen=True)
class Reply:
    """What the model says: text, tool calls, or (rarely) both."""

    content: str | None
    tool_calls: tuple[PlannedCall, ...] = field(default=())

    @property
    def finish_reason(self) -> str:
        return "tool_calls" if self.tool_calls else "stop"


def error_body(
    message: str, type_: str = "invalid_request_error", param: str | None = None, code: str | None = None
) -> dict[str, Any]:
    return {"error": {"message": message, "type": type_, "param": param, "code": code}}


def _digest(*parts: str) -> str:
    return hashlib.sha256("\x1f".join(parts).encode()).hexdigest()


def completion_id(request_key: str) -> str:
    return "chatcmpl-" + _digest("id", request_key)[:29]


def call_id(request_key: str, index: int) -> str:
    return "call_" + _digest("call", request_key, str(index))[:24]


def _tool_calls_json(reply: Reply, request_key: str) -> list[dict[str, Any]]:
    return [
        {
            "id": call_id(request_key, i),
            "type": "function",
            "function": {"name": call.name, "arguments": call.arguments_text()},
        }
        for i, call in enumerate(reply.tool_calls)
    ]


def completion_tokens(reply: Reply) -> int:
    total = tokens.count(reply.content or "")
    for call in reply.tool_calls:
        total += tokens.count(call.name) + tokens.count(call.arguments_text()) + 3
    return total


def usage(prompt: int, reply: Reply) -> dict[str, int]:
    completion = completion_tokens(reply)
    return {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion}


def truncate(reply: Reply, max_tokens: int | None) -> tuple[Reply, str]:
    """Cut text content to `max_tokens`, as the API does; returns the reply and finish_reason."""
    if not max_tokens or reply.tool_calls or not reply.content or tokens.count(reply.content) <= max_tokens:
        return reply, reply.finish_reason
    kept = ""
    for piece in tokens.pieces(reply.content):
        if tokens.count(kept + piece) > max_tokens:
            break
        kept += piece
    return Reply(kept), "length"


def completion(
    reply: Reply, *, model: str, request_key: str, prompt_tokens: int, finish_reason: str, n: int = 1
) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": reply.content, "refusal": None}
    if reply.tool_calls:
        message["tool_calls"] = _tool_calls_json(reply, request_key)
    return {
        "id": completion_id(request_key),
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "system_fingerprint": FINGERPRINT,
        "choices": [
            {"index": i, "message": message, "logprobs": None, "finish_reason": finish_reason} for i in range(n)
        ],
        "usage": usage(prompt_tokens, reply),
    }


def chunks(
    reply: Reply, *, model: str, request_key: str, prompt_tokens: int, finish_reason: str, include_usage: bool
) -> list[dict[str, Any]]:
    """The stream of chunk objects for one reply: role, one piece per chunk, finish, usage."""
    created = int(time.time())
    base = {
        "id": completion_id(request_key),
        "object": "chat.completion.chunk",
        "created": created,
        "model": model,
        "system_fingerprint": FINGERPRINT,
    }

    def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        body = dict(base, choices=[{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}])
        if include_usage:
            body["usage"] = None
        return body

    out = [chunk({"role": "assistant", "content": "" if reply.content is not None else None, "refusal": None})]
    if reply.content:
        out.extend(chunk({"content": piece}) for piece in tokens.pieces(reply.content))
    for i, call in enumerate(reply.tool_calls):
        out.append(
            chunk(
                {
                    "tool_calls": [
                        {
                            "index": i,
                            "id": call_id(request_key, i),
                            "type": "function",
                            "function": {"name": call.name, "arguments": ""},
                        }
                    ]
                }
            )
        )
        for piece in tokens.chunks(call.arguments_text()):
            out.append(chunk({"tool_calls": [{"index": i, "function": {"arguments": piece}}]}))
    out.append(chunk({}, finish_reason))
    if include_usage:
        out.append(dict(base, choices=[], usage=usage(prompt_tokens, reply)))
    return out


def models_list() -> dict[str, Any]:
    return {
        "object": "list",
        "data": [{"id": name, "object": "model", "created": 1735689600, "owned_by": "offline"} for name in MODELS],
    }
