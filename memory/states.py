"""The agent's states, the one table of allowed transitions, and loop detection. Part of short-term memory: a
conversation's state and its transitions live with its session (Redis and PostgreSQL) for the session's
lifetime; this module is pure and only decides what is allowed and what is a loop. See docs/session.md ("The
agent's states").
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType

from django.db import models


class AgentState(models.TextChoices):
    GREETING = "greeting", "greeting"
    COLLECTING_INFO = "collecting_info", "collecting info"
    PROCESSING = "processing", "processing"
    CONFIRMING = "confirming", "confirming"
    RESOLVED = "resolved", "resolved"
    ESCALATED = "escalated", "escalated (waiting for a person)"
    HUMAN = "human", "human (staff took over)"


S = AgentState

# The one table of allowed transitions (docs/session.md shows it too). Every state the bot acts
# in may escalate; an escalated conversation waits for a person; staff resolve it or hand it back.
TRANSITIONS: Mapping[AgentState, frozenset[AgentState]] = MappingProxyType(
    {
        S.GREETING: frozenset({S.COLLECTING_INFO, S.PROCESSING, S.ESCALATED}),
        S.COLLECTING_INFO: frozenset({S.PROCESSING, S.CONFIRMING, S.RESOLVED, S.ESCALATED}),
        S.PROCESSING: frozenset({S.COLLECTING_INFO, S.CONFIRMING, S.RESOLVED, S.ESCALATED}),
        S.CONFIRMING: frozenset({S.PROCESSING, S.COLLECTING_INFO, S.RESOLVED, S.ESCALATED}),
        S.RESOLVED: frozenset({S.COLLECTING_INFO, S.ESCALATED}),
        S.ESCALATED: frozenset({S.HUMAN}),
        S.HUMAN: frozenset({S.RESOLVED, S.COLLECTING_INFO}),
    }
)

# The bot stays silent while a person is awaited or in charge.
SILENT_STATES = frozenset({S.ESCALATED, S.HUMAN})


class IllegalTransition(Exception):
    """A transition the table does not allow."""

    def __init__(self, from_state: str, to_state: str) -> None:
        self.from_state = AgentState(from_state)
        self.to_state = AgentState(to_state)
        allowed = ", ".join(sorted(TRANSITIONS[self.from_state]))
        super().__init__(f"illegal transition {from_state} -> {to_state} (allowed from {from_state}: {allowed})")


def is_allowed(from_state: str, to_state: str) -> bool:
    """Return whether the table allows ``from_state -> to_state``."""
    return AgentState(to_state) in TRANSITIONS[AgentState(from_state)]


def check_transition(from_state: str, to_state: str) -> None:
    """Raise ``IllegalTransition`` unless the table allows ``from_state -> to_state``."""
    if not is_allowed(from_state, to_state):
        raise IllegalTransition(from_state, to_state)


def bot_may_reply(state: str) -> bool:
    """Return whether the bot may answer the customer in ``state``."""
    return AgentState(state) not in SILENT_STATES


@dataclass(frozen=True)
class Step:
    """A recorded transition as loop detection sees it."""

    from_state: AgentState
    to_state: AgentState
    progress: bool


@dataclass(frozen=True)
class Loop:
    """An A<->B ping-pong without progress."""

    states: tuple[AgentState, AgentState]
    cycles: int

    @property
    def reason(self) -> str:
        a, b = self.states
        return f"loop: {a} <-> {b} repeated {self.cycles} times without progress"


def steps_to_check(threshold: int) -> int:
    """Return how many recent transitions ``detect_loop`` needs to see."""
    return 2 * (threshold + 1) + 1


def detect_loop(steps: Sequence[Step], threshold: int) -> Loop | None:
    """Return the loop the latest steps form, if an A<->B cycle repeated more than ``threshold`` times.

    Walks back from the latest step over consecutive steps between the same two states in which
    nothing progressed (no new slot in the collected info, no new tool result). A cycle is a
    round trip A->B->A, so ``threshold`` 3 tolerates three round trips and flags the fourth.
    Work that moves on (collect -> process -> confirm -> resolve, one order after another) never
    forms such a run, and a step that made progress ends it.
    """
    if not steps or steps[-1].progress:
        return None
    latest = steps[-1]
    pair = frozenset({latest.from_state, latest.to_state})
    run = 0
    expected_to = latest.from_state
    for step in reversed(steps):
        if step.progress or frozenset({step.from_state, step.to_state}) != pair:
            break
        if run and step.to_state != expected_to:
            break  # not contiguous: a step between the two was not recorded in this window
        run += 1
        expected_to = step.from_state
    cycles = run // 2
    if cycles > threshold:
        return Loop(states=(latest.from_state, latest.to_state), cycles=cycles)
    return None
