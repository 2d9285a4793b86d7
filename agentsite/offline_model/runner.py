"""Start the offline model as a subprocess and drive its control endpoints, for the tests and the demo (``model =
start_offline_model()``, ``model.script(["rate_limit"], task="chat")``, ``model.stop()``). The module-level
``script``, ``stats`` and ``reset`` take a URL, so a server started elsewhere can be driven too. Standard
library only. See docs/offline-model.md.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tempfile
import threading
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

PROJECT_ROOT = Path(__file__).resolve().parents[2]
READY_RE = re.compile(r"offline model listening on (http://\S+/v1)")
DEFAULT_START_TIMEOUT = 15.0


class OfflineModelError(RuntimeError):
    """The offline model did not start, or a control call failed."""


def _root(url: str) -> str:
    url = url.rstrip("/")
    return url[: -len("/v1")] if url.endswith("/v1") else url


def _call(url: str, method: str, path: str, payload: Any = None, timeout: float = 10.0) -> dict[str, Any]:
    """Call a control endpoint; each answers a JSON object."""
    data = None if payload is None else json.dumps(payload).encode()
    request = urllib.request.Request(_root(url) + path, data=data, method=method)
    if data is not None:
        request.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            answer: dict[str, Any] = json.loads(response.read() or b"null")
            return answer
    except urllib.error.HTTPError as error:
        raise OfflineModelError(
            f"{method} {path} failed: {error.code} {error.read().decode(errors='replace')}"
        ) from error


def script(url: str, behaviours: list[Any], task: str | None = None) -> dict[str, Any]:
    """Queue scripted behaviours ("rate_limit", {"name": "stall", "seconds": 5}, …) for `task`."""
    return _call(url, "POST", "/_offline/script", {"behaviours": list(behaviours), "task": task})


def stats(url: str) -> dict[str, Any]:
    """Request counts by task and model, streamed count, behaviours fired, queue."""
    return _call(url, "GET", "/_offline/stats")


def received(url: str) -> list[dict[str, Any]]:
    """The latest chat-completion requests the server at ``url`` received: task, model, messages."""
    requests: list[dict[str, Any]] = _call(url, "GET", "/_offline/requests")["requests"]
    return requests


def reset(url: str) -> dict[str, Any]:
    """Clear queued behaviours and counters."""
    return _call(url, "POST", "/_offline/reset", {})


class OfflineModelProcess:
    """A running `python -m agentsite.offline_model` subprocess."""

    def __init__(self, process: subprocess.Popen[str], base_url: str, log_path: str) -> None:
        self.process = process
        self.base_url = base_url
        self.root_url = _root(base_url)
        self.log_path = log_path

    @property
    def pid(self) -> int:
        return self.process.pid

    def script(self, behaviours: list[Any], task: str | None = None) -> dict[str, Any]:
        return script(self.root_url, behaviours, task)

    def stats(self) -> dict[str, Any]:
        return stats(self.root_url)

    def received(self) -> list[dict[str, Any]]:
        return received(self.root_url)

    def reset(self) -> dict[str, Any]:
        return reset(self.root_url)

    def alive(self) -> bool:
        return self.process.poll() is None

    def stop(self, timeout: float = 5.0) -> None:
        """Stop the server (SIGTERM, then SIGKILL) and wait for it."""
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=timeout)
        if self.process.stdout:
            self.process.stdout.close()
        Path(self.log_path).unlink(missing_ok=True)

    def __enter__(self) -> OfflineModelProcess:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


def _read_ready_line(process: subprocess.Popen[str], timeout: float) -> str | None:
    found: list[str] = []

    def read() -> None:
        assert process.stdout is not None
        line = process.stdout.readline()
        if line:
            found.append(line)

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    reader.join(timeout)
    return found[0] if found else None


def start_offline_model(
    pace_ms: int = 0, port: int = 0, host: str = "127.0.0.1", timeout: float = DEFAULT_START_TIMEOUT
) -> OfflineModelProcess:
    """Launch the server with this interpreter and return once it is listening."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(PROJECT_ROOT), env.get("PYTHONPATH")]))
    env["PYTHONUNBUFFERED"] = "1"
    command = [sys.executable, "-m", "agentsite.offline_model"]
    command += ["--host", host, "--port", str(port), "--pace-ms", str(pace_ms)]
    # stderr goes to a file, not a pipe: nobody reads it while the server runs, and a full pipe
    # would block the server.
    with tempfile.NamedTemporaryFile(prefix="offline-model-", suffix=".log", delete=False) as log:
        process = subprocess.Popen(
            command,
            stdout=subprocess.PIPE,
            stderr=log,
            stdin=subprocess.DEVNULL,
            text=True,
            env=env,
            cwd=str(PROJECT_ROOT),
        )
    line = _read_ready_line(process, timeout)
    match = READY_RE.search(line or "")
    if not match:
        process.kill()
        process.wait()
        detail = Path(log.name).read_text(errors="replace")[-2000:]
        Path(log.name).unlink(missing_ok=True)
        raise OfflineModelError(f"offline model did not start (got {line!r}); stderr:\n{detail}")
    return OfflineModelProcess(process, match.group(1), log.name)
