"""How memory learns which of the shop's proposed changes the customer withdrew, without importing the shop.

A change to a shop-owned key said in chat is proposed by the shop (a pending action) and remembered as a
request linked to it (``memory.consolidation.as_requests``). Once the customer says no to it, or asks for
another value instead, it is no request of theirs any more: consolidation asks here and stores none, and the
shop withdraws any it already stored (``memory.longterm.withdraw_requests``). The shop registers its reader
from ``ChatConfig.ready()``; without one, nothing counts as withdrawn. Nothing is stored here.
"""

from __future__ import annotations

from collections.abc import Callable, Collection

# pending action ids → the ids among them the customer withdrew
WithdrawnReader = Callable[[Collection[str]], set[str]]

_reader: WithdrawnReader | None = None


def register(reader: WithdrawnReader | None) -> None:
    """Set the function that tells which proposals were withdrawn (``None`` removes it)."""
    global _reader
    _reader = reader


def withdrawn(action_ids: Collection[str]) -> set[str]:
    """The ids among ``action_ids`` whose change the customer withdrew."""
    wanted = {action for action in action_ids if action}
    if _reader is None or not wanted:
        return set()
    return _reader(wanted)
