"""The session store's durable rows on a turn's path, written with plain SQL in few round trips.

A chat turn writes twice (its customer's message, then the reply), and each write took a row lock,
an insert per message and per transition, a read of recent transitions for loop detection and a
save of the conversation row. Through the ORM each statement cost about 0.5 ms of Python
(compiling the query, building the model) while PostgreSQL ran it in about 0.05 ms; and on this
kind of machine every round trip after a pause costs 0.15–0.3 ms of waking the server
(docs/bench.md). So a batch is two statements here: ``lock_conversation`` locks the row and
returns it with the recent transitions; ``write_batch`` inserts the batch's messages and
transitions and updates the row, as one statement. Both are built from the models' own table and
column names, so a migration that renames a column changes them too; values go through the fields'
own preparation and conversion, and the row comes back as the model instance the rest of the code
expects (``Model.from_db``). Everything off the turn's path (rebuilding a session, compression, the
admin, consolidation) stays with the ORM.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Collection, Sequence
from typing import Any

from django.db import connection, models

from memory.models import CompressionSummary, Conversation, ConversationMessage, StateTransition
from memory.states import AgentState, Step


def _columns(model: type[models.Model], names: Sequence[str]) -> list[models.Field]:
    return [model._meta.get_field(name) for name in names]


_CONVERSATION_FIELDS = list(Conversation._meta.concrete_fields)
_MESSAGE_FIELDS = _columns(
    ConversationMessage, ["conversation", "seq", "role", "content", "token_count", "created_at", "metadata"]
)
_TRANSITION_FIELDS = _columns(
    StateTransition, ["conversation", "customer", "from_state", "to_state", "reason", "progress", "created_at"]
)


def _q(name: str) -> str:
    return connection.ops.quote_name(name)


def _transition(name: str) -> str:
    return _q(StateTransition._meta.get_field(name).column)


# The row, locked, and its latest transitions (oldest first, as JSON text) for loop detection.
_LOCK_CONVERSATION = """
    SELECT {columns}, (
        SELECT coalesce(json_agg(json_build_array(s.from_state, s.to_state, s.progress) ORDER BY s.id), '[]')::text
        FROM (
            SELECT {pk} AS id, {from_state} AS from_state, {to_state} AS to_state, {progress} AS progress
            FROM {transitions} WHERE {conversation} = c.{conversation_pk} ORDER BY {pk} DESC LIMIT %s
        ) s
    )
    FROM {table} c WHERE c.{conversation_pk} = %s FOR UPDATE OF c
""".format(
    columns=", ".join(f"c.{_q(f.column)}" for f in _CONVERSATION_FIELDS),
    table=_q(Conversation._meta.db_table),
    conversation_pk=_q(Conversation._meta.pk.column),
    transitions=_q(StateTransition._meta.db_table),
    pk=_q(StateTransition._meta.pk.column),
    from_state=_transition("from_state"),
    to_state=_transition("to_state"),
    progress=_transition("progress"),
    conversation=_transition("conversation"),
)


def _insert(model: type[models.Model], fields: Sequence[models.Field], count: int) -> str:
    row = "(" + ", ".join(["%s"] * len(fields)) + ")"
    columns = ", ".join(_q(f.column) for f in fields)
    return f"INSERT INTO {_q(model._meta.db_table)} ({columns}) VALUES {', '.join([row] * count)}"


_COVERED_SEQ = "SELECT coalesce(max({last_seq}), 0) FROM {table} WHERE {conversation} = %s".format(
    last_seq=_q(CompressionSummary._meta.get_field("last_seq").column),
    conversation=_q(CompressionSummary._meta.get_field("conversation").column),
    table=_q(CompressionSummary._meta.db_table),
)


def _prepared(fields: Sequence[models.Field], values: Sequence[Any]) -> list[Any]:
    """The values as the ORM would send them (JSON adapted, and so on)."""
    return [field.get_db_prep_save(value, connection) for field, value in zip(fields, values, strict=True)]


def _loaded(field: models.Field, value: Any) -> Any:
    """A column's value as the ORM would load it (JSON comes back from psycopg as text)."""
    for converter in field.get_db_converters(connection):
        value = converter(value, field, connection)
    return value


def lock_conversation(conversation_id: uuid.UUID | str, *, steps: int) -> tuple[Conversation, list[Step]]:
    """Return the conversation, its row locked until the transaction ends, and its latest ``steps``
    transitions as loop detection reads them (oldest first)."""
    with connection.cursor() as cursor:
        cursor.execute(_LOCK_CONVERSATION, [steps, conversation_id])
        row = cursor.fetchone()
    if row is None:
        raise Conversation.DoesNotExist(f"no conversation {conversation_id}")
    *columns, recent = row
    values = [_loaded(field, value) for field, value in zip(_CONVERSATION_FIELDS, columns, strict=True)]
    conversation = Conversation.from_db(connection.alias, [f.attname for f in _CONVERSATION_FIELDS], values)
    return conversation, [Step(AgentState(a), AgentState(b), progress) for a, b, progress in json.loads(recent)]


def write_batch(
    conversation: Conversation,
    names: Collection[str],
    messages: Sequence[Sequence[Any]] = (),
    transitions: Sequence[Sequence[Any]] = (),
) -> None:
    """In one statement: insert ``messages`` and ``transitions`` and write the named fields of the row.

    A message is (conversation id, seq, role, content, token count, created at, metadata); a
    transition is (conversation id, customer id, from state, to state, reason, progress, created at).
    """
    parts, params = [], []
    for name, model, fields, rows in (
        ("messages", ConversationMessage, _MESSAGE_FIELDS, messages),
        ("transitions", StateTransition, _TRANSITION_FIELDS, transitions),
    ):
        if rows:
            parts.append(f"{name} AS ({_insert(model, fields, len(rows))})")
            for values in rows:
                params += _prepared(fields, values)
    fields = _columns(Conversation, sorted(names))
    assignments = ", ".join(f"{_q(f.column)} = %s" for f in fields)
    update = f"UPDATE {_q(Conversation._meta.db_table)} SET {assignments} WHERE {_q(Conversation._meta.pk.column)} = %s"
    params += [*_prepared(fields, [getattr(conversation, f.attname) for f in fields]), conversation.pk]
    with connection.cursor() as cursor:
        cursor.execute(("WITH " + ", ".join(parts) + " " if parts else "") + update, params)


def covered_seq(conversation_id: uuid.UUID | str) -> int:
    """The last message already summarised (0 if none): read by the turn's check for due compression."""
    with connection.cursor() as cursor:
        cursor.execute(_COVERED_SEQ, [conversation_id])
        return cursor.fetchone()[0]
