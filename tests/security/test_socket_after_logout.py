"""A chat socket does not outlive its login: through real daphne, with a real login and logout over HTTP.

A logout over HTTP closes the login's open sockets at once (4401). A login that ends without a logout
(a password changed, an account deactivated) is caught by the next frame, whatever its type. Frames of
every type have a per-customer budget.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator

import pytest
from django.conf import settings as django_settings
from django.db import connection
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import ClientConnection

from chat.consumers import CLOSE_LOGGED_OUT
from tests.factories import CustomerFactory
from tests.http_login import HttpBrowser
from tests.procs import ProcessEnv, start_daphne

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]

BUDGETS = {
    "AGENT_NEW_CONVERSATIONS_PER_MINUTE": "2",
    "AGENT_HISTORY_FRAMES_PER_MINUTE": "3",
    "AGENT_SOCKETS_PER_MINUTE": "4",
}


@pytest.fixture(scope="module")
def daphne(django_db_setup, django_db_blocker):
    with django_db_blocker.unblock():
        connection.ensure_connection()
        env = ProcessEnv.from_connection(connection.settings_dict, django_settings.REDIS_URL)
    server = start_daphne(env, extra_env={**BUDGETS, "MEMORY_CONSOLIDATE_EVERY_MESSAGES": "100000"})
    yield server
    server.stop()


@pytest.fixture
def logged_in(daphne):
    """A customer logged in through the real login form; their browser."""
    counter = iter(range(1000))

    def make() -> tuple[object, HttpBrowser]:
        name = f"leaver{next(counter)}"
        user = CustomerFactory(username=name, password=f"pw-{name}")
        browser = HttpBrowser(daphne.port)
        assert browser.log_in(name, f"pw-{name}")[0] == 302
        return user, browser

    return make


@contextlib.contextmanager
def chat_socket(browser: HttpBrowser) -> Iterator[ClientConnection]:
    """The browser's chat socket, past its opening history frame."""
    with browser.chat_socket() as socket:
        assert json.loads(socket.recv(timeout=30))["type"] == "history"
        yield socket


def closing_frames(socket: ClientConnection) -> tuple[list[dict], int | None]:
    """Every frame until the server closes the socket, and its close code."""
    frames = []
    try:
        while True:
            frames.append(json.loads(socket.recv(timeout=30)))
    except ConnectionClosed as closed:
        return frames, closed.rcvd.code if closed.rcvd else None


def test_a_logout_over_http_closes_the_open_socket_at_once(daphne, logged_in):
    _, browser = logged_in()
    with chat_socket(browser) as socket:
        assert browser.log_out() == 302
        frames, code = closing_frames(socket)  # nothing sent: the server closes by itself

    assert frames == [{"type": "error", "code": "logged_out", "message": "you have been logged out"}]
    assert code == CLOSE_LOGGED_OUT


@pytest.mark.parametrize(
    "frame",
    [{"type": "history"}, {"type": "new_conversation"}, {"type": "message", "text": "hello"}],
    ids=lambda f: f["type"],
)
@pytest.mark.parametrize("ended_by", ["password_change", "deactivation"])
def test_every_frame_type_is_refused_once_the_login_has_ended(daphne, logged_in, frame, ended_by):
    user, browser = logged_in()
    with chat_socket(browser) as socket:
        if ended_by == "password_change":
            user.set_password("changed elsewhere")
        else:
            user.is_active = False
        user.save()
        socket.send(json.dumps(frame))
        frames, code = closing_frames(socket)

    assert [f.get("code") for f in frames] == ["logged_out"]
    assert code == CLOSE_LOGGED_OUT


@pytest.mark.parametrize(
    ("frame", "budget"),
    [({"type": "new_conversation"}, 2), ({"type": "history"}, 3)],
    ids=["new_conversation", "history"],
)
def test_frames_other_than_messages_have_a_budget_per_customer(daphne, logged_in, frame, budget, fresh_rate_window):
    _, browser = logged_in()
    answers = []
    with chat_socket(browser) as first, chat_socket(browser) as second:
        for i in range(budget + 2):  # alternating sockets: the budget is the customer's, not the socket's
            socket = first if i % 2 == 0 else second
            socket.send(json.dumps(frame))
            answer = json.loads(socket.recv(timeout=30))
            answers.append(answer.get("code") or answer["type"])

    assert answers == ["history"] * budget + ["rate_limited"] * 2


def test_reconnecting_does_not_get_around_the_budgets(daphne, logged_in, fresh_rate_window):
    """Each socket opens with the whole history: opening sockets has a budget of its own."""
    _, browser = logged_in()
    opened = []
    for _ in range(6):
        with browser.chat_socket() as socket:
            first = json.loads(socket.recv(timeout=30))
            opened.append(first.get("code") or first["type"])
            if first["type"] == "error":
                _, code = closing_frames(socket)
                opened.append(code)

    assert opened == ["history"] * 4 + ["rate_limited", 4503, "rate_limited", 4503]
