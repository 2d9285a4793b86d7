"""`manage.py eval` end to end in a process of its own: a tiny scenario file in, report files out, or a clear error."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.procs import ROOT

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]
TINY = Path(__file__).parent / "data" / "tiny.json"  # two customers (zh, en), two sessions each


def eval_command(process_env, *args: str, timeout: float = 280) -> subprocess.CompletedProcess:
    """Run ``manage.py eval`` on the tests' database, Redis and offline model; never on reports/."""
    return subprocess.run(
        [sys.executable, "manage.py", "eval", *args],
        cwd=ROOT,
        env=process_env.as_environ(),
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def test_the_command_writes_the_reports_with_the_figures_the_scenarios_imply(process_env, tmp_path):
    out = tmp_path / "reports"
    reports = sorted((ROOT / "reports").glob("eval*"))
    before = {p: p.stat().st_mtime_ns for p in reports}

    done = eval_command(
        process_env, "--scenarios", str(TINY), "--modes", "off,active", "--no-simulations", "--out", str(out)
    )

    assert done.returncode == 0, done.stderr[-3000:]
    assert {"eval.md", "eval.json"} <= {p.name for p in out.iterdir()}
    assert any(p.suffix == ".png" for p in out.iterdir())
    assert {p: p.stat().st_mtime_ns for p in reports} == before  # reports/ untouched
    results = json.loads((out / "eval.json").read_text(encoding="utf-8"))
    assert results["meta"]["files"] == ["tiny.json"] and results["meta"]["customers"] == 2
    off, on = ({f["mode"]: f for f in results["modes"]}[mode] for mode in ("off", "active"))
    assert off["turns"] == on["turns"] == 9

    # The questions that only an earlier session can answer (the zh order and birthday, the en birthday):
    # memory off fails every one and makes the customer repeat it, memory on answers all three.
    assert off["memory_question_accuracy"] == 0 and on["memory_question_accuracy"] == 1
    assert off["first_question_accuracy"] == 0 and on["first_question_accuracy"] == 1
    assert off["repeat_n"] == 3 and on["repeat_n"] == 0
    # The two that need no memory (the refund policy, an order whose number is given) pass either way.
    assert off["question_accuracy"] == pytest.approx(2 / 5) and on["question_accuracy"] == 1
    # Session 1 of the zh customer was consolidated into exactly one birthday memory (on), nothing (off).
    assert on["session_checks_passed"] == 1 and on["session_checks_n"] == 2 and off["session_checks_n"] == 0
    assert on["planted_facts_stored"] == on["planted_facts"] == 3 and off["planted_facts_stored"] == 0

    runs = {run["mode"]: run for run in results["runs"]}
    for mode, passed in (("off", False), ("active", True)):
        birthday = {t["customer"]: t for t in runs[mode]["turns"] if t["session"] == 1 and t["question"] == "birthday"}
        assert {c: t["passed"] for c, t in birthday.items()} == {"t-zh": passed, "t-en": passed}, mode
    markdown = (out / "eval.md").read_text(encoding="utf-8")
    assert "| only the questions that need an earlier session | — | 0% | 100% |" in markdown


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ('{"format": 1, "customers": [', "not valid JSON: line 1"),
        (json.dumps({"format": 1, "customers": [{"id": "c1", "language": "en"}]}), "customers[0]: missing 'sessions'"),
    ],
)
def test_a_bad_scenario_file_fails_clearly_and_writes_nothing(process_env, tmp_path, content, message):
    bad = tmp_path / "bad.json"
    bad.write_text(content, encoding="utf-8")
    out = tmp_path / "reports"

    done = eval_command(process_env, "--scenarios", str(bad), "--no-simulations", "--out", str(out), timeout=60)

    assert done.returncode != 0
    assert f"CommandError: {bad}: " in done.stderr and message in done.stderr, done.stderr[-2000:]
    assert "Traceback" not in done.stderr
    assert not out.exists()
