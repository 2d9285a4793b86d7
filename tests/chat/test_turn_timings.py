"""A turn reports where its time went, by phase, and a consolidation run does too (the benchmarks read them)."""

import pytest

from chat.agent import run_turn
from memory import session as short_term
from memory.models import LongTermMemory
from memory.states import AgentState
from memory.tasks import consolidate_conversation
from tests.factories import CustomerFactory

pytestmark = pytest.mark.django_db(transaction=True)

MEMORY_LAYER = {"short_term", "embedding", "recall", "working_memory", "bookkeeping"}


def _customer(name: str):
    return CustomerFactory(username=name, password="x")


def test_an_active_turn_times_every_tier_and_the_model_apart():
    user = _customer("timed")
    conversation = short_term.store().start(user.pk).id

    turn = run_turn(user.pk, conversation, "My birthday is March 15th")

    assert turn.reply
    assert MEMORY_LAYER | {"model"} <= set(turn.timings)
    assert all(ms >= 0 for ms in turn.timings.values())
    assert set(turn.cpu_timings) == set(turn.timings)
    # A second turn with the same text finds its query embedding in the cache: still a phase, far cheaper
    # than the model it never calls — but timings are not asserted (no timed assertions), only their shape.
    again = run_turn(user.pk, conversation, "My birthday is March 15th")
    assert set(again.timings) >= MEMORY_LAYER


def test_a_turn_that_runs_a_tool_charges_it_to_tools_not_to_memory():
    user = _customer("tooluser")
    conversation = short_term.store().start(user.pk).id

    turn = run_turn(user.pk, conversation, "What's the status of order ORD-2025-0001?")

    assert "tools" in turn.timings  # lookup_order ran (and answered "not found")


def test_deferred_mode_without_recall_has_no_embedding(settings):
    settings.MEMORY_RECALL_MODE = "deferred"
    user = _customer("deferred")
    conversation = short_term.store().start(user.pk).id

    turn = run_turn(user.pk, conversation, "Thanks!")

    assert "embedding" not in turn.timings and "recall" not in turn.timings
    assert {"short_term", "working_memory", "model", "bookkeeping"} <= set(turn.timings)


def test_consolidation_reports_model_embedding_and_decisions():
    user = _customer("consolidated")
    store = short_term.store()
    conversation = store.start(user.pk).id
    run_turn(user.pk, conversation, "My birthday is March 15th")

    result = consolidate_conversation.apply(args=[str(conversation)]).get()

    assert LongTermMemory.objects.filter(customer=user, key="birthday", value="03-15").exists()
    assert {"model", "embedding", "decisions"} <= set(result["timings"])


def _statements_of_turn(sent_sql: list[str], user, conversation, text: str):
    """The turn's result and the statements it sent, on every connection (counted, not timed).

    Not counted: the setup of a connection being opened. Under the tests' ``DATABASE_CONN_MAX_AGE=0``
    recall's helper thread opens one for each turn; with persistent connections it keeps its own.
    """
    sent_sql.clear()
    turn = run_turn(user.pk, conversation, text)
    return turn, [s for s in sent_sql if not s.startswith("SELECT set_config('TimeZone'")]


def _batches(statements: list[str]) -> list[str]:
    return [s for s in statements if s.startswith('WITH saved AS (UPDATE "memory_conversation"')]


def test_a_turn_writes_its_conversation_in_two_statements(sent_sql):
    """The customer's message (with its slots and state) and the reply (with its state) are one statement each.

    Before batching, such a turn sent 22 statements (7 of them committing writes) and 5 session
    pipelines; with a row lock per batch (BEGIN, lock, inserts, update, COMMIT), 14; with the profile
    read with the turn lock and each batch one statement decided on the session the turn loaded, these.
    """
    user = _customer("counted")
    conversation = short_term.store().start(user.pk).id
    run_turn(user.pk, conversation, "Hello")  # the first turn warms the caches and the model client

    turn, statements = _statements_of_turn(sent_sql, user, conversation, "Thanks, that helps")

    assert turn.reply and not turn.failed
    assert len(_batches(statements)) == 2, statements  # the conversation row, once per batch, with its inserts
    assert not any("FOR UPDATE" in s for s in statements), statements  # no row lock
    # lock and profile, recall's look for any memory (a new customer has none: nothing to search), model's record, unlock
    assert len(statements) == 6, statements


def test_a_turn_with_a_reading_tool_writes_each_step_in_one_statement(sent_sql):
    """The tool step and the reply are decided on the row the turn's previous batch left: no row lock,
    one statement each (a tool step used to lock the row for each of its writes). A step that only
    reads stores its call with its result."""
    user = _customer("toolcounted")
    conversation = short_term.store().start(user.pk).id
    run_turn(user.pk, conversation, "Hello")

    turn, statements = _statements_of_turn(sent_sql, user, conversation, "Where is order ORD-2025-0001?")

    assert "tools" in turn.timings and turn.reply and not turn.failed
    assert len(_batches(statements)) == 3, statements  # the message, the tool call with its result, the reply
    assert not any("FOR UPDATE" in s for s in statements), statements
    # "answered" (processing -> resolved) is checked for a loop on the transitions the turn's snapshot carries
    assert not any(s.startswith('SELECT "from_state"') for s in statements), statements
    assert turn.state == AgentState.RESOLVED
    stored = short_term.store().load(conversation).messages
    assert [m.role.value for m in stored[-4:]] == ["user", "tool_call", "tool_result", "assistant"], stored
    assert [m.seq for m in stored] == list(range(1, len(stored) + 1))
    steps = [(t.to_state, t.reason) for t in short_term.store().load(conversation).transitions][-2:]
    assert steps == [(AgentState.PROCESSING, "tool track_shipment"), (AgentState.RESOLVED, "answered")], steps


def test_an_active_turn_records_the_access_to_exactly_what_it_recalled():
    from agentsite import clock
    from memory.embeddings import get_embedder
    from memory.longterm import Candidate, insert

    user = _customer("accessed")
    texts = [f"The customer owns {n} bicycles in colour number {n}" for n in range(1, 9)]
    for text in texts:
        candidate = Candidate(type="fact", content=text, confidence=0.9, source="customer_stated")
        insert(user.pk, candidate, get_embedder().embed_passages([text])[0], actor="test", now=clock.now())
    LongTermMemory.objects.update(decay_steps=2)
    conversation = short_term.store().start(user.pk).id

    turn = run_turn(user.pk, conversation, "How many bicycles do I own?")

    recalled = {m.id for m in turn.recalled}
    assert recalled and len(recalled) < len(texts)
    for memory in LongTermMemory.objects.filter(customer=user):
        assert memory.access_count == (1 if memory.pk in recalled else 0)
        assert memory.decay_steps == (0 if memory.pk in recalled else 2)
