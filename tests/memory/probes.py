"""Look at what the memory tier left behind from outside it: its Redis keys, the model calls it made."""

from __future__ import annotations


def session_keys(redis_conn) -> list[bytes]:
    """Return the short-term memory's keys in Redis."""
    return list(redis_conn.scan_iter(match="stm:*"))


def digest_calls(offline_model) -> int:
    """Return how many chunk-digest requests the offline model has answered."""
    return offline_model.stats()["by_task"]["digest"]
