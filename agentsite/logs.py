"""Structured logs: the conversation a log line belongs to (``log_context`` and ``ContextFilter``, so every line
of a turn names its conversation wherever it was logged from; ``run_in_context`` carries the context into a
thread pool) and JSON lines for log collectors (``LOG_FORMAT``). See docs/operations.md ("Logs").
"""

from __future__ import annotations

import contextlib
import contextvars
import json
import logging
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from typing import Any, ParamSpec, TypeVar

P = ParamSpec("P")
R = TypeVar("R")

CONTEXT_FIELDS = ("conversation_id", "customer_id", "task")

_context: contextvars.ContextVar[dict[str, str] | None] = contextvars.ContextVar("log_context", default=None)


@contextlib.contextmanager
def log_context(**fields: Any) -> Iterator[None]:
    """Attach ``fields`` (conversation_id, customer_id, task) to every record logged inside the block."""
    merged = {**(_context.get() or {}), **{k: str(v) for k, v in fields.items() if v is not None}}
    token = _context.set(merged)
    try:
        yield
    finally:
        _context.reset(token)


def current() -> dict[str, str]:
    """Return the fields of the current log context."""
    return dict(_context.get() or {})


def run_in_context(fn: Callable[P, R]) -> Callable[P, R]:
    """Wrap ``fn`` so that it runs in a copy of the caller's context (for thread pools)."""
    context = contextvars.copy_context()

    def run(*args: P.args, **kwargs: P.kwargs) -> R:
        return context.run(fn, *args, **kwargs)

    return run


class ContextFilter(logging.Filter):
    """Copy the log context onto each record (``-`` where a field is unset, for plain formats)."""

    def filter(self, record: logging.LogRecord) -> bool:
        fields = _context.get() or {}
        for name in CONTEXT_FIELDS:
            if not hasattr(record, name):
                setattr(record, name, fields.get(name, "-"))
        return True


class JsonFormatter(logging.Formatter):
    """One JSON object per line: time, level, logger, message, the context fields, and any exception."""

    def format(self, record: logging.LogRecord) -> str:
        line: dict[str, Any] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
            "process": record.process,
            "thread": record.threadName,
        }
        for name in CONTEXT_FIELDS:
            value = getattr(record, name, "-")
            if value not in (None, "-"):
                line[name] = value
        if record.exc_info and not record.exc_text:
            record.exc_text = self.formatException(record.exc_info)
        if record.exc_text:
            line["exception"] = record.exc_text
        return json.dumps(line, ensure_ascii=False, default=str)


def install(target: logging.Logger) -> None:
    """Give every handler of ``target`` the context and redaction filters and the chosen format.

    Celery replaces the root logger's handlers in its worker processes; its ``after_setup_logger``
    signals call this (agentsite/celery.py) so worker lines are redacted and structured too.
    """
    from django.conf import settings

    from agentsite.redaction import RedactingFilter

    for handler in target.handlers:
        for kind in (ContextFilter, RedactingFilter):
            if not any(isinstance(f, kind) for f in handler.filters):
                handler.addFilter(kind())
        if settings.LOG_FORMAT == "json":
            handler.setFormatter(JsonFormatter())
