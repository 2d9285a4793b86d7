"""Two daphne processes behind HAProxy behave as one app.

Real processes: HAProxy (``agentsite.balancer``) before two daphne processes, which reach PostgreSQL
through PgBouncer in transaction mode (the pooling docs/operations.md recommends) and share Redis and
a paced offline model. The processes are started once for the module; the last two tests kill one.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
import threading
import urllib.error
import urllib.parse
import urllib.request
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from decimal import Decimal

import pytest
from django.contrib.auth import get_user_model
from django.db import connection
from django.test import Client

from agentsite.offline_model.runner import start_offline_model
from memory.models import Conversation, ConversationMessage
from tests.chat.wsclient import RemoteChatSocket
from tests.factories import CustomerFactory, OrderFactory
from tests.faults.test_second_tab import ORDER, assert_turns_not_interleaved
from tests.procs import (
    Balancer,
    DaphneServer,
    PgBouncer,
    ProcessEnv,
    free_port,
    start_balancer,
    start_daphne,
    start_pgbouncer,
)
from tests.waiting import wait_until

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]

ORDERS = ("ORD-2025-0201", "ORD-2025-0202")
WEB_ENV = {
    "DATABASE_TRANSACTION_POOLING": "1",
    "LOCK_LEASE_SECONDS": "3",  # a killed process's conversation is free again within 3 s
    "AGENT_RATE_LIMIT_PER_MINUTE": "1000",
}


@dataclass
class Cluster:
    bouncer: PgBouncer
    balancer: Balancer
    webs: list[DaphneServer]
    env: ProcessEnv
    extra_env: dict[str, str]

    def restart(self, index: int) -> DaphneServer:
        """Start web process ``index`` again on its port."""
        self.webs[index] = start_daphne(self.env, extra_env=self.extra_env, port=self.webs[index].port)
        return self.webs[index]

    def wait_for_backends(self, up: dict[str, bool], timeout: float = 30) -> None:
        wait_until(
            lambda: self.balancer.backends_up() == up,
            lambda: f"HAProxy sees {self.balancer.backends_up()}, not {up}",
            timeout,
            interval=0.1,
        )

    def set_state(self, server: str, state: str) -> None:
        """``ready``, ``drain`` (no new connections) or ``maint``, through HAProxy's runtime API."""
        answer = self.balancer.command(f"set server web/{server} state {state}")
        assert answer.strip() == "", answer


@pytest.fixture(scope="module")
def cluster(django_db_setup, django_db_blocker) -> Iterator[Cluster]:
    with django_db_blocker.unblock():
        connection.ensure_connection()
        settings_dict = dict(connection.settings_dict)
        direct = ProcessEnv.from_connection(settings_dict, _redis_url())
    with contextlib.ExitStack() as started:
        model = start_offline_model(pace_ms=40)
        started.callback(model.stop)
        bouncer = start_pgbouncer(settings_dict, pool_size=4)
        started.callback(bouncer.stop)
        env = bouncer.process_env(direct)
        extra = {**WEB_ENV, "OPENAI_BASE_URL": model.base_url}
        webs: list[DaphneServer] = []
        started.callback(lambda: [web.stop() for web in webs])  # the ones running at the end, restarts included
        for _ in range(2):
            webs.append(start_daphne(env, extra_env=extra, port=free_port()))
        balancer = start_balancer([web.port for web in webs])
        started.callback(balancer.stop)
        made = Cluster(bouncer, balancer, webs, env, extra)
        made.wait_for_backends({"web1": True, "web2": True})
        yield made


def _redis_url() -> str:
    from django.conf import settings

    return settings.REDIS_URL


@pytest.fixture
def customer(transactional_db):
    user = CustomerFactory(username="two-processes", password="pw", profile__display_name="Two Processes")
    for number in ORDERS:
        OrderFactory(customer=user, number=number, total=Decimal("5.00"))
    return user


def test_two_tabs_on_two_processes_see_one_history_without_interleaving(cluster, customer):
    async def scenario():
        first = RemoteChatSocket(cluster.webs[0].url, customer)
        await first.connect()
        conversation = first.history["conversation_id"]
        second = RemoteChatSocket(cluster.webs[1].url, customer, conversation=conversation)
        await second.connect()
        turns = await asyncio.gather(
            *(
                tab.say(f"What's the status of order {number}?")
                for tab, number in zip((first, second), ORDERS, strict=True)
            )
        )
        histories = [await tab.history_of(4) for tab in (first, second)]
        for tab in (first, second):
            await tab.close()
        return conversation, turns, histories

    conversation, turns, (first_sees, second_sees) = asyncio.run(scenario())

    for turn, number in zip(turns, ORDERS, strict=True):
        assert turn.frames[-1]["type"] == "reply_done", turn.frames
        assert set(ORDER.findall(turn.reply)) == {number}, turn.reply
    assert first_sees == second_sees and len(first_sees) == 4
    assert_turns_not_interleaved(conversation, ORDERS)


class StaffBrowser:
    """A staff member's console requests to one web process, logged in, each form with its CSRF token."""

    def __init__(self, base_url: str, staff) -> None:
        client = Client()
        client.force_login(staff)
        self.base_url, self.cookies = base_url, {"sessionid": client.cookies["sessionid"].value}

    def act(self, conversation: str, action: str, **form: str) -> int:
        """Press ``action`` (take, reply …) on the conversation's page; return the status (302: done)."""
        status, page = self._open(f"/staff/{conversation}/")
        assert status == 200, page[:500]
        token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page).group(1)
        status, _ = self._open(f"/staff/{conversation}/{action}/", {"csrfmiddlewaretoken": token, **form})
        return status

    def _open(self, path: str, form: dict | None = None) -> tuple[int, str]:
        cookie = "; ".join(f"{name}={value}" for name, value in self.cookies.items())
        data = urllib.parse.urlencode(form).encode() if form is not None else None
        request = urllib.request.Request(self.base_url + path, data=data, headers={"Cookie": cookie})
        try:
            response = urllib.request.build_opener(_NoRedirect).open(request, timeout=30)
        except urllib.error.HTTPError as error:  # a 302 too, with redirects not followed
            response = error
        for header in response.headers.get_all("Set-Cookie") or []:
            name, value = header.split(";", 1)[0].split("=", 1)
            self.cookies[name] = value
        return response.status, response.read().decode(errors="replace")


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


def test_staff_on_one_process_reach_the_customer_on_the_other_and_the_bot_is_silent_on_both(cluster, customer):
    staff = get_user_model().objects.create_user("lead", password="pw", is_staff=True, first_name="Lin")
    console = StaffBrowser(cluster.webs[0].url, staff)

    async def scenario():
        customer_tab = RemoteChatSocket(cluster.webs[1].url, customer)
        await customer_tab.connect()
        conversation = customer_tab.history["conversation_id"]
        escalated = await customer_tab.say("I want to talk to a human, please")
        taken = await asyncio.to_thread(console.act, conversation, "take")
        replied = await asyncio.to_thread(console.act, conversation, "reply", text="Hello, Lin here. Looking now.")
        staff_frames = await customer_tab.frames_until({"staff_message"})
        other_tab = RemoteChatSocket(cluster.webs[0].url, customer, conversation=conversation)
        await other_tab.connect()
        silent = [await customer_tab.say("Are you there?"), await other_tab.say("Hello? Anyone?")]
        for tab in (customer_tab, other_tab):
            await tab.close()
        return conversation, escalated, (taken, replied), staff_frames, silent

    conversation, escalated, statuses, staff_frames, silent = asyncio.run(scenario())

    assert escalated.of("escalated"), escalated.frames
    assert statuses == (302, 302)
    assert staff_frames[-1]["text"] == "Hello, Lin here. Looking now."
    for turn in silent:  # each process: a notice that a person has the conversation, no bot reply
        assert turn.of("notice") and not turn.of("token"), turn.frames
    assert Conversation.objects.get(pk=conversation).state == "human"
    stored = list(
        ConversationMessage.objects.filter(conversation_id=conversation)
        .order_by("seq")
        .values_list("role", "content", "metadata")
    )
    staff_at = next(i for i, (_, _, metadata) in enumerate(stored) if metadata.get("staff_name"))
    assert stored[staff_at][1] == "Hello, Lin here. Looking now."
    assert [content for role, content, _ in stored[staff_at + 1 :] if role != "user"] == []  # no bot on either


def test_a_web_process_killed_mid_turn_loses_nothing_and_the_page_reconnects_to_the_other(cluster, customer):
    """The customer's page (Chromium) sends through the balancer; its process is SIGKILLed while the reply
    streams. The page reconnects through the balancer to the other process and shows the message."""
    from playwright.sync_api import sync_playwright

    from tests.web.test_browser import CHROMIUM, CHROMIUM_ARGS

    cookie = StaffBrowser(cluster.balancer.url, customer).cookies["sessionid"]
    cluster.set_state("web2", "drain")  # the page's socket goes to web1, the process killed below
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
            context = browser.new_context(locale="en-US")
            context.add_cookies([{"name": "sessionid", "value": cookie, "url": cluster.balancer.url}])
            page = context.new_page()
            page.goto(cluster.balancer.url + "/")
            page.wait_for_selector('#connection[data-state="open"]')
            cluster.set_state("web2", "ready")
            page.fill("#message", f"Where is my order {ORDERS[0]}? It has been a week.")
            page.press("#message", "Enter")
            page.wait_for_selector("#log .msg.agent.streaming")  # the message was accepted; the reply streams
            with page.expect_websocket(timeout=30000) as reconnected:
                cluster.webs[0].kill()  # SIGKILL: the reply stops half-way, the socket drops
            reconnected.value.wait_for_event("framereceived", timeout=30000)  # the history, from web2
            page.wait_for_selector('#connection[data-state="open"]', timeout=30000)
            page.wait_for_selector(
                f'#log .msg.customer:has-text("{ORDERS[0]}")', timeout=10000
            )  # the history from web2
            shown = page.locator("#log .msg.customer").all_inner_texts()
            page.fill("#message", f"And order {ORDERS[1]}?")
            page.press("#message", "Enter")
            page.wait_for_function(
                "n => [...document.querySelectorAll('#log .msg.agent:not(.streaming)')]"
                ".some(m => m.textContent.includes(n))",
                arg=ORDERS[1],
                timeout=30000,
            )
            browser.close()
    finally:
        cluster.restart(0)

    assert any(ORDERS[0] in text for text in shown), shown  # the accepted message, in the history from web2
    stored = ConversationMessage.objects.filter(conversation__customer=customer, role="user").values_list(
        "content", flat=True
    )
    assert any(ORDERS[0] in text for text in stored) and any(ORDERS[1] in text for text in stored)


def test_the_balancer_stops_sending_to_a_dead_process_and_resumes_when_it_returns(cluster):
    cluster.wait_for_backends({"web1": True, "web2": True})
    cluster.webs[1].kill()
    cluster.wait_for_backends({"web1": True, "web2": False})
    statuses = [_get(cluster.balancer.url + "/healthz") for _ in range(10)]
    assert statuses == [200] * 10  # none sent to the dead process

    cluster.restart(1)
    cluster.wait_for_backends({"web1": True, "web2": True})
    before = cluster.balancer.sessions()["web2"]
    statuses = [_get(cluster.balancer.url + "/healthz") for _ in range(10)]
    assert statuses == [200] * 10
    assert cluster.balancer.sessions()["web2"] > before  # the returned process gets its share again


def _get(url: str) -> int:
    with urllib.request.urlopen(url, timeout=10) as response:
        return response.status


@contextlib.contextmanager
def through(bouncer: PgBouncer) -> Iterator[None]:
    """New connections of this process (every thread's) go through ``bouncer`` for the block."""
    from django.db import connections

    database = connections.settings["default"]
    saved = {key: database.get(key) for key in ("HOST", "PORT", "OPTIONS")}
    database.update(HOST="127.0.0.1", PORT=bouncer.port, OPTIONS={})
    try:
        yield
    finally:
        database.update(saved)


def test_the_turn_lock_holds_when_every_statement_shares_one_server_connection(process_env):
    """PgBouncer in transaction mode with one server connection: a session-level advisory lock would be
    taken again by the second thread on that same session (advisory locks are reentrant), so the two turns
    would run at once. The lease makes the second wait for the first."""
    from chat.agent import turn_lock

    bouncer = start_pgbouncer(dict(connection.settings_dict), pool_size=1)
    conversation, order = uuid.uuid4(), []
    entered, release = [threading.Event(), threading.Event()], [threading.Event(), threading.Event()]

    def turn(index: int) -> None:
        try:
            with turn_lock(conversation):
                order.append(f"in {index}")
                entered[index].set()
                release[index].wait(10)
                order.append(f"out {index}")
        finally:
            connection.close()

    try:
        with through(bouncer):
            first = threading.Thread(target=turn, args=(0,))
            first.start()
            assert entered[0].wait(10)
            second = threading.Thread(target=turn, args=(1,))
            second.start()
            second_entered_early = entered[1].wait(1)
            release[0].set()
            assert entered[1].wait(10)
            release[1].set()
            first.join(10)
            second.join(10)
    finally:
        release[0].set()
        release[1].set()
        bouncer.stop()

    assert not second_entered_early
    assert order == ["in 0", "out 0", "in 1", "out 1"]
