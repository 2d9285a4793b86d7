"""The durable copy of short-term memory in PostgreSQL: the rows a turn writes, in plain SQL built once from the
models' own table and column names, and a session read back. The rows live as long as the conversation's
transcript is kept; SQL instead of the ORM on the turn's path because the ORM's Python cost was most of the
memory layer's time. Everything off that path stays with the ORM. See docs/session.md and docs/bench.md.
"""

from __future__ import annotations

import functools
import uuid
from collections.abc import Callable, Collection, Sequence
from datetime import datetime
from types import MappingProxyType
from typing import Any, NamedTuple

from django.db import connection, models

from memory.models import CompressionSummary, Conversation, ConversationMessage, StateTransition
from memory.session.values import ROW_FIELDS, Session, StoredMessage, Summary, TransitionRecord
from memory.states import AgentState, Step

# A from_db_value-style converter: (value as the database sent it, field, connection) -> value as loaded.
_Converter = Callable[..., object]


class MessageRow(NamedTuple):
    """A ``ConversationMessage`` row's values, in the order of ``_MESSAGE_FIELDS``."""

    conversation_id: uuid.UUID
    seq: int
    role: str
    content: str
    tokens: int
    created_at: datetime
    metadata: dict[str, Any]  # the message's JSON metadata


class TransitionRow(NamedTuple):
    """A ``StateTransition`` row's values, in the order of ``_TRANSITION_FIELDS``."""

    conversation_id: uuid.UUID
    customer_id: int
    from_state: str
    to_state: str
    reason: str
    progress: bool
    created_at: datetime

    @property
    def step(self) -> Step:
        """The transition as loop detection reads it."""
        return Step(AgentState(self.from_state), AgentState(self.to_state), self.progress)


def _column(model: type[models.Model], name: str) -> models.Field[Any, Any]:
    field = model._meta.get_field(name)
    if not isinstance(field, models.Field):  # a reverse relation: no column of this table
        raise TypeError(f"{model.__name__}.{name} is not a column")
    return field


def _columns(model: type[models.Model], names: Sequence[str]) -> list[models.Field[Any, Any]]:
    return [_column(model, name) for name in names]


def _insert_sql(model: type[models.Model], fields: Sequence[models.Field[Any, Any]]) -> str:
    columns = ", ".join(connection.ops.quote_name(f.column) for f in fields)
    placeholders = ", ".join(["%s"] * len(fields))
    return f"INSERT INTO {connection.ops.quote_name(model._meta.db_table)} ({columns}) VALUES ({placeholders})"


_CONVERSATION_FIELDS = list(Conversation._meta.concrete_fields)
_LOCK_CONVERSATION = "SELECT {columns} FROM {table} WHERE {pk} = %s FOR UPDATE".format(
    columns=", ".join(connection.ops.quote_name(f.column) for f in _CONVERSATION_FIELDS),
    table=connection.ops.quote_name(Conversation._meta.db_table),
    pk=connection.ops.quote_name(Conversation._meta.pk.column),
)
_MESSAGE_FIELDS = _columns(
    ConversationMessage, ["conversation", "seq", "role", "content", "token_count", "created_at", "metadata"]
)
_INSERT_MESSAGE = _insert_sql(ConversationMessage, _MESSAGE_FIELDS)
_TRANSITION_FIELDS = _columns(
    StateTransition, ["conversation", "customer", "from_state", "to_state", "reason", "progress", "created_at"]
)
_INSERT_TRANSITION = _insert_sql(StateTransition, _TRANSITION_FIELDS)
_RECENT_STEPS = "SELECT {from_state}, {to_state}, {progress} FROM {table} WHERE {conversation} = %s ORDER BY {pk} DESC LIMIT %s".format(  # noqa: E501
    **{
        name: connection.ops.quote_name(_column(StateTransition, name).column)
        for name in ("from_state", "to_state", "progress", "conversation")
    },
    table=connection.ops.quote_name(StateTransition._meta.db_table),
    pk=connection.ops.quote_name(StateTransition._meta.pk.column),
)

_COVERED_SEQ = "SELECT coalesce(max({last_seq}), 0) FROM {table} WHERE {conversation} = %s".format(
    last_seq=connection.ops.quote_name(_column(CompressionSummary, "last_seq").column),
    conversation=connection.ops.quote_name(_column(CompressionSummary, "conversation").column),
    table=connection.ops.quote_name(CompressionSummary._meta.db_table),
)


def _prepared(fields: Sequence[models.Field[Any, Any]], values: Sequence[object]) -> list[Any]:
    """The values as the ORM would send them (JSON adapted, and so on)."""
    return [field.get_db_prep_save(value, connection) for field, value in zip(fields, values, strict=True)]


def _loaders(fields: Sequence[models.Field[Any, Any]]) -> list[tuple[models.Field[Any, Any], list[_Converter]]]:
    """Each field with the converters that turn its column's value into what the ORM would load (JSON
    comes back from psycopg as text): looked up once, not for every row."""
    # Field.get_db_converters is what the ORM's compiler calls; django-stubs does not declare it.
    return [(field, field.get_db_converters(connection)) for field in fields]  # type: ignore[attr-defined]


def lock_conversation(conversation_id: uuid.UUID | str) -> Conversation:
    """Return the conversation, its row locked until the transaction ends (``SELECT … FOR UPDATE``)."""
    with connection.cursor() as cursor:
        cursor.execute(_LOCK_CONVERSATION, [conversation_id])
        row = cursor.fetchone()
    if row is None:
        raise Conversation.DoesNotExist(f"no conversation {conversation_id}")
    return _conversation(row)


_CONVERSATION_LOADERS = _loaders(_CONVERSATION_FIELDS)
_CONVERSATION_ATTNAMES = [f.attname for f in _CONVERSATION_FIELDS]


def _conversation(row: Sequence[object]) -> Conversation:
    values = []
    for (field, converters), value in zip(_CONVERSATION_LOADERS, row, strict=True):
        for converter in converters:
            value = converter(value, field, connection)
        values.append(value)
    return Conversation.from_db(connection.alias, _CONVERSATION_ATTNAMES, values)


@functools.lru_cache(maxsize=64)
def _set_clause(names: tuple[str, ...]) -> tuple[str, tuple[models.Field[Any, Any], ...]]:
    """``SET`` assignments of the named fields (sorted), and the fields in their order: built once per set of names."""
    fields = tuple(_columns(Conversation, names))
    return ", ".join(f"{connection.ops.quote_name(f.column)} = %s" for f in fields), fields


def _assignments(conversation: Conversation, names: Collection[str]) -> tuple[str, list[Any]]:
    """``SET`` assignments of the named fields of ``conversation``, and their values as the ORM would send them."""
    assignments, fields = _set_clause(tuple(sorted(names)))
    return assignments, _prepared(fields, [getattr(conversation, f.attname) for f in fields])


def save_conversation(conversation: Conversation, names: Collection[str]) -> None:
    """Write the named fields of ``conversation`` to its row (as ``save(update_fields=…)`` would)."""
    assignments, values = _assignments(conversation, names)
    table, pk = connection.ops.quote_name(Conversation._meta.db_table), connection.ops.quote_name("id")
    with connection.cursor() as cursor:
        cursor.execute(f"UPDATE {table} SET {assignments} WHERE {pk} = %s", [*values, conversation.pk])


def insert_message(row: MessageRow) -> None:
    with connection.cursor() as cursor:
        cursor.execute(_INSERT_MESSAGE, _prepared(_MESSAGE_FIELDS, row))


def insert_transition(row: TransitionRow) -> None:
    with connection.cursor() as cursor:
        cursor.execute(_INSERT_TRANSITION, _prepared(_TRANSITION_FIELDS, row))


def recent_steps(conversation_id: uuid.UUID, limit: int) -> list[Step]:
    """The conversation's latest ``limit`` transitions as loop detection reads them, oldest first."""
    with connection.cursor() as cursor:
        cursor.execute(_RECENT_STEPS, [conversation_id, limit])
        rows = cursor.fetchall()
    return [Step(AgentState(a), AgentState(b), progress) for a, b, progress in reversed(rows)]


def covered_seq(conversation_id: uuid.UUID | str) -> int:
    """The last message already summarised (0 if none): read by the turn's check for due compression."""
    with connection.cursor() as cursor:
        cursor.execute(_COVERED_SEQ, [conversation_id])
        seq: int = cursor.fetchone()[0]
    return seq


def _row_of_placeholders(fields: Sequence[models.Field[Any, Any]]) -> str:
    """One row of a VALUES list for ``fields``, each placeholder cast to its column's type."""
    return "(" + ", ".join(f"%s::{f.db_type(connection)}" for f in fields) + ")"


_MESSAGE_ROW = _row_of_placeholders(_MESSAGE_FIELDS)
_TRANSITION_ROW = _row_of_placeholders(_TRANSITION_FIELDS)


@functools.lru_cache(maxsize=256)
def _batch_sql(assignments: str, messages: int, transitions: int) -> str:
    """The statement of ``commit_batch`` for one shape of batch: built once per shape, not once per turn.

    A turn's batches come in a handful of shapes (which fields changed, how many messages and
    transitions), and composing the text cost more Python than the rest of the batch.
    """
    quote = connection.ops.quote_name
    sql = [
        f"WITH saved AS (UPDATE {quote(Conversation._meta.db_table)} SET {assignments}"
        f" WHERE {quote('id')} = %s AND {quote('version')} = %s"
        f" RETURNING {', '.join(quote(f.column) for f in _CONVERSATION_FIELDS)})"
    ]
    for name, model, inserted, row, count in (
        ("messages", ConversationMessage, _MESSAGE_FIELDS, _MESSAGE_ROW, messages),
        ("transitions", StateTransition, _TRANSITION_FIELDS, _TRANSITION_ROW, transitions),
    ):
        if count:
            columns = ", ".join(quote(f.column) for f in inserted)
            sql.append(
                f", {name} AS (INSERT INTO {quote(model._meta.db_table)} ({columns})"
                f" SELECT v.* FROM saved, (VALUES {', '.join([row] * count)}) AS v)"
            )
    sql.append(" SELECT * FROM saved")
    return "".join(sql)


def commit_batch(
    conversation: Conversation,
    expected_version: int,
    names: Collection[str],
    messages: Sequence[MessageRow],
    transitions: Sequence[TransitionRow],
) -> Conversation | None:
    """Write a batch in one statement if the row still holds ``expected_version``; the row it left, or ``None``.

    The named fields of ``conversation`` are saved and the messages and transitions inserted only if the
    row was not written since that version: one autocommit statement, so one round trip and no row lock
    held across the caller's Python. Nothing at all is written when it was.
    """
    assignments, params = _assignments(conversation, names)
    params += [conversation.pk, expected_version]
    for message in messages:
        params += _prepared(_MESSAGE_FIELDS, message)
    for transition in transitions:
        params += _prepared(_TRANSITION_FIELDS, transition)
    with connection.cursor() as cursor:
        cursor.execute(_batch_sql(assignments, len(messages), len(transitions)), params)
        row = cursor.fetchone()
    return None if row is None else _conversation(row)


def read_session(conversation: Conversation, recent: int, transitions: int, *, source: str) -> Session:
    """The session as PostgreSQL holds it: its latest ``recent`` messages and ``transitions`` transitions."""
    messages = list(ConversationMessage.objects.filter(conversation=conversation).order_by("-seq")[:recent])
    moves = list(StateTransition.objects.filter(conversation=conversation).order_by("-id")[:transitions])
    summaries = CompressionSummary.objects.filter(conversation=conversation).order_by("first_seq")
    return Session(
        **{name: getattr(conversation, name) for name in ROW_FIELDS},
        state=AgentState(conversation.state),
        collected_info=MappingProxyType(dict(conversation.collected_info)),
        messages=tuple(StoredMessage.from_row(row) for row in messages[::-1]),
        summaries=tuple(Summary.from_row(row) for row in summaries),
        transitions=tuple(TransitionRecord.from_row(row) for row in moves[::-1]),
        source=source,
    )


def read_chunk(conversation_id: uuid.UUID | str, first: int, last: int) -> list[StoredMessage]:
    """Messages ``first``..``last`` of a conversation, in order: what compression summarises."""
    chunk = ConversationMessage.objects.filter(conversation_id=conversation_id, seq__gte=first, seq__lte=last)
    return [StoredMessage.from_row(row) for row in chunk.order_by("seq")]
