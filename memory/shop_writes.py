"""How memory asks the shop to change a value it owns, without importing the shop: the shop registers its writer
here from ``ChatConfig.ready()``. A staff decision about a shop-owned key in long-term memory (PostgreSQL)
must change the shop's field, which is the truth; without a writer such decisions are refused. Nothing is
stored here. See docs/longterm.md ("One truth").
"""

from __future__ import annotations

from collections.abc import Callable

# (customer id, key, normalised value, actor) → None; raises ValueError with a message for staff.
ShopWriter = Callable[[int, str, str, str], None]

_writer: ShopWriter | None = None


class NoShopWriter(Exception):
    """No shop has registered a writer: a shop-owned value cannot change from here."""


def register(writer: ShopWriter | None) -> None:
    """Set the function that changes a shop-owned value in the shop (``None`` removes it)."""
    global _writer
    _writer = writer


def write(customer_id: int, key: str, value: str, *, actor: str) -> None:
    """Change the shop's value of ``key`` for the customer, through the shop's own change function."""
    if _writer is None:
        raise NoShopWriter(f"{key} belongs to the shop: change it in the shop, not in memory")
    _writer(customer_id, key, value, actor)
