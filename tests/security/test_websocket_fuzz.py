"""Fuzzing the chat websocket through a real daphne process while a normal customer chats alongside.

Hostile frames (random bytes, junk text, deep JSON, huge frames, wrong types) must each get one
error frame (or, for what the websocket layer itself refuses, a clean close), never a crash; the
bystander's turns must keep answering correctly throughout. Frames are pipelined over one socket
per example, so the >= 10,000 frames stay cheap.
"""

from __future__ import annotations

import contextlib
import json
import threading
import time
from collections.abc import Iterator

import pytest
from django.conf import settings as django_settings
from django.db import connection
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import ClientConnection, connect

from tests.http_login import login_cookie
from tests.procs import ProcessEnv, start_daphne

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]

FRAME_LIMIT = 8192  # AGENT_MAX_FRAME_CHARS
DAPHNE_LIMIT = 1024 * 1024  # daphne's websocket message size limit (bytes)
KNOWN_TYPES = {"message", "new_conversation", "history"}
FUZZ = settings(
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.large_base_example],
)


@pytest.fixture(scope="module")
def daphne(django_db_setup, django_db_blocker):
    """One daphne for the module; consolidation is not queued (no worker runs here)."""
    with django_db_blocker.unblock():
        connection.ensure_connection()
        env = ProcessEnv.from_connection(connection.settings_dict, django_settings.REDIS_URL)
    unlimited = {
        name: "100000"
        for name in (
            "AGENT_RATE_LIMIT_PER_MINUTE",
            "AGENT_HISTORY_FRAMES_PER_MINUTE",
            "AGENT_SOCKET_FRAMES_PER_MINUTE",
            "AGENT_SOCKETS_PER_MINUTE",
        )
    }
    server = start_daphne(env, extra_env={**unlimited, "MEMORY_CONSOLIDATE_EVERY_MESSAGES": "100000"})
    yield server
    server.stop()


@contextlib.contextmanager
def open_socket(server, cookie: str) -> Iterator[ClientConnection]:
    """A logged-in customer's socket over TCP, past its opening history frame."""
    with connect(
        f"ws://127.0.0.1:{server.port}/ws/chat/",
        additional_headers={"Cookie": cookie, "Origin": "http://localhost"},
        open_timeout=30,
        max_size=None,
        ping_interval=None,  # keepalive pings draw on `random`, which Hypothesis watches
    ) as socket:
        assert json.loads(socket.recv(timeout=30))["type"] == "history"
        yield socket


def turn(socket, text: str) -> list[dict]:
    """Send one message; return the frames up to the end of its turn."""
    socket.send(json.dumps({"type": "message", "text": text}))
    frames = []
    while True:
        frame = json.loads(socket.recv(timeout=60))
        frames.append(frame)
        if frame["type"] in {"reply_done", "error"}:
            return frames


class Bystander(threading.Thread):
    """A normal customer asking about their own order, over and over, while the fuzzing runs."""

    def __init__(self, server, user, order_number: str) -> None:
        super().__init__(daemon=True)
        self.server, self.cookie, self.order_number = server, login_cookie(user), order_number
        self.stop = threading.Event()
        self.replies: list[str] = []
        self.problems: list[str] = []

    def run(self) -> None:
        try:
            with open_socket(self.server, self.cookie) as socket:
                while not self.stop.is_set() or len(self.replies) < 3:
                    frames = turn(socket, f"What's the status of order {self.order_number}?")
                    reply = "".join(f["text"] for f in frames if f["type"] == "token")
                    if frames[-1]["type"] != "reply_done" or self.order_number not in reply:
                        self.problems.append(json.dumps(frames)[:500])
                    self.replies.append(reply)
        except Exception as exc:  # reported by the test, not lost in the thread
            self.problems.append(f"{type(exc).__name__}: {exc}")

    def finish(self) -> None:
        self.stop.set()
        self.join(120)
        assert not self.is_alive(), "the bystander's turn never finished"


@pytest.fixture
def bystander(daphne, make_customer):
    user, order = make_customer()
    person = Bystander(daphne, user, order.number)
    person.start()
    yield person
    person.finish()


def log_since(server, offset: int) -> str:
    return server.log.read_text(errors="replace")[offset:]


# -- frames that each get exactly one answer -------------------------------------------------------------

json_leaf = st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20)
json_value = st.recursive(
    json_leaf,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12,
)
not_text = st.none() | st.booleans() | st.integers() | st.floats() | st.lists(json_leaf, max_size=3)
any_text = st.text(max_size=40) | st.text(st.characters(min_codepoint=0xD800, max_codepoint=0xDFFF), max_size=5)


def deep(depth: int, shape: str) -> str:
    if shape == "array":
        return "[" * depth + "]" * depth
    if shape == "object":
        return '{"a":' * depth + "1" + "}" * depth
    if shape == "open":
        return "[" * depth
    return json.dumps({"type": "history", "x": "@"}).replace('"@"', "[" * depth + "]" * depth)


single_answer_frames = st.one_of(
    st.binary(max_size=600),  # a binary frame
    st.text(max_size=200),  # junk text, now and then valid JSON
    (json_leaf | st.lists(json_value, max_size=4)).map(json.dumps),  # JSON that is not an object
    st.dictionaries(st.text(max_size=8).filter(lambda k: k != "type"), json_value, max_size=4).map(json.dumps),
    st.builds(lambda t: json.dumps({"type": t}), not_text),
    st.builds(
        lambda t, extra: json.dumps({**extra, "type": t}),
        any_text.filter(lambda t: t not in KNOWN_TYPES),
        st.dictionaries(st.text(max_size=5), json_leaf, max_size=3),
    ),
    st.builds(
        lambda text: json.dumps({"type": "message", "text": text}),
        not_text | st.text(" \t\r\n\u3000\u00a0\u2003", max_size=10),
    ),
    st.builds(
        deep,
        st.integers(1, 300) | st.integers(1100, 6000),
        st.sampled_from(["array", "object", "open", "inside"]),
    ),
    st.builds(
        lambda n, piece, wrapped: json.dumps({"type": "message", "text": piece * n}) if wrapped else piece * n,
        st.integers(FRAME_LIMIT + 1, 20_000),
        st.sampled_from(["a", "界", "{", "\u00e9"]),
        st.booleans(),
    ),
    st.just('{"type": "history", "extra": [1, 2, 3]}'),
)


def nesting(text: str) -> int:
    """The deepest nesting of JSON arrays and objects in ``text`` (brackets inside strings not counted)."""
    depth = deepest = 0
    in_string = escaped = False
    for char in text:
        if in_string:
            escaped, in_string = (False, True) if escaped else (char == "\\", char != '"')
        elif char == '"':
            in_string = True
        elif char in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif char in "]}":
            depth -= 1
    return deepest


def expected_answer(frame: str | bytes) -> str:
    """What docs/protocol.md says the server answers to one frame."""
    if isinstance(frame, bytes):
        return "error:bad_frame"
    if len(frame) > FRAME_LIMIT:
        return "error:too_large"
    if nesting(frame) >= 1000:  # the server's recursion limit; Hypothesis raises the test process's own
        return "error:bad_json"
    try:
        value = json.loads(frame)
    except ValueError:
        return "error:bad_json"
    if not isinstance(value, dict) or not isinstance(value.get("type"), str):
        return "error:bad_frame"
    if value["type"] not in KNOWN_TYPES:
        return "error:unknown_type"
    if value["type"] == "history":
        return "history"
    text = value.get("text")
    if value["type"] == "message" and (not isinstance(text, str) or not text.strip()):
        return "error:bad_message"
    return "turn"


def answer_of(frame: dict) -> str:
    return f"error:{frame['code']}" if frame["type"] == "error" else frame["type"]


def test_fuzzed_frames_each_get_an_error_frame_and_the_bystander_is_unaffected(daphne, make_customer, bystander):
    attacker, _ = make_customer()
    cookie = login_cookie(attacker)
    log_start = len(daphne.log.read_text(errors="replace"))
    sent = []

    @settings(FUZZ, max_examples=55)
    @given(st.lists(single_answer_frames, min_size=185, max_size=230))
    def check(frames: list[str | bytes]) -> None:
        with open_socket(daphne, cookie) as socket:
            for frame in frames:
                socket.send(frame)
            answers = [answer_of(json.loads(socket.recv(timeout=60))) for _ in frames]
        assert answers == [expected_answer(frame) for frame in frames]
        sent.append(len(frames))

    started = time.monotonic()
    check()
    print(f"\n{sum(sent)} frames in {len(sent)} examples, {time.monotonic() - started:.1f} s")
    bystander.finish()

    assert sum(sent) >= 10_000, sum(sent)
    assert bystander.problems == []
    assert len(bystander.replies) >= 3
    log = log_since(daphne, log_start)
    assert "Traceback" not in log and "Exception inside application" not in log, log[-3000:]


# -- frames the websocket layer refuses by closing ------------------------------------------------------


def invalid_utf8(data: bytes) -> bool:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return True
    return False


closing_frames = st.one_of(
    st.binary(min_size=1, max_size=300).filter(invalid_utf8).map(lambda b: ("text", b, 1007)),
    st.integers(DAPHNE_LIMIT + 1, 2 * DAPHNE_LIMIT).map(lambda n: ("text", b"a" * n, 1009)),
    st.integers(DAPHNE_LIMIT + 1, DAPHNE_LIMIT + 4096).map(lambda n: ("binary", b"\x00" * n, 1009)),
)


def test_invalid_utf8_and_oversized_frames_close_the_socket_cleanly(daphne, make_customer, bystander):
    attacker, _ = make_customer()
    cookie = login_cookie(attacker)
    log_start = len(daphne.log.read_text(errors="replace"))
    closes = []

    @settings(FUZZ, max_examples=12)
    @given(closing_frames)
    def check(frame: tuple[str, bytes, int]) -> None:
        kind, payload, code = frame
        with open_socket(daphne, cookie) as socket:
            try:
                socket.send(payload, text=kind == "text")
            except ConnectionClosed as refused:  # closed while a frame megabytes long was still going out
                ended = refused
            else:
                with pytest.raises(ConnectionClosed) as closed:
                    socket.recv(timeout=30)
                ended = closed.value
        # Daphne (autobahn) may drop the TCP connection without a close frame; if it sends one, the code is right.
        received = ended.rcvd
        assert received is None or received.code == code
        closes.append(received.code if received else "dropped")

    check()
    bystander.finish()

    assert len(closes) >= 10 and set(closes) <= {1007, 1009, "dropped"}
    assert bystander.problems == []
    with open_socket(daphne, cookie) as socket:  # the server still takes new sockets
        assert turn(socket, "hello")[-1]["type"] == "reply_done"
    log = log_since(daphne, log_start)
    assert "Traceback" not in log and "Exception inside application" not in log, log[-3000:]


# -- message text of every kind: a turn, or a refusal; never a failed turn ------------------------------------

message_text = st.one_of(
    st.text(min_size=1, max_size=300),
    st.text(st.characters(codec=None, exclude_categories=()), min_size=1, max_size=60),  # surrogates, NUL, controls
    st.builds(lambda a, b: a + "\x00" + b, st.text(max_size=20), st.text(max_size=20)),
    st.text(min_size=FRAME_LIMIT // 2, max_size=FRAME_LIMIT // 2, alphabet="ab 界"),
)


def test_fuzzed_message_text_gets_a_reply_or_a_refusal_never_a_failed_turn(daphne, make_customer, bystander):
    attacker, _ = make_customer()
    cookie = login_cookie(attacker)
    log_start = len(daphne.log.read_text(errors="replace"))
    outcomes = []

    with open_socket(daphne, cookie) as socket:

        @settings(FUZZ, max_examples=12)
        @given(message_text)
        def check(text: str) -> None:
            frame = json.dumps({"type": "message", "text": text})  # ASCII escapes: surrogates travel as \udXXX
            if len(frame) > FRAME_LIMIT:
                return
            socket.send(frame)
            frames = []
            while not frames or frames[-1]["type"] not in {"reply_done", "error"}:
                frames.append(json.loads(socket.recv(timeout=60)))
            last = frames[-1]
            if not text.strip() or "\x00" in text or any("\ud800" <= c <= "\udfff" for c in text):
                assert answer_of(last) == "error:bad_message"
            else:
                assert answer_of(last) in {"reply_done", "error:bad_message"}, frames
            outcomes.append(answer_of(last))

        check()
    bystander.finish()

    assert "reply_done" in outcomes
    assert bystander.problems == []
    log = log_since(daphne, log_start)
    assert "Traceback" not in log and "Exception inside application" not in log, log[-3000:]
