"""The offline model under test: one server subprocess per session, driven by the real client.

Also the demo shop's tool schemas and random generators for order numbers, dates, addresses and
names, handed out as fixtures so each test file builds its own utterances from templates.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from openai import OpenAI

from agentsite.offline_model.runner import OfflineModelProcess
from tests.offline_model.random_values import Gen
from tests.offline_model.replies import Said, tool_reply
from tests.offline_model.tool_schemas import tool_schemas


@pytest.fixture
def client(offline_model: OfflineModelProcess) -> Iterator[OpenAI]:
    client = OpenAI(base_url=offline_model.base_url, api_key="offline", max_retries=0, timeout=20)
    yield client
    client.close()


@pytest.fixture
def tools() -> list[dict[str, Any]]:
    return tool_schemas()


@pytest.fixture
def tools_without_recall(tools) -> list[dict[str, Any]]:
    """What the agent offers outside the tool mode: every tool but ``recall_memory``."""
    return [t for t in tools if t["function"]["name"] != "recall_memory"]


@pytest.fixture
def say(client: OpenAI, tools: list[dict[str, Any]]) -> Callable[..., Said]:
    """Send messages (a string is one user message) and return the first choice."""

    def send(
        messages: str | list[dict[str, Any]],
        *,
        system: str | None = None,
        memory: list[str] | None = None,
        tools_offered: list[dict[str, Any]] | None = tools,
        **kwargs: Any,
    ) -> Said:
        if isinstance(messages, str):
            messages = [{"role": "user", "content": messages}]
        if system is not None or memory is not None:
            prompt = system or "You are the customer-service agent of the demo shop."
            if memory is not None:
                prompt += "\n<<<MEMORY\n" + "\n".join(memory) + "\nMEMORY>>>"
            messages = [{"role": "system", "content": prompt}, *messages]
        extra = {"tools": tools_offered} if tools_offered else {}
        response = client.chat.completions.create(model="offline-main", messages=messages, **extra, **kwargs)
        message = response.choices[0].message
        calls = [(c.function.name, json.loads(c.function.arguments)) for c in message.tool_calls or []]
        return Said(message.content, calls, response)

    return send


@pytest.fixture
def gen() -> Callable[[int], Gen]:
    return Gen


@pytest.fixture
def answer_tools() -> Callable[..., list[dict[str, Any]]]:
    return tool_reply
