"""Short-term memory, the second tier: one conversation's session, hot in Redis and durable in PostgreSQL, for as
long as the conversation lasts and its transcript is kept. ``store`` holds the API and its rules, ``hot`` the
Redis copy, ``rows`` the PostgreSQL copy, ``batch`` the grouping of writes, ``values`` what a read returns;
callers import from here. See docs/session.md.
"""

from memory.session.batch import observing_transitions
from memory.session.hot import SessionKeys
from memory.session.store import SessionStore, store
from memory.session.values import (
    RESERVED_METADATA,
    BotMayNotReply,
    Session,
    StoredMessage,
    Summary,
    TransitionRecord,
    TransitionResult,
)

__all__ = [
    "RESERVED_METADATA",
    "BotMayNotReply",
    "Session",
    "SessionKeys",
    "SessionStore",
    "StoredMessage",
    "Summary",
    "TransitionRecord",
    "TransitionResult",
    "observing_transitions",
    "store",
]
