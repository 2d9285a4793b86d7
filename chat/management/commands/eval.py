"""`manage.py eval`: parse the options and run the evaluation harness (``chat.evaluation.harness``), which
writes reports/eval.md, eval.json and the charts. What it needs and what it measures: docs/eval.md.
"""

from __future__ import annotations

from argparse import ArgumentParser
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from chat.evaluation import harness, scenarios

ROOT = Path(settings.BASE_DIR)


def _names(value: str) -> list[str]:
    """A comma-separated list of names, blanks dropped."""
    return [name.strip() for name in value.split(",") if name.strip()]


class Command(BaseCommand):
    help = "Run the evaluation scenarios with memory off and on; write reports/eval.md, eval.json and charts."

    def add_arguments(self, parser: ArgumentParser) -> None:
        parser.add_argument(
            "--scenarios",
            default=str(ROOT / "chat" / "evaluation" / "scenarios"),
            help="a scenario file or a folder of them (docs/eval.md)",
        )
        parser.add_argument("--modes", default="off,active,deferred,tool", help="recall modes to run, in order")
        parser.add_argument(
            "--long-modes", default="active", help="modes in which customers tagged long_session run (they are slow)"
        )
        parser.add_argument(
            "--sample-modes",
            default="deferred,tool",
            help="modes that run on a fixed stratified sample of the customers",
        )
        parser.add_argument(
            "--sample-every",
            type=int,
            default=4,
            help="sample: every n-th customer of each stratum (language, tags); 1: all",
        )
        parser.add_argument(
            "--threads", type=int, default=2, help="customers of a cohort played side by side (1: one turn at a time)"
        )
        parser.add_argument(
            "--worker-concurrency", type=int, default=2, help="pool children of the one consolidation worker"
        )
        parser.add_argument("--out", default=str(ROOT / "reports"), help="where eval.md, eval.json and PNGs go")
        parser.add_argument(
            "--no-simulations",
            action="store_true",
            help="skip the simulations and the figures beside the scenarios (one truth, promises)",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        run = harness.Options(
            scenarios=Path(options["scenarios"]),
            modes=_names(options["modes"]),
            long_modes=set(_names(options["long_modes"])),
            sample_modes=set(_names(options["sample_modes"])),
            sample_every=max(1, options["sample_every"]),
            threads=max(1, options["threads"]),
            worker_concurrency=options["worker_concurrency"],
            out=Path(options["out"]),
            simulations=not options["no_simulations"],
        )
        try:
            harness.run(run, harness.Console(self.stdout, self.stderr))
        except (harness.HarnessError, scenarios.ScenarioError) as exc:
            raise CommandError(str(exc)) from exc
