"""The offline model's replies as tests read them, and the conversation that answers their tool calls."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any


@dataclass
class Said:
    """One assistant reply, flattened for assertions."""

    content: str | None
    calls: list[tuple[str, dict[str, Any]]]
    raw: Any

    @property
    def names(self) -> list[str]:
        return [name for name, _ in self.calls]


def tool_reply(said: Said, results: list[Any], request: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The conversation after answering each of `said`'s tool calls with the matching result."""
    message = said.raw.choices[0].message
    follow = [*request, message.model_dump(exclude_none=True)]
    for call, result in zip(message.tool_calls, results, strict=True):
        follow.append({"role": "tool", "tool_call_id": call.id, "content": json.dumps(result, ensure_ascii=False)})
    return follow
