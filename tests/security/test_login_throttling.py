"""Failed logins lock out one username from one address, for customers and the admin, through real daphne.

The lock is on the pair (django-axes): the demo's login page lists its customers' usernames, so a lock
on the username alone would let anyone lock every customer out. Staff lift a lock in the admin.
"""

from __future__ import annotations

import pytest
from django.conf import settings as django_settings
from django.contrib.auth import get_user_model
from django.db import connection

from tests.factories import CustomerFactory
from tests.http_login import HttpBrowser
from tests.procs import ProcessEnv, start_daphne

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]

LIMIT = 3
LOCKED = "Too many failed logins"


@pytest.fixture(scope="module")
def daphne(django_db_setup, django_db_blocker):
    with django_db_blocker.unblock():
        connection.ensure_connection()
        env = ProcessEnv.from_connection(connection.settings_dict, django_settings.REDIS_URL)
    server = start_daphne(env, extra_env={"LOGIN_FAILURE_LIMIT": str(LIMIT)})
    yield server
    server.stop()


@pytest.fixture
def customers():
    made = {}
    for name in ("mallory-target", "bystander"):
        made[name] = CustomerFactory(username=name, password=f"right-{name}")
    return made


@pytest.fixture
def staff():
    return get_user_model().objects.create_superuser(username="boss", password="right-boss", email="b@example.com")


def guess(browser: HttpBrowser, username: str, times: int, path: str = "/accounts/login/") -> list[int]:
    return [browser.log_in(username, f"wrong-{i}", path)[0] for i in range(times)]


def test_a_customer_is_locked_out_and_the_right_password_then_fails_too(daphne, customers):
    attacker = HttpBrowser(daphne.port)

    statuses = guess(attacker, "mallory-target", LIMIT + 5)
    status, _, page = attacker.log_in("mallory-target", "right-mallory-target")

    assert statuses[: LIMIT - 1] == [200] * (LIMIT - 1)  # the form again, with its error
    assert set(statuses[LIMIT - 1 :]) == {429}
    assert status == 429 and LOCKED in page
    assert 'name="password"' in page  # the login page itself, not a bare error
    assert "sessionid" not in attacker.cookies


def test_the_lock_holds_for_that_username_from_that_address_only(daphne, customers):
    attacker = HttpBrowser(daphne.port, source="127.0.0.1")
    guess(attacker, "mallory-target", LIMIT)

    other_user_same_address = HttpBrowser(daphne.port, source="127.0.0.1").log_in("bystander", "right-bystander")
    same_user_elsewhere = HttpBrowser(daphne.port, source="127.0.0.2").log_in("mallory-target", "right-mallory-target")

    assert other_user_same_address[0] == 302
    assert same_user_elsewhere[0] == 302


def test_the_admin_login_is_locked_out_the_same_way(daphne, staff):
    attacker = HttpBrowser(daphne.port)

    guess(attacker, "boss", LIMIT, path="/admin/login/")
    status, _, page = attacker.log_in("boss", "right-boss", path="/admin/login/")

    assert status == 429 and LOCKED in page
    assert "Access attempts" in page  # the admin's own notice says where staff lift it
    assert "sessionid" not in attacker.cookies


@pytest.mark.parametrize("path", ["/accounts/login/", "/admin/login/"])
def test_an_overlong_username_is_a_failed_login_not_a_500(daphne, path):
    lengths = {"a": 255, "b": 256, "c": 5000}  # each a username of its own: one failure each
    statuses = [HttpBrowser(daphne.port).log_in(c * n, "whatever", path)[0] for c, n in lengths.items()]

    assert statuses == [200, 200, 200]


def test_staff_lift_a_lockout_in_the_admin_and_the_customer_logs_in(daphne, customers, staff):
    from axes.models import AccessAttempt

    guess(HttpBrowser(daphne.port), "mallory-target", LIMIT)
    attempt = AccessAttempt.objects.get(username="mallory-target")

    admin = HttpBrowser(daphne.port, source="127.0.0.3")
    assert admin.log_in("boss", "right-boss", path="/admin/login/")[0] == 302
    status, _, listing = admin.request("GET", "/admin/axes/accessattempt/")
    assert status == 200 and "mallory-target" in listing
    lifted = admin.post_form(
        "/admin/axes/accessattempt/",
        {"action": "delete_selected", "_selected_action": str(attempt.pk), "post": "yes"},
    )

    assert lifted[0] == 302
    assert not AccessAttempt.objects.filter(username="mallory-target").exists()
    assert HttpBrowser(daphne.port).log_in("mallory-target", "right-mallory-target")[0] == 302
