"""Entry points of processes the evaluation spawns: set Django up first, then import what needs it.

A spawned child unpickles its target before running it, so the target must live in a module that
imports no models; this one imports them only after ``django.setup()``.
"""

from __future__ import annotations

from typing import Any


def simulate_year(params: dict, pool: list[tuple], vectors: Any, forgetting_on: bool, messages: Any) -> None:
    """One year of ``simulations.store_size`` in this process; progress and result go to ``messages``."""
    import django

    django.setup()
    from chat.evaluation import simulations

    simulations.simulate_year_in_child(params, pool, vectors, forgetting_on, messages)
