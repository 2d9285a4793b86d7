"""The runner: a real subprocess, its ready line, and the control helpers by URL."""

from __future__ import annotations

import subprocess
import sys
import time

from openai import OpenAI

from agentsite.offline_model import runner


def test_the_ready_line_names_the_real_port_and_the_server_stops_on_request():
    started = time.monotonic()
    with runner.start_offline_model(pace_ms=5) as model:
        print(f"offline model ready in {time.monotonic() - started:.3f}s")  # startup time, reported not asserted
        assert model.base_url.startswith("http://127.0.0.1:") and model.base_url.endswith("/v1")
        assert not model.base_url.endswith(":0/v1") and model.alive()
        client = OpenAI(base_url=model.base_url, api_key="offline", max_retries=0)
        chunks = list(
            client.chat.completions.create(model="m", messages=[{"role": "user", "content": "hi"}], stream=True)
        )
        assert len(chunks) > 5
        client.close()
    assert not model.alive()


def test_main_prints_one_ready_line():
    process = subprocess.Popen(
        [sys.executable, "-m", "agentsite.offline_model", "--port", "0"],
        stdout=subprocess.PIPE,
        text=True,
        cwd=str(runner.PROJECT_ROOT),
    )
    try:
        line = process.stdout.readline()
        assert runner.READY_RE.fullmatch(line.strip())
    finally:
        process.terminate()
        process.wait(5)
        process.stdout.close()
    assert process.returncode == 0


def test_control_helpers_take_either_url(offline_model, client):
    runner.script(offline_model.base_url, ["server_error"], task="summarise")
    assert runner.stats(offline_model.root_url)["queued"][0]["name"] == "server_error"
    runner.reset(offline_model.base_url + "/")
    assert runner.stats(offline_model.base_url)["queued"] == []
