"""The evaluation harness behind ``manage.py eval``: it starts the offline model (when no endpoint is set) and
one Celery worker for consolidation, plays the scenario files in each recall mode, runs the figures beside
them (the simulations, "One truth", "Promises kept"), stops the processes it started and writes
reports/eval.md, eval.json and the charts. What it needs and what every figure means: docs/eval.md.
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
from collections.abc import Callable
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TypeVar

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import OutputWrapper

from agentsite import clock, llm
from chat.evaluation import promises, report, runner, scenarios, shop_truth, simulations
from chat.evaluation.scratch import Progress, quiet
from chat.evaluation.session_compression import session_compression
from chat.evaluation.store_size import store_size
from chat.evaluation.tool_results import tool_results

ROOT = Path(settings.BASE_DIR)
T = TypeVar("T")


class HarnessError(Exception):
    """The evaluation cannot run as asked; the message says why."""


@dataclass(frozen=True)
class Options:
    """What to run and where to write it (the command's options, parsed)."""

    scenarios: Path
    modes: list[str]  # in order
    long_modes: set[str]  # modes in which customers tagged long_session run
    sample_modes: set[str]  # modes that run on a stratified sample of the customers
    sample_every: int
    threads: int
    worker_concurrency: int
    out: Path
    simulations: bool  # also the figures beside the scenarios (simulations, one truth, promises)


def _as_is(text: str) -> str:
    return text


@dataclass(frozen=True)
class Console:
    """Where the harness talks: the summary on ``out``, notes and progress on ``err``."""

    out: OutputWrapper
    err: OutputWrapper

    def note(self, text: str) -> None:
        """One line on ``err``."""
        self.err.write(text)

    def redraw(self, text: str) -> None:
        """Write ``text`` as it is (progress redrawn in place with ``\\r``), unstyled and flushed."""
        self.err.write(text, style_func=_as_is, ending="")
        self.err.flush()


class Bar:
    """A one-line progress bar of the turns played."""

    def __init__(self, total: int, console: Console) -> None:
        self.total, self.done, self.console, self.label = max(total, 1), 0, console, ""
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
        self.console.redraw(
            f"\r[{'#' * filled}{'.' * (30 - filled)}] {self.done}/{self.total} turns  {self.label:<10} "
            f"{elapsed:5.0f} s elapsed, ~{eta:4.0f} s left"
        )


def start_worker(environ: dict[str, str], concurrency: int = 1) -> tuple[subprocess.Popen[bytes], Path]:
    """One Celery worker (prefork, ``concurrency`` children) for consolidation; wait until it is ready."""
    log = Path(tempfile.mkstemp(prefix="eval-worker-", suffix=".log")[1])
    argv = [
        *(sys.executable, "-m", "celery", "-A", "agentsite.celery", "worker"),
        *("--pool", "prefork", "--concurrency", str(concurrency), "--loglevel", "INFO"),
        *("--hostname", f"eval-{os.getpid()}@%h", "--without-gossip", "--without-mingle", "--without-heartbeat"),
    ]
    with open(log, "w") as handle:
        proc = subprocess.Popen(argv, cwd=ROOT, env=environ, stdout=handle, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 120
    while "ready." not in log.read_text(errors="replace"):
        if proc.poll() is not None or time.monotonic() > deadline:
            proc.kill()
            raise HarnessError(f"the Celery worker did not start:\n{log.read_text(errors='replace')[-3000:]}")
        time.sleep(0.1)
    return proc, log


def run(options: Options, console: Console) -> None:
    """Run the evaluation as ``options`` say and write its report files into ``options.out``."""
    if not settings.CLOCK_ALLOW_OFFSET:
        raise HarnessError(
            "eval moves the shared clock between sessions: set CLOCK_ALLOW_OFFSET=1 (never in production)"
        )
    unknown = [m for m in options.modes if m not in runner.MODES]
    if unknown:
        raise HarnessError(f"unknown mode(s) {unknown}: choose from {', '.join(runner.MODES)}")
    # One line per request from the HTTP client of the model (INFO) would bury the progress bar.
    for name in ("httpx", "httpx2", "openai"):
        logging.getLogger(name).setLevel(logging.WARNING)
    files = scenarios.load(options.scenarios)
    started_at, started = datetime.now(UTC), time.perf_counter()
    call_command("migrate", interactive=False, verbosity=0)
    with open(os.devnull, "w") as devnull:
        call_command("seed_demo", stdout=devnull)  # the policy articles
    model = None
    if not settings.OPENAI_BASE_URL:
        from agentsite.offline_model.runner import start_offline_model

        model = start_offline_model()
        os.environ["OPENAI_BASE_URL"] = settings.OPENAI_BASE_URL = model.base_url
    llm.reset_gateway()
    environ = dict(
        os.environ,
        DATABASE_URL=settings.DATABASE_URL,
        REDIS_URL=settings.REDIS_URL,
        CLOCK_ALLOW_OFFSET="1",
        OMP_NUM_THREADS="1",
        PYTHONUNBUFFERED="1",
        DJANGO_SETTINGS_MODULE="agentsite.settings",
        OPENAI_BASE_URL=settings.OPENAI_BASE_URL,
    )
    worker, worker_log = start_worker(environ, options.worker_concurrency)
    # SIGTERM (timeout, kill) must still stop the worker and the model below, not orphan them.
    previous_sigterm = signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(128 + signum))
    try:
        runs = _play(files, options, console)
        # The figures beside the scenarios summarise with the cheap model: run them while the model still runs.
        model_name = (
            "the offline model" if model is not None else f"{settings.LLM_MAIN_MODEL} at {settings.OPENAI_BASE_URL}"
        )
        results = report.Results(
            meta=_meta(files, options, started_at, model_name),
            modes=[report.figures(run) for run in runs],
            sample_baselines=_sample_baselines(runs, options.sample_modes),
            failures={run.mode: report.failures(run) for run in runs},
        )
        sections = _beside(results, options, console)
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
    _write(results, runs, sections, options.out, console)


def _meta(files: list[scenarios.ScenarioFile], options: Options, started_at: datetime, model: str) -> report.Meta:
    modes, every = options.modes, options.sample_every
    sampled = (
        f"{', '.join(m for m in modes if m in options.sample_modes)} ran on a fixed stratified sample: every "
        f"{every}{ {2: 'nd', 3: 'rd'}.get(every, 'th') } customer of each stratum (language, tags) of each file"
        if every > 1 and options.sample_modes & set(modes)
        else ""
    )
    return report.Meta(
        started=started_at.isoformat(timespec="seconds"),
        machine=f"{platform.node() or 'this machine'} ({os.cpu_count()} cores, {platform.machine()})",
        model=model,
        files=[f.path.name for f in files],
        customers=sum(len(f.customers) for f in files),
        scenario_turns=sum(f.turns for f in files),
        modes=modes,
        threads=options.threads,
        worker_concurrency=options.worker_concurrency,
        sampled=sampled,
    )


def _play(files: list[scenarios.ScenarioFile], options: Options, console: Console) -> list[runner.Run]:
    """Play the scenario files in each mode, in order, under one progress bar."""

    def selected(mode: str) -> list[scenarios.ScenarioFile]:
        chosen = []
        for f in files:
            customers = tuple(c for c in f.customers if "long_session" not in c.tags or mode in options.long_modes)
            if mode in options.sample_modes:
                customers = runner.stratified_sample(customers, options.sample_every)
            if customers:
                chosen.append(scenarios.ScenarioFile(path=f.path, name=f.name, customers=customers))
        return chosen

    total = sum(f.turns for mode in options.modes for f in selected(mode))
    bar = Bar(total, console)
    runs = []
    for mode in options.modes:
        bar.label = mode
        runs.append(runner.run_mode(selected(mode), mode, progress=bar, threads=options.threads))
    console.note("")
    return runs


def _sample_baselines(runs: list[runner.Run], sample_modes: set[str]) -> list[report.ModeFigures]:
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


def _beside(results: report.Results, options: Options, console: Console) -> str:
    """Run the figures beside the scenarios, keep their results, and return their sections of eval.md."""
    if not options.simulations:
        results["simulations_note"] = "skipped (--no-simulations)"
        return ""
    sections = _simulations(results, options.out, console)
    truth_md = _shop_truth(results, console)
    sections = f"{sections}\n{truth_md}" if truth_md else sections
    promises_md = _promises(results, console)
    return f"{sections}\n{promises_md}" if promises_md else sections


def run_simulations(
    progress: Progress = quiet, *, params: simulations.Params | None = None, side_by_side: bool = False
) -> simulations.Simulations:
    """Run the three simulations and return their figures (JSON-serialisable).

    ``side_by_side`` runs the two simulated years of ``store_size`` at once in processes of their own.
    """
    params = params or simulations.Params()
    started = time.perf_counter()
    return simulations.Simulations(
        store_size=store_size(params.store_size, progress, side_by_side=side_by_side),
        tool_results=tool_results(params.tool_results, progress),
        session_compression=session_compression(params.compression, progress),
        params=asdict(params),
        article=dict(simulations.ARTICLE),
        seconds=round(time.perf_counter() - started, 1),
    )


def _simulations(results: report.Results, out: Path, console: Console) -> str:
    console.note("simulations (store size over 365 days, tool results, compression) …")
    started = time.perf_counter()

    def progress(stage: str, done: int, total: int) -> None:
        console.redraw(f"\r  {stage:<24} {done}/{total}  {time.perf_counter() - started:5.0f} s")

    try:  # a failing simulation must not lose the scenario runs, which took far longer
        sims = run_simulations(progress, side_by_side=True)
        console.redraw("\n")
        out.mkdir(parents=True, exist_ok=True)
        charts = simulations.charts(sims, out)
        text = simulations.markdown(sims)
    except Exception as exc:
        console.note(f"simulations failed: {exc!r}")
        results["simulations_note"] = f"failed: {exc!r}"
        return ""
    results["simulations"] = sims
    results["simulations_seconds"] = round(time.perf_counter() - started, 1)
    results.setdefault("simulation_charts", [p.name for p in charts])
    return text


def _shop_truth(results: report.Results, console: Console) -> str:
    """The "One truth" figure (``chat.evaluation.shop_truth``)."""
    label = "one truth (answers about shop-owned keys against the record)"
    played = _beside_one(label, "shop_truth", shop_truth.run, console)
    if isinstance(played, Failed):
        results["shop_truth_note"] = played.note
        return ""
    results["shop_truth"] = {"table": played["table"], "seconds": played["seconds"]}
    results["shop_truth_cases"] = played["cases"]
    return shop_truth.markdown(played)


def _promises(results: report.Results, console: Console) -> str:
    """The "Promises kept" figure (``chat.evaluation.promises``)."""
    label = "promises kept (reported back on the next visit)"
    played = _beside_one(label, "promises", promises.run, console)
    if isinstance(played, Failed):
        results["promises_note"] = played.note
        return ""
    figure = promises.figure(played)
    results["promises"] = promises.Kept(
        cases=played["cases"],
        made=figure["made"],
        reported=figure["reported"],
        repeated=figure["repeated"],
        seconds=played["seconds"],
    )
    return promises.markdown(played)


@dataclass(frozen=True)
class Failed:
    """A figure beside the scenarios that failed: noted in the results, losing nothing else."""

    note: str


def _beside_one(label: str, name: str, play: Callable[[Progress], T], console: Console) -> T | Failed:
    """Run one figure beside the scenarios (``play(progress)``), or say how it failed."""
    console.note(f"{label} …")

    def progress(stage: str, done: int, total: int) -> None:
        console.redraw(f"\r  {stage:<24} {done}/{total}")

    try:
        played = play(progress)
    except Exception as exc:  # never lose the scenario runs, which took far longer
        console.note(f"\n{name} failed: {exc!r}")
        return Failed(f"failed: {exc!r}")
    console.redraw("\n")
    return played


def _write(results: report.Results, runs: list[runner.Run], sections: str, out: Path, console: Console) -> None:
    """Write eval.md, eval.json and the charts into ``out``; say so on the console."""
    out.mkdir(parents=True, exist_ok=True)
    charts = report.charts(results, out)
    results["charts"] = [p.name for p in charts]
    (out / "eval.md").write_text(report.markdown(results, sections), encoding="utf-8")
    detail = {**results, "runs": [run.to_json() for run in runs]}
    (out / "eval.json").write_text(json.dumps(detail, ensure_ascii=False, indent=1, default=str), encoding="utf-8")
    console.out.write("\n" + report.summary_text(results))
    console.out.write(
        f"\nwrote {out / 'eval.md'}, {out / 'eval.json'} and {len(charts)} charts in {results['meta']['seconds']:.0f} s"
    )
