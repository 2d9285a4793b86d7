"""A turn's active recall runs beside its first writes (``memory.recall.RecallAhead``): same memories, and
access recorded only for what the turn put in its prompt."""

import pytest

from chat.agent import NotYourConversation, run_turn
from memory import session as short_term
from memory.models import LongTermMemory
from memory.states import AgentState
from tests.factories import CustomerFactory, remember

pytestmark = pytest.mark.django_db(transaction=True)


def _customer_with_memories(name: str):
    user = CustomerFactory(username=name, password="x")
    for n in range(1, 9):
        remember(user, f"The customer owns {n} bicycles in colour number {n}")
    return user


def _accessed(user) -> int:
    return sum(LongTermMemory.objects.filter(customer=user).values_list("access_count", flat=True))


@pytest.mark.parametrize("ahead", [True, False])
def test_a_turn_recalls_the_same_memories_beside_its_writes_or_after_them(settings, ahead):
    settings.MEMORY_RECALL_AHEAD = ahead
    user = _customer_with_memories(f"ahead{ahead}")
    conversation = short_term.store().start(user.pk).id

    turn = run_turn(user.pk, conversation, "How many bicycles do I own?")

    assert len(turn.recalled) == 5 and all("bicycles" in m.content for m in turn.recalled)
    for memory in LongTermMemory.objects.filter(customer=user):
        assert memory.access_count == (1 if memory.pk in {m.id for m in turn.recalled} else 0)
    assert _accessed(user) == len(turn.recalled) == 5


def test_both_paths_put_the_same_memories_in_the_prompt(settings):
    user = _customer_with_memories("bothpaths")
    recalled = {}
    for ahead in (True, False):
        settings.MEMORY_RECALL_AHEAD = ahead
        conversation = short_term.store().start(user.pk).id
        recalled[ahead] = [m.id for m in run_turn(user.pk, conversation, "How many bicycles do I own?").recalled]
    assert recalled[True] == recalled[False] and len(recalled[True]) == 5


def test_a_turn_the_bot_may_not_answer_records_no_access(settings):
    user = _customer_with_memories("silent")
    store = short_term.store()
    conversation = store.start(user.pk).id
    store.transition(conversation, AgentState.ESCALATED, "the customer asked for a person", progress=True)

    turn = run_turn(user.pk, conversation, "How many bicycles do I own?")

    assert turn.reply == "" and turn.recalled == []
    assert _accessed(user) == 0


def test_a_turn_in_another_customers_conversation_records_no_access():
    owner, intruder = _customer_with_memories("owner"), _customer_with_memories("intruder")
    conversation = short_term.store().start(owner.pk).id

    with pytest.raises(NotYourConversation):
        run_turn(intruder.pk, conversation, "How many bicycles do I own?")

    assert _accessed(owner) == _accessed(intruder) == 0
