"""Entry points of processes the evaluation spawns: a spawned child unpickles its target before running it,
so the target lives here, in a module that imports models only after ``django.setup()`` (docs/eval.md).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import multiprocessing.queues

    from chat.evaluation.store_size import Vectors, YearMessage


def simulate_year(
    params: dict[str, float],
    pool: list[tuple[str, str, str, str]],
    vectors: Vectors,
    forgetting_on: bool,
    messages: multiprocessing.queues.Queue[YearMessage],
) -> None:
    """One year of ``store_size`` in this process; progress and result go to ``messages``."""
    import django

    django.setup()
    from chat.evaluation import store_size

    store_size.simulate_year_in_child(params, pool, vectors, forgetting_on, messages)
