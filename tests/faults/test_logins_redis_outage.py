"""Logins outlive a Redis outage: sessions are cached in Redis but written through to PostgreSQL.

A daphne process on the test's own redis-server, which the test kills: logging in, staying logged in,
opening the chat socket and logging out all keep working, and when Redis returns nobody is logged out.
"""

import json

import pytest

from tests.factories import CustomerFactory
from tests.http_login import HttpBrowser
from tests.procs import ProcessEnv, start_daphne

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]

DAPHNE_ENV = {"MEMORY_REDIS_RETRY_AFTER_SECONDS": "0", "CLOCK_ALLOW_OFFSET": "0"}


def chat_page(browser: HttpBrowser) -> int:
    return browser.request("GET", "/")[0]  # 200 logged in; 302 to the login page otherwise


def first_frame(browser: HttpBrowser) -> dict:
    with browser.chat_socket() as socket:
        return json.loads(socket.recv(timeout=30))


def test_logins_work_through_a_redis_outage_and_survive_its_end(process_env, own_redis):
    for name in ("before", "during", "leaver"):
        CustomerFactory(username=name, password=f"pw-{name}")
    server = start_daphne(ProcessEnv(process_env.database_url, own_redis.url), extra_env=DAPHNE_ENV)
    try:
        before, leaver = HttpBrowser(server.port), HttpBrowser(server.port)
        assert before.log_in("before", "pw-before")[0] == 302
        assert leaver.log_in("leaver", "pw-leaver")[0] == 302
        assert chat_page(before) == 200

        own_redis.kill()
        during = HttpBrowser(server.port)
        logged_in_during = during.log_in("during", "pw-during")[0]
        pages_during = chat_page(before), chat_page(during)
        socket_during = first_frame(before)["type"]
        logout_during = leaver.log_out()
        leaver_after_logout = chat_page(leaver)

        own_redis.start()  # back, and empty
        pages_after = chat_page(before), chat_page(during)
    finally:
        server.stop()

    assert logged_in_during == 302
    assert pages_during == (200, 200)
    assert socket_during == "history"
    assert logout_during == 302 and leaver_after_logout == 302
    assert pages_after == (200, 200)
    log = server.log.read_text(errors="replace")
    assert "Traceback" not in log, log[-3000:]
