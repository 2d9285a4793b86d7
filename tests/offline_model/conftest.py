"""The offline model under test: one server subprocess per session, driven by the real client.

Also the demo shop's tool schemas and random generators for order numbers, dates, addresses and
names, handed out as fixtures so each test file builds its own utterances from templates.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from openai import OpenAI

from agentsite.offline_model.runner import OfflineModelProcess
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


@dataclass
class Said:
    """One assistant reply, flattened for assertions."""

    content: str | None
    calls: list[tuple[str, dict[str, Any]]]
    raw: Any

    @property
    def names(self) -> list[str]:
        return [name for name, _ in self.calls]


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


class Gen:
    """Random values and phrasings for template-generated utterances."""

    SURNAMES_ZH = "王李张刘陈杨黄赵吴周徐孙马朱胡郭何高林罗"
    GIVEN_ZH = [
        "伟",
        "芳",
        "娜",
        "敏",
        "静",
        "丽",
        "强",
        "磊",
        "洋",
        "艳",
        "勇",
        "军",
        "杰",
        "娟",
        "涛",
        "明",
        "超",
        "秀英",
        "桂英",
        "建华",
    ]
    FIRST_EN = ["Alice", "Bob", "Carol", "David", "Emma", "Frank", "Grace", "Henry", "Isla", "Jack", "Olivia", "Liam"]
    LAST_EN = ["Smith", "Johnson", "Brown", "Taylor", "Miller", "Wilson", "Moore", "Clark", "Walker", "Young"]
    PROVINCES = [
        ("浙江省", "杭州市", "西湖区"),
        ("广东省", "深圳市", "南山区"),
        ("江苏省", "南京市", "鼓楼区"),
        ("", "上海市", "浦东新区"),
        ("", "北京市", "朝阳区"),
        ("四川省", "成都市", "武侯区"),
    ]
    ROADS_ZH = ["文三路", "科技园路", "中山路", "世纪大道", "建国路", "人民路", "解放大道", "长江路"]
    STREETS_EN = [
        "Elm Street",
        "Oak Avenue",
        "Maple Road",
        "Baker Street",
        "Sunset Boulevard",
        "Park Lane",
        "Cedar Drive",
        "Hill Road",
    ]
    CITIES_EN = ["Springfield", "London", "Boston", "Seattle", "Leeds", "Austin"]
    MONTHS_EN = [
        "January",
        "February",
        "March",
        "April",
        "May",
        "June",
        "July",
        "August",
        "September",
        "October",
        "November",
        "December",
    ]
    ZH_DIGITS = "零一二三四五六七八九"

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)

    def choice(self, items: Any) -> Any:
        return self.rng.choice(items)

    def order(self, lower: bool = False) -> str:
        value = f"ORD-{self.rng.choice([2024, 2025])}-{self.rng.randint(1, 9999):04d}"
        return value.lower() if lower else value

    def month_day(self) -> tuple[int, int]:
        month = self.rng.randint(1, 12)
        return month, self.rng.randint(1, 28)

    def zh_number(self, n: int) -> str:
        if n < 10:
            return self.ZH_DIGITS[n]
        tens, units = divmod(n, 10)
        return ("" if tens == 1 else self.ZH_DIGITS[tens]) + "十" + (self.ZH_DIGITS[units] if units else "")

    def zh_address(self) -> str:
        province, city, district = self.choice(self.PROVINCES)
        extra = self.choice(["", f"{self.rng.randint(1, 30)}栋{self.rng.randint(101, 2505)}室"])
        return f"{province}{city}{district}{self.choice(self.ROADS_ZH)}{self.rng.randint(1, 999)}号{extra}"

    def en_address(self) -> str:
        return f"{self.rng.randint(1, 9999)} {self.choice(self.STREETS_EN)}, {self.choice(self.CITIES_EN)}"

    def zh_name(self) -> str:
        return self.choice(self.SURNAMES_ZH) + self.choice(self.GIVEN_ZH)

    def en_name(self) -> str:
        return f"{self.choice(self.FIRST_EN)} {self.choice(self.LAST_EN)}"

    def cn_mobile(self) -> str:
        return "1" + self.choice("3456789") + "".join(str(self.rng.randint(0, 9)) for _ in range(9))

    def email(self) -> str:
        user = self.choice(self.FIRST_EN) + "." + self.choice(self.LAST_EN) + str(self.rng.randint(1, 99))
        return f"{user}@{self.choice(['Example.com', 'mail.example.org', 'QQ.com'])}"


@pytest.fixture
def gen() -> Callable[[int], Gen]:
    return Gen


def tool_reply(said: Said, results: list[Any], request: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The conversation after answering each of `said`'s tool calls with the matching result."""
    message = said.raw.choices[0].message
    follow = [*request, message.model_dump(exclude_none=True)]
    for call, result in zip(message.tool_calls, results, strict=True):
        follow.append({"role": "tool", "tool_call_id": call.id, "content": json.dumps(result, ensure_ascii=False)})
    return follow


@pytest.fixture
def answer_tools() -> Callable[..., list[dict[str, Any]]]:
    return tool_reply
