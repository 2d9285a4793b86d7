"""A turn's writes after a tool that changes the conversation go on from the state the tool left.

A turn decides most of its writes on the row its previous batch left (``chat.agent._Memory.snapshot``).
A tool that changes something (here: escalation) writes the row itself, so whatever the turn writes
next must take the row lock and see that state: once a person has been asked for, the bot says
nothing more, not even an apology for a failure that came after.
"""

import pytest

from chat.agent import run_turn
from chat.models import Handoff
from memory import session as short_term
from memory.models import ConversationMessage
from memory.states import AgentState
from memory.working import PinnedOverflow, WorkingMemory
from tests.factories import CustomerFactory

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_working_memory_overflow_after_an_escalation_hands_over_without_an_apology(monkeypatch):
    user = CustomerFactory(username="escalating", password="x", profile__display_name="Esc")
    conversation = short_term.store().start(user.pk).id
    append_tool_result = WorkingMemory.append_tool_result

    def too_big_after_the_escalation(self, call_id, raw, summarise, **options):
        # The escalation has run and written the conversation; its result does not fit the budget.
        if "escalated" in raw:
            raise PinnedOverflow(self.budget_tokens + 1, self.budget_tokens, {"tool results": self.budget_tokens + 1})
        return append_tool_result(self, call_id, raw, summarise, **options)

    monkeypatch.setattr(WorkingMemory, "append_tool_result", too_big_after_the_escalation)
    frames: list[dict] = []

    turn = run_turn(user.pk, conversation, "I want to talk to a human, please", frames.append)

    assert turn.failed  # the overflow came, after the escalation
    assert turn.escalated and turn.state == AgentState.ESCALATED
    assert Handoff.objects.filter(conversation_id=conversation).exists()
    roles = list(
        ConversationMessage.objects.filter(conversation_id=conversation).order_by("seq").values_list("role", flat=True)
    )
    assert roles == ["user", "tool_call"], roles  # no apology stored after the person was asked for
    assert short_term.store().load(conversation).state == AgentState.ESCALATED
    assert [f["type"] for f in frames if f["type"] in {"token", "escalated"}] == ["escalated"], frames
