"""Concurrent customers chatting through a real daphne process: a test and a benchmark use it.

Each simulated customer logs in (a real Django session), opens the chat websocket over TCP and
asks about one of their own orders; the result records each turn's latency and reply.
"""

from __future__ import annotations

import asyncio
import json
import time
from dataclasses import dataclass, field

import websockets


@dataclass
class CustomerRun:
    """What one simulated customer saw."""

    username: str
    order_number: str
    replies: list[str] = field(default_factory=list)
    latencies: list[float] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    handshake: float | None = None  # seconds until the server accepted the socket
    history: float | None = None  # seconds until the history frame arrived (from the start of the connect)


async def chat(url: str, cookie: str, run: CustomerRun, messages: list[str], timeout: float = 120) -> CustomerRun:
    """Send ``messages`` one after another on one socket; record replies and per-turn latency."""
    headers = {"Cookie": cookie, "Origin": "http://localhost"}
    connecting = time.perf_counter()
    try:
        async with websockets.connect(url, additional_headers=headers, open_timeout=timeout) as socket:
            run.handshake = time.perf_counter() - connecting
            first = json.loads(await asyncio.wait_for(socket.recv(), timeout))  # the history, or why not
            if first["type"] != "history":
                run.errors.append(first.get("code", first["type"]))
                return run
            run.history = time.perf_counter() - connecting
            for text in messages:
                started = time.perf_counter()
                await socket.send(json.dumps({"type": "message", "text": text}))
                pieces: list[str] = []
                while True:
                    frame = json.loads(await asyncio.wait_for(socket.recv(), timeout))
                    if frame["type"] == "token":
                        pieces.append(frame["text"])
                    elif frame["type"] == "error":
                        run.errors.append(frame["code"])
                        break
                    elif frame["type"] == "reply_done":
                        break
                run.latencies.append(time.perf_counter() - started)
                run.replies.append("".join(pieces))
    except Exception as exc:  # a load run counts failures rather than stopping at the first
        run.errors.append(f"{type(exc).__name__}: {exc}")
    return run


async def crowd(url: str, customers: list[tuple[str, CustomerRun]], messages_for) -> list[CustomerRun]:
    """Run every customer at once."""
    return list(await asyncio.gather(*(chat(url, cookie, run, messages_for(run)) for cookie, run in customers)))


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    index = min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))
    return ordered[index]
