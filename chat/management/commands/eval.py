"""`manage.py eval`: run scenario files with memory off and on, and write reports/eval.md, eval.json, PNGs.

It needs a database and Redis of its own (``make eval`` points ``EMBEDDED_DATA_DIR`` at
``.data/eval``) and ``CLOCK_ALLOW_OFFSET`` (it moves the shared clock between sessions). It starts
the offline model when no endpoint is configured and one Celery worker process for consolidation,
and stops both at the end.
"""

from __future__ import annotations

import json
import logging
import os
import platform
import signal
import subprocess
import sys
import tempfile
import threading
import time
from datetime import UTC, datetime
from pathlib import Path

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError

from agentsite import clock, llm
from chat.evaluation import report, runner, scenarios

ROOT = Path(settings.BASE_DIR)


class Bar:
    """A one-line progress bar on stderr."""

    def __init__(self, total: int, stream) -> None:
        self.total, self.done, self.stream, self.label = max(total, 1), 0, stream, ""
        self.started = time.monotonic()
        self.lock = threading.Lock()

    def __call__(self, n: int = 1) -> None:
        with self.lock:  # turns finish in several threads
            self._advance(n)

    def _advance(self, n: int) -> None:
        self.done += n
        filled = int(30 * self.done / self.total)
        elapsed = time.monotonic() - self.started
        eta = elapsed / self.done * (self.total - self.done) if self.done else 0
        self.stream.write(
            f"\r[{'#' * filled}{'.' * (30 - filled)}] {self.done}/{self.total} turns  {self.label:<10} "
            f"{elapsed:5.0f} s elapsed, ~{eta:4.0f} s left"
        )
        self.stream.flush()


def start_worker(environ: dict[str, str], concurrency: int = 1) -> tuple[subprocess.Popen, Path]:
    """One Celery worker (prefork, ``concurrency`` children) for consolidation; wait until it is ready."""
    log = Path(tempfile.mkstemp(prefix="eval-worker-", suffix=".log")[1])
    argv = [sys.executable, "-m", "celery", "-A", "agentsite.celery", "worker", "--pool", "prefork",
            "--concurrency", str(concurrency), "--loglevel", "INFO", "--hostname", f"eval-{os.getpid()}@%h",
            "--without-gossip", "--without-mingle", "--without-heartbeat"]  # fmt: skip
    with open(log, "w") as handle:
        proc = subprocess.Popen(argv, cwd=ROOT, env=environ, stdout=handle, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 120
    while "ready." not in log.read_text(errors="replace"):
        if proc.poll() is not None or time.monotonic() > deadline:
            proc.kill()
            raise CommandError(f"the Celery worker did not start:\n{log.read_text(errors='replace')[-3000:]}")
        time.sleep(0.1)
    return proc, log


class Command(BaseCommand):
    help = "Run the evaluation scenarios with memory off and on; write reports/eval.md, eval.json and charts."

    def add_arguments(self, parser) -> None:
        parser.add_argument("--scenarios", default=str(ROOT / "chat" / "evaluation" / "scenarios"),
                            help="a scenario file or a folder of them (docs/eval.md)")  # fmt: skip
        parser.add_argument("--modes", default="off,active,deferred,tool", help="recall modes to run, in order")
        parser.add_argument("--long-modes", default="active",
                            help="modes in which customers tagged long_session run (they are slow)")  # fmt: skip
        parser.add_argument("--sample-modes", default="deferred,tool",
                            help="modes that run on a fixed stratified sample of the customers")  # fmt: skip
        parser.add_argument("--sample-every", type=int, default=4,
                            help="sample: every n-th customer of each stratum (language, tags); 1: all")  # fmt: skip
        parser.add_argument("--threads", type=int, default=2,
                            help="customers of a cohort played side by side (1: one turn at a time)")  # fmt: skip
        parser.add_argument("--worker-concurrency", type=int, default=2,
                            help="pool children of the one consolidation worker")  # fmt: skip
        parser.add_argument("--out", default=str(ROOT / "reports"), help="where eval.md, eval.json and PNGs go")
        parser.add_argument("--no-simulations", action="store_true", help="skip chat.evaluation.simulations")

    def handle(self, *args, **options) -> None:
        if not settings.CLOCK_ALLOW_OFFSET:
            raise CommandError(
                "eval moves the shared clock between sessions: set CLOCK_ALLOW_OFFSET=1 (never in production)"
            )  # noqa: E501
        modes = [m.strip() for m in options["modes"].split(",") if m.strip()]
        unknown = [m for m in modes if m not in runner.MODES]
        if unknown:
            raise CommandError(f"unknown mode(s) {unknown}: choose from {', '.join(runner.MODES)}")
        long_modes = {m.strip() for m in options["long_modes"].split(",") if m.strip()}
        sample_modes = {m.strip() for m in options["sample_modes"].split(",") if m.strip()}
        every, threads = max(1, options["sample_every"]), max(1, options["threads"])
        # One line per request from the HTTP client of the model (INFO) would bury the progress bar.
        for name in ("httpx", "httpx2", "openai"):
            logging.getLogger(name).setLevel(logging.WARNING)
        try:
            files = scenarios.load(options["scenarios"])
        except scenarios.ScenarioError as exc:
            raise CommandError(str(exc)) from exc
        out = Path(options["out"])
        started_at, started = datetime.now(UTC), time.perf_counter()
        call_command("migrate", interactive=False, verbosity=0)
        call_command("seed_demo", stdout=open(os.devnull, "w"))  # noqa: SIM115 - the policy articles
        model = None
        if not settings.OPENAI_BASE_URL:
            from agentsite.offline_model.runner import start_offline_model

            model = start_offline_model()
            os.environ["OPENAI_BASE_URL"] = settings.OPENAI_BASE_URL = model.base_url
        llm.reset_gateway()
        environ = dict(os.environ, DATABASE_URL=settings.DATABASE_URL, REDIS_URL=settings.REDIS_URL,
                       CLOCK_ALLOW_OFFSET="1", OMP_NUM_THREADS="1", PYTHONUNBUFFERED="1",
                       DJANGO_SETTINGS_MODULE="agentsite.settings",
                       OPENAI_BASE_URL=settings.OPENAI_BASE_URL)  # fmt: skip
        worker, worker_log = start_worker(environ, options["worker_concurrency"])
        # SIGTERM (timeout, kill) must still stop the worker and the model below, not orphan them.
        previous_sigterm = signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(128 + signum))
        try:
            runs = self._run(files, modes, long_modes, sample_modes, every, threads)
            # The simulations summarise with the cheap model: run them while the model still runs.
            results = {
                "meta": {
                    "started": started_at.isoformat(timespec="seconds"),
                    "machine": f"{platform.node() or 'this machine'} ({os.cpu_count()} cores, {platform.machine()})",
                    "model": "the offline model" if model is not None else f"{settings.LLM_MAIN_MODEL} at {settings.OPENAI_BASE_URL}",  # noqa: E501
                    "files": [f.path.name for f in files],
                    "customers": sum(len(f.customers) for f in files),
                    "scenario_turns": sum(f.turns for f in files),
                    "modes": modes,
                    "threads": threads,
                    "worker_concurrency": options["worker_concurrency"],
                    "sampled": (
                        f"{', '.join(m for m in modes if m in sample_modes)} ran on a fixed stratified sample: every "
                        f"{every}{ {2: 'nd', 3: 'rd'}.get(every, 'th')} customer of each stratum (language, tags) "
                        "of each file"
                        if every > 1 and sample_modes & set(modes)
                        else ""
                    ),
                },
                "modes": [report.figures(run) for run in runs],
                "sample_baselines": self._sample_baselines(runs, sample_modes),
                "failures": {run.mode: report.failures(run) for run in runs},
            }  # fmt: skip
            simulations_md = self._simulations(results, out, options["no_simulations"])
            truth_md = self._shop_truth(results, options["no_simulations"])
            simulations_md = f"{simulations_md}\n{truth_md}" if truth_md else simulations_md
            promises_md = self._promises(results, options["no_simulations"])
            simulations_md = f"{simulations_md}\n{promises_md}" if promises_md else simulations_md
        finally:
            worker.terminate()
            try:
                worker.wait(30)
            except subprocess.TimeoutExpired:
                worker.kill()
            worker_log.unlink(missing_ok=True)
            if model is not None:
                model.stop()
            clock.reset()
            signal.signal(signal.SIGTERM, previous_sigterm)
        results["meta"]["seconds"] = round(time.perf_counter() - started, 1)
        out.mkdir(parents=True, exist_ok=True)
        charts = report.charts(results, out)
        results["charts"] = [p.name for p in charts]
        (out / "eval.md").write_text(report.markdown(results, simulations_md), encoding="utf-8")
        detail = {**results, "runs": [run.to_json() for run in runs]}
        (out / "eval.json").write_text(json.dumps(detail, ensure_ascii=False, indent=1, default=str), encoding="utf-8")
        self.stdout.write("\n" + report.summary_text(results))
        self.stdout.write(f"\nwrote {out / 'eval.md'}, {out / 'eval.json'} and {len(charts)} charts "
                          f"in {results['meta']['seconds']:.0f} s")  # fmt: skip

    def _run(
        self,
        files: list[scenarios.ScenarioFile],
        modes: list[str],
        long_modes: set[str],
        sample_modes: set[str],
        every: int,
        threads: int,
    ) -> list[runner.Run]:
        def selected(mode: str) -> list[scenarios.ScenarioFile]:
            chosen = []
            for f in files:
                customers = tuple(c for c in f.customers if "long_session" not in c.tags or mode in long_modes)
                if mode in sample_modes:
                    customers = runner.stratified_sample(customers, every)
                if customers:
                    chosen.append(scenarios.ScenarioFile(path=f.path, name=f.name, customers=customers))
            return chosen

        total = sum(f.turns for mode in modes for f in selected(mode))
        bar = Bar(total, self.stderr._out)
        runs = []
        for mode in modes:
            bar.label = mode
            runs.append(runner.run_mode(selected(mode), mode, progress=bar, threads=threads))
        self.stderr.write("")
        return runs

    def _sample_baselines(self, runs: list[runner.Run], sample_modes: set[str]) -> list[dict]:
        """Off and active cut to the customers the sampled modes played, so that the modes compare like for like."""
        sampled = [run for run in runs if run.mode in sample_modes]
        if not sampled:
            return []
        customers = {(c.file, c.customer) for c in sampled[0].customers}
        return [
            report.figures(report.restricted(run, customers, f"{run.mode} on the sample"))
            for run in runs
            if run.mode not in sample_modes
        ]

    def _shop_truth(self, results: dict, skip: bool) -> str:
        """The "One truth" figure (``chat.evaluation.shop_truth``), beside the simulations and skipped with them."""
        from chat.evaluation import shop_truth

        def keep(truth: dict) -> None:
            results["shop_truth"] = {"table": truth["table"], "seconds": truth["seconds"]}
            results["shop_truth_cases"] = truth["cases"]

        label = "one truth (answers about shop-owned keys against the record)"
        return self._side_figure(results, skip, "shop_truth", label, shop_truth.run, keep, shop_truth.markdown)

    def _promises(self, results: dict, skip: bool) -> str:
        """The "Promises kept" figure (``chat.evaluation.promises``), skipped with the simulations."""
        from chat.evaluation import promises

        def keep(played: dict) -> None:
            results["promises"] = {**promises.figure(played), "seconds": played["seconds"], "cases": played["cases"]}

        label = "promises kept (reported back on the next visit)"
        return self._side_figure(results, skip, "promises", label, promises.run, keep, promises.markdown)

    def _side_figure(self, results: dict, skip: bool, name: str, label: str, run, keep, markdown) -> str:
        """Run one figure beside the scenarios (``run(progress)``), ``keep`` its results, return its section.
        A failure is noted in the results and loses nothing else, like the simulations'."""
        if skip:
            return ""
        self.stderr.write(f"{label} …")
        stream = self.stderr._out

        def progress(stage: str, done: int, total: int) -> None:
            stream.write(f"\r  {stage:<24} {done}/{total}")
            stream.flush()

        try:
            played = run(progress)
        except Exception as exc:  # never lose the scenario runs, which took far longer
            self.stderr.write(f"\n{name} failed: {exc!r}")
            results[f"{name}_note"] = f"failed: {exc!r}"
            return ""
        stream.write("\n")
        keep(played)
        return markdown(played)

    def _simulations(self, results: dict, out: Path, skip: bool) -> str:
        if skip:
            results["simulations_note"] = "skipped (--no-simulations)"
            return ""
        try:
            from chat.evaluation import simulations
        except ImportError as exc:
            results["simulations_note"] = f"chat.evaluation.simulations is not available ({exc})"
            return ""
        self.stderr.write("simulations (store size over 365 days, tool results, compression) …")
        started = time.perf_counter()
        try:  # a failing simulation must not lose the scenario runs, which took far longer
            stream = self.stderr._out

            def progress(stage: str, done: int, total: int) -> None:
                stream.write(f"\r  {stage:<24} {done}/{total}  {time.perf_counter() - started:5.0f} s")
                stream.flush()

            sims = simulations.run_all(progress, side_by_side=True)
            stream.write("\n")
            out.mkdir(parents=True, exist_ok=True)
            charts = simulations.charts(sims, out)
            text = simulations.markdown(sims)
        except Exception as exc:
            self.stderr.write(f"simulations failed: {exc!r}")
            results["simulations_note"] = f"failed: {exc!r}"
            return ""
        results["simulations"] = sims
        results["simulations_seconds"] = round(time.perf_counter() - started, 1)
        results.setdefault("simulation_charts", [p.name for p in charts])
        return text
