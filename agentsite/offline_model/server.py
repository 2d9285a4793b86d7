"""HTTP transport: the OpenAI-style endpoints, SSE streaming and the /_offline control endpoints. One thread per
connection, so a stalled request never holds up another; the only shared state is the script queue and the
counters, each behind its own lock. See docs/offline-model.md.
"""

from __future__ import annotations

import collections
import dataclasses
import hashlib
import json
import socket
import sys
import threading
import time
import traceback
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from . import chat, conversation, digest, extraction, protocol, recap, scripts, summary, tokens, validation
from .conversation import TASK_CHAT, TASK_DIGEST, TASK_EXTRACT, TASK_RECAP, TASK_SUMMARISE, Conversation
from .protocol import Reply

PACE_HEADER = "X-Offline-Pace-Ms"
SCRIPT_HEADER = "X-Offline-Script"
MAX_BODY_BYTES = 32 * 1024 * 1024
RECEIVED_KEPT = 500


class Stats:
    """Request counters for /_offline/stats. Thread-safe."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.reset()

    def reset(self) -> None:
        with self._lock:
            self.by_task: Counter[str] = Counter({t: 0 for t in conversation.TASKS})
            self.by_model: Counter[str] = Counter()
            self.behaviours: Counter[str] = Counter()
            self.streamed = 0
            self.total = 0
            self.rejected = 0

    def record(self, task: str, model: str, streamed: bool) -> None:
        with self._lock:
            self.total += 1
            self.by_task[task] += 1
            self.by_model[model] += 1
            self.streamed += int(streamed)

    def record_behaviour(self, name: str) -> None:
        with self._lock:
            self.behaviours[name] += 1

    def record_rejected(self) -> None:
        with self._lock:
            self.rejected += 1

    def snapshot(self) -> dict[str, Any]:
        with self._lock:
            return {
                "total": self.total,
                "by_task": dict(self.by_task),
                "by_model": dict(self.by_model),
                "streamed": self.streamed,
                "behaviours": dict(self.behaviours),
                "rejected": self.rejected,
            }


class OfflineModelServer(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False
    allow_reuse_address = True
    request_queue_size = 128

    def __init__(self, address: tuple[str, int], pace_ms: int = 0, verbose: bool = False) -> None:
        super().__init__(address, Handler)
        self.pace_ms = pace_ms
        self.verbose = verbose
        self.scripts = scripts.ScriptQueue()
        self.stats = Stats()
        # The latest chat-completion request bodies, for tests that check what reached the model.
        self.received: collections.deque[dict[str, Any]] = collections.deque(maxlen=RECEIVED_KEPT)

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client that drops its keep-alive connection (a reset while the server waits for its next
        request) has done nothing wrong: only other errors print their traceback."""
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


def compose(conv: Conversation) -> Reply:
    """The reply for a request, by task."""
    if conv.task == TASK_EXTRACT:
        return Reply(extraction.render(extraction.extract(conv)))
    if conv.task == TASK_SUMMARISE:
        return Reply(summary.summarise(conv))
    if conv.task == TASK_RECAP:
        return Reply(recap.recap(conv))
    if conv.task == TASK_DIGEST:
        return Reply(digest.digest(conv))
    return chat.respond(conv)


def _apply_tool_choice(body: dict[str, Any], conv: Conversation, reply: Reply) -> Reply:
    if conv.task != TASK_CHAT:
        return reply
    choice = body.get("tool_choice")
    if choice == "none" or not conv.tools:
        if reply.tool_calls:
            reply = chat.respond(dataclasses.replace(conv, tools={}))
    elif isinstance(choice, dict):
        name = (choice.get("function") or {}).get("name")
        if name:
            wanted = tuple(c for c in reply.tool_calls if c.name == name)
            reply = Reply(None, wanted or (chat.forced_call(conv, name),))
    elif choice == "required" and not reply.tool_calls:
        reply = Reply(None, (chat.forced_call(conv, next(iter(conv.tools))),))
    if body.get("parallel_tool_calls") is False and len(reply.tool_calls) > 1:
        reply = Reply(reply.content, reply.tool_calls[:1])
    return reply


def _apply_response_format(body: dict[str, Any], conv: Conversation, reply: Reply) -> Reply:
    response_format = body.get("response_format")
    kind = response_format.get("type") if isinstance(response_format, dict) else None
    if kind not in ("json_object", "json_schema") or reply.tool_calls or conv.task in (TASK_EXTRACT, TASK_DIGEST):
        return reply
    key = "summary" if conv.task in (TASK_SUMMARISE, TASK_RECAP) else "reply"
    return Reply(json.dumps({key: reply.content or ""}, ensure_ascii=False))


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "OfflineModel/1.0"
    # Headers and body leave in one write, and without Nagle's delay: otherwise a keep-alive
    # client waits ~40 ms on every request for the delayed ACK.
    wbufsize = 64 * 1024
    server: OfflineModelServer

    def setup(self) -> None:
        super().setup()
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the stdlib's name
        if self.server.verbose:
            sys.stderr.write("offline model: " + format % args + "\n")

    # ---- plumbing ----------------------------------------------------------------------------

    def _path(self) -> str:
        path = self.path.split("?", 1)[0]
        return path.rstrip("/") or "/"

    def _read_body(self) -> bytes:
        if "chunked" in (self.headers.get("Transfer-Encoding") or "").lower():
            data = b""
            while True:
                size = int(self.rfile.readline().split(b";")[0].strip() or b"0", 16)
                if size == 0:
                    self.rfile.readline()
                    return data
                data += self.rfile.read(size)
                self.rfile.readline()
                if len(data) > MAX_BODY_BYTES:
                    raise ValueError("body too large")
        length = int(self.headers.get("Content-Length") or 0)
        if length > MAX_BODY_BYTES:
            raise ValueError("body too large")
        return self.rfile.read(length) if length else b""

    def _send_json(self, status: int, payload: Any, headers: dict[str, str] | None = None) -> None:
        data = json.dumps(payload, ensure_ascii=False).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)

    def _send_error(
        self,
        status: int,
        message: str,
        type_: str = "invalid_request_error",
        param: str | None = None,
        code: str | None = None,
        headers: dict[str, str] | None = None,
    ) -> None:
        self._send_json(status, protocol.error_body(message, type_, param, code), headers)

    def _not_found(self) -> None:
        self._send_error(404, f"Unknown request URL: {self.command} {self._path()}.", code="unknown_url")

    # ---- routes ------------------------------------------------------------------------------

    def do_GET(self) -> None:
        path = self._path()
        if path == "/v1/models":
            self._send_json(200, protocol.models_list())
        elif path.startswith("/v1/models/"):
            name = path.rsplit("/", 1)[1]
            self._send_json(200, {"id": name, "object": "model", "created": 1735689600, "owned_by": "offline"})
        elif path == "/_offline/requests":
            self._send_json(200, {"requests": list(self.server.received)})
        elif path == "/_offline/stats":
            self._send_json(200, dict(self.server.stats.snapshot(), queued=self.server.scripts.pending()))
        elif path in ("/health", "/_offline/health"):
            self._send_json(200, {"status": "ok"})
        else:
            self._not_found()

    def do_POST(self) -> None:
        path = self._path()
        try:
            raw = self._read_body()
        except ValueError:
            self._send_error(413, "Request body too large.")
            return
        if path == "/v1/chat/completions":
            try:
                self._chat_completions(raw)
            except (BrokenPipeError, ConnectionResetError):
                self.close_connection = True
            except Exception:  # a bug in composing a reply must still answer like the API would
                traceback.print_exc(file=sys.stderr)
                self._send_error(500, "The offline model failed to compose a reply.", type_="server_error")
        elif path == "/_offline/script":
            self._script(raw)
        elif path == "/_offline/reset":
            self.server.scripts.clear()
            self.server.stats.reset()
            self.server.received.clear()
            self._send_json(200, {"status": "reset"})
        else:
            self._not_found()

    def do_PUT(self) -> None:
        self._not_found()

    def do_DELETE(self) -> None:
        self._not_found()

    def do_PATCH(self) -> None:
        self._not_found()

    def _script(self, raw: bytes) -> None:
        try:
            body = json.loads(raw or b"{}")
            items = body.get("behaviours", body.get("behaviors"))
            if not isinstance(items, list):
                raise scripts.ScriptError("'behaviours' must be a list.")
            behaviours = [scripts.parse(item) for item in items]
            self.server.scripts.push(behaviours, body.get("task"))
        except (ValueError, AttributeError) as error:
            self._send_error(
                400, str(error) if isinstance(error, scripts.ScriptError) else f"Bad script request: {error}"
            )
            return
        self._send_json(200, {"queued": self.server.scripts.pending()})

    # ---- chat completions --------------------------------------------------------------------

    def _chat_completions(self, raw: bytes) -> None:
        try:
            body = json.loads(raw)
        except ValueError:
            self.server.stats.record_rejected()
            self._send_error(
                400,
                "We could not parse the JSON body of your request. (HINT: This likely means you aren't using your "
                "HTTP library correctly. The OpenAI API expects a JSON payload, but what was sent was not valid "
                "JSON.)",
            )
            return
        try:
            validation.check_chat_request(body)
            header_script = self.headers.get(SCRIPT_HEADER)
            behaviour = scripts.parse(header_script) if header_script else None
        except validation.InvalidRequest as error:
            self.server.stats.record_rejected()
            self._send_error(400, error.message, param=error.param, code=error.code)
            return
        except scripts.ScriptError as error:
            self._send_error(400, str(error), param=SCRIPT_HEADER)
            return

        conv = conversation.from_request(body)
        streamed = bool(body.get("stream"))
        model = body["model"]
        self.server.stats.record(conv.task, model, streamed)
        self.server.received.append({"task": conv.task, "model": model, "messages": body.get("messages", [])})
        behaviour = behaviour or self.server.scripts.take(conv.task)
        if behaviour:
            self.server.stats.record_behaviour(behaviour.name)
            if behaviour.name == scripts.RATE_LIMIT:
                self._send_error(
                    429,
                    "Rate limit reached for requests (offline model script). Please try again.",
                    type_="rate_limit_exceeded",
                    code="rate_limit_exceeded",
                    headers={"retry-after": "0"},
                )
                return
            if behaviour.name == scripts.SERVER_ERROR:
                self._send_error(
                    500,
                    "The server had an error while processing your request. Sorry about that!",
                    type_="server_error",
                )
                return
            if behaviour.name == scripts.STALL:
                time.sleep(behaviour.seconds)

        reply = compose(conv)
        reply = _apply_tool_choice(body, conv, reply)
        if behaviour:
            reply = scripts.apply(behaviour, reply, conv)
        reply = _apply_response_format(body, conv, reply)
        reply, finish_reason = protocol.truncate(reply, body.get("max_completion_tokens") or body.get("max_tokens"))

        # Streamed or not, the same request gets the same ids.
        canonical = {k: v for k, v in body.items() if k not in ("stream", "stream_options")}
        key = hashlib.sha256(json.dumps(canonical, sort_keys=True).encode()).hexdigest()
        prompt = tokens.prompt_tokens(body["messages"], body.get("tools"))
        if not streamed:
            completion = protocol.completion(
                reply,
                model=model,
                request_key=key,
                prompt_tokens=prompt,
                finish_reason=finish_reason,
                n=body.get("n") or 1,
            )
            if behaviour and behaviour.name == scripts.BAD_CHUNK:
                completion["choices"][0]["message"] = "not an object"
            self._send_json(200, completion)
            return
        include_usage = bool((body.get("stream_options") or {}).get("include_usage"))
        chunks = protocol.chunks(
            reply,
            model=model,
            request_key=key,
            prompt_tokens=prompt,
            finish_reason=finish_reason,
            include_usage=include_usage,
        )
        fault = behaviour.name if behaviour and behaviour.name in scripts.STREAM_FAULTS else None
        self._stream(chunks, self._pace_ms(), fault)

    def _pace_ms(self) -> int:
        value = self.headers.get(PACE_HEADER)
        if value is not None:
            try:
                return max(0, int(float(value)))
            except ValueError:
                pass
        return self.server.pace_ms

    def _write_chunk(self, data: bytes) -> None:
        self.wfile.write(f"{len(data):X}\r\n".encode() + data + b"\r\n")
        self.wfile.flush()

    def _stream(self, chunks: list[dict[str, Any]], pace_ms: int, fault: str | None = None) -> None:
        """Send ``chunks`` as server-sent events; a ``fault`` (scripts.STREAM_FAULTS) breaks the stream after
        its second event: a chunk of the wrong shape, an error event, or the connection closed mid-reply."""
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream; charset=utf-8")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        try:
            for i, chunk in enumerate(chunks):
                if i and pace_ms:
                    time.sleep(pace_ms / 1000)
                if i == 2 and fault == scripts.CUT_STREAM:
                    self.close_connection = True  # no terminating chunk: the client sees the body end early
                    return
                if i == 2 and fault == scripts.STREAM_ERROR:
                    chunk = {
                        "error": {
                            "message": "The server had an error while streaming (offline model script).",
                            "type": "server_error",
                        }
                    }
                elif i == 2 and fault == scripts.BAD_CHUNK:
                    chunk = {**chunk, "choices": [{"index": 0, "delta": "not an object", "finish_reason": None}]}
                self._write_chunk(f"data: {json.dumps(chunk, ensure_ascii=False)}\n\n".encode())
            self._write_chunk(b"data: [DONE]\n\n")
            self.wfile.write(b"0\r\n\r\n")
            self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True  # the client went away mid-stream


def serve(host: str, port: int, pace_ms: int = 0, verbose: bool = False) -> OfflineModelServer:
    """Bind the server (port 0 picks a free one); the caller runs `serve_forever`."""
    return OfflineModelServer((host, port), pace_ms=pace_ms, verbose=verbose)
