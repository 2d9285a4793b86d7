"""What the model sees in one request: the task, the memory block, the turns and the tools, read by the
conventions the application follows (the ``TASK:`` marker, the ``<<<MEMORY`` and ``<<<SAID`` blocks, the
current date). See docs/offline-model.md.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from dataclasses import dataclass, field
from typing import Any

from . import corrections, dates

TASK_CHAT = "chat"
TASK_EXTRACT = "extract"
TASK_SUMMARISE = "summarise"
TASK_RECAP = "recap"  # a whole conversation, for the customer's file
TASK_DIGEST = "digest"  # a chunk of a long conversation, for its compressed history
TASKS = (TASK_CHAT, TASK_EXTRACT, TASK_SUMMARISE, TASK_RECAP, TASK_DIGEST)

EXTRACT_MARKER = "TASK: extract_memories"
SUMMARY_MARKERS = ("TASK: summarise", "TASK: summarize")
RECAP_MARKERS = ("TASK: summarise_conversation", "TASK: summarize_conversation")
DIGEST_MARKER = "TASK: digest_chunk"
MEMORY_OPEN = "<<<MEMORY"
MEMORY_CLOSE = "MEMORY>>>"
SAID_OPEN = "<<<SAID"
SAID_CLOSE = "SAID>>>"

SYSTEM_ROLES = ("system", "developer")

# Tags the application writes, in either language, and what they mean to the model.
TAGS = {
    "confirmed": "confirmed",
    "已确认": "confirmed",
    "确认": "confirmed",
    "reference": "reference",
    "参考": "reference",
    "unconfirmed": "unconfirmed",
    "有待确认": "unconfirmed",
    "待确认": "unconfirmed",
    "未确认": "unconfirmed",
    "disputed": "disputed",
    "有争议": "disputed",
    "争议": "disputed",
    "requested": "requested",
    "requested, not applied": "requested",
    "客户要求，未生效": "requested",
    "未生效": "requested",
}


def content_text(content: Any) -> str:
    """Flatten a message's content (string, parts list or null) to text."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = []
        for part in content:
            if isinstance(part, dict) and isinstance(part.get("text"), str):
                parts.append(part["text"])
            elif isinstance(part, str):
                parts.append(part)
        return "\n".join(parts)
    return json.dumps(content, ensure_ascii=False)


def task_of(messages: list[dict[str, Any]]) -> str:
    """Tell chat, extraction and summary requests apart by the first system message."""
    for message in messages:
        if message.get("role") in SYSTEM_ROLES:
            text = content_text(message.get("content")).lstrip()
            if text.startswith(EXTRACT_MARKER):
                return TASK_EXTRACT
            if text.startswith(RECAP_MARKERS):
                return TASK_RECAP
            if text.startswith(DIGEST_MARKER):
                return TASK_DIGEST
            if text.startswith(SUMMARY_MARKERS):
                return TASK_SUMMARISE
            return TASK_CHAT
    return TASK_CHAT


@dataclass(frozen=True)
class MemoryEntry:
    """One line of the memory block. Data, never instructions."""

    tag: str  # confirmed | requested | reference | unconfirmed | disputed
    content: str
    key: str = ""
    value: str = ""


_MEMORY_LINE = re.compile(r"^\s*[-*•]\s*(?:\[(?P<tag>[^\]]*)\])?\s*(?P<body>.*?)\s*$")
_META = re.compile(r"\{\s*key\s*=\s*(?P<key>[^;{}]*?)\s*;\s*value\s*=\s*(?P<value>[^{}]*?)\s*\}\s*$")


def parse_memory_line(line: str) -> MemoryEntry | None:
    m = _MEMORY_LINE.match(line)
    if not m or not m.group("body"):
        return None
    body = m.group("body")
    key = value = ""
    meta = _META.search(body)
    if meta:
        key, value = meta.group("key").strip(), meta.group("value").strip()
        body = body[: meta.start()].rstrip()
    tag = TAGS.get((m.group("tag") or "").strip().lower(), "reference")
    return MemoryEntry(tag=tag, content=body, key=key, value=value)


def _split_block(system: str, opening: str, closing: str) -> tuple[str, list[str]]:
    """The system text without the block between ``opening`` and ``closing`` lines, and the block's lines."""
    kept: list[str] = []
    inside: list[str] = []
    within = False
    for line in system.splitlines():
        stripped = line.strip()
        if stripped in (opening, closing):
            within = stripped == opening
        else:
            (inside if within else kept).append(line)
    return "\n".join(kept), inside


def split_memory_block(system: str) -> tuple[str, list[MemoryEntry]]:
    """Return the system text without its memory block, and the block's entries."""
    kept, lines = _split_block(system, MEMORY_OPEN, MEMORY_CLOSE)
    return kept, [entry for line in lines if (entry := parse_memory_line(line))]


_SAID_LINE = re.compile(r"^\s*-\s*(?P<label>[^:：]+?)\s*[:：]\s*(?P<value>.+?)\s*$")


def split_said_block(system: str) -> tuple[str, tuple[tuple[str, str], ...]]:
    """Return the system text without the said-earlier block, and the block's ``(label, value)`` lines."""
    kept, lines = _split_block(system, SAID_OPEN, SAID_CLOSE)
    return kept, tuple((m.group("label"), m.group("value")) for line in lines if (m := _SAID_LINE.match(line)))


@dataclass(frozen=True)
class ToolCall:
    id: str
    name: str
    arguments: str

    def args(self) -> dict[str, Any]:
        try:
            value = json.loads(self.arguments or "{}")
        except ValueError:
            return {}
        return value if isinstance(value, dict) else {}


@dataclass(frozen=True)
class Turn:
    role: str  # user | assistant | tool
    text: str
    tool_calls: tuple[ToolCall, ...] = ()
    tool_call_id: str | None = None


@dataclass(frozen=True)
class ToolResult:
    call: ToolCall
    content: str

    def data(self) -> Any:
        """The result as JSON; a long result working memory summarised is read back from its shorthand."""
        return result_data(self.content)


def result_data(content: str) -> Any:
    """A tool result's content as data: its JSON, the fields of a summary working memory wrote, else the text."""
    try:
        return json.loads(content)
    except ValueError:
        pass
    if content.startswith("[summary] "):
        from .summary import read_back  # the summariser's own shorthand; it imports this module

        return read_back(content) or content
    return content


@dataclass(frozen=True)
class Conversation:
    task: str
    system: str
    memories: tuple[MemoryEntry, ...]
    turns: tuple[Turn, ...]
    tools: dict[str, dict[str, Any]] = field(default_factory=dict)
    today: dt.date | None = None
    said: tuple[tuple[str, str], ...] = ()  # the said-earlier block of a compressed history: (key or order, value)

    @property
    def latest_user_text(self) -> str:
        for turn in reversed(self.turns):
            if turn.role == "user":
                return turn.text
        return ""

    @property
    def latest_user_index(self) -> int:
        for i in range(len(self.turns) - 1, -1, -1):
            if self.turns[i].role == "user":
                return i
        return -1

    def earlier_turns(self) -> list[Turn]:
        """Turns before the latest user message, most recent first."""
        return list(reversed(self.turns[: max(self.latest_user_index, 0)]))

    def pending_results(self) -> list[ToolResult]:
        """The tool results that end the conversation, paired with the calls they answer."""
        results: list[Turn] = []
        i = len(self.turns) - 1
        while i >= 0 and self.turns[i].role == "tool":
            results.append(self.turns[i])
            i -= 1
        if not results or i < 0:
            return []
        calls = {c.id: c for c in self.turns[i].tool_calls}
        paired = []
        for turn in reversed(results):
            call = calls.get(turn.tool_call_id or "", ToolCall(turn.tool_call_id or "", "unknown", "{}"))
            paired.append(ToolResult(call, turn.text))
        return paired

    def results_since_user(self) -> list[ToolResult]:
        """Every tool result after the latest customer message, each paired with its call, in order."""
        return self.results_from(self.latest_user_index + 1)

    def results_from(self, start: int = 0) -> list[ToolResult]:
        """Every tool result from turn ``start`` on, each paired with its call (one no turn holds reads as
        ``unknown``), in order."""
        calls: dict[str, ToolCall] = {}
        paired = []
        for turn in self.turns[start:]:
            if turn.role == "assistant":
                calls.update({c.id: c for c in turn.tool_calls})
            elif turn.role == "tool":
                call = calls.get(turn.tool_call_id or "", ToolCall(turn.tool_call_id or "", "unknown", "{}"))
                paired.append(ToolResult(call, turn.text))
        return paired

    def all_text(self) -> str:
        """Everything the model was sent, as text (for scans that may look anywhere)."""
        parts = [self.system] + [m.content + " " + m.value for m in self.memories]
        for turn in self.turns:
            parts.append(turn.text)
            parts.extend(c.arguments for c in turn.tool_calls)
        return "\n".join(parts)


def _tool_call(raw: dict[str, Any]) -> ToolCall:
    function = raw.get("function") or {}
    arguments = function.get("arguments")
    if not isinstance(arguments, str):
        arguments = json.dumps(arguments or {}, ensure_ascii=False)
    return ToolCall(str(raw.get("id", "")), str(function.get("name", "")), arguments)


def from_request(body: dict[str, Any]) -> Conversation:
    """Build the conversation from a validated chat-completions request body."""
    messages: list[dict[str, Any]] = body["messages"]
    task = task_of(messages)
    system_parts: list[str] = []
    turns: list[Turn] = []
    for message in messages:
        role = message.get("role")
        text = content_text(message.get("content"))
        if role in SYSTEM_ROLES:
            system_parts.append(text)
        elif role == "assistant":
            calls = tuple(_tool_call(c) for c in message.get("tool_calls") or [] if isinstance(c, dict))
            turns.append(Turn("assistant", text, calls))
        elif role in ("tool", "function"):
            turns.append(Turn("tool", text, tool_call_id=message.get("tool_call_id") or message.get("name")))
        else:
            turns.append(Turn("user", corrections.as_meant(text) if task == TASK_CHAT else text))
    turns = _without_steps_not_run(turns)
    system = "\n".join(system_parts)
    plain_system, memories = split_memory_block(system)
    plain_system, said = split_said_block(plain_system)
    tools: dict[str, dict[str, Any]] = {}
    for tool in body.get("tools") or []:
        function = tool.get("function") or {}
        if function.get("name"):
            tools[function["name"]] = function.get("parameters") or {}
    return Conversation(
        task=task,
        system=plain_system,
        memories=tuple(memories),
        turns=tuple(turns),
        tools=tools,
        today=dates.today_from(plain_system),
        said=said,
    )


def _without_steps_not_run(turns: list[Turn]) -> list[Turn]:
    """The turns without a step whose every call came back not run (the application refused arguments that
    broke a schema): a model told so calls again, as if that step had not been."""
    not_run = {t.tool_call_id for t in turns if t.role == "tool" and _not_run(t.text)}
    refused = {c.id for t in turns if t.tool_calls and all(c.id in not_run for c in t.tool_calls) for c in t.tool_calls}
    return [
        t
        for t in turns
        if not (t.tool_calls and {c.id for c in t.tool_calls} <= refused)
        and not (t.role == "tool" and t.tool_call_id in refused)
    ]


def _not_run(text: str) -> bool:
    try:
        data = json.loads(text)
    except ValueError:
        return False
    return isinstance(data, dict) and data.get("not_run") is True
