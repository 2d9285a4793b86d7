"""`/healthz` over real HTTP from a daphne process."""

import json
import socket

import pytest

from agentsite import embedded
from tests.factories import CustomerFactory
from tests.http_login import login_cookie
from tests.procs import ProcessEnv, start_daphne

pytestmark = pytest.mark.django_db(transaction=True)


def test_healthz_is_200_when_every_service_is_up_and_shows_what_it_found_to_staff_only(process_env):
    """Before, anyone saw each check's detail: versions, and an error that may name a host."""
    staff = CustomerFactory(username="health-staff", is_staff=True)
    server = start_daphne(process_env)
    try:
        status, body = server.get("/healthz")
        _, for_staff = server.get("/healthz", headers={"Cookie": login_cookie(staff)})
    finally:
        server.stop()

    report = json.loads(body)
    assert status == 200
    assert report["status"] == "ok"
    assert report["failing"] == []
    assert report["services"]["database"] == {"status": "up"}
    assert json.loads(for_staff)["services"]["database"]["detail"].startswith("pgvector 0.8")


def test_healthz_is_503_naming_redis_when_redis_is_stopped(process_env, tmp_path):
    # A redis-server of this test's own, so stopping it disturbs no other test.
    redis_dir = tmp_path / "redis"
    own = ProcessEnv(database_url=process_env.database_url, redis_url=embedded.ensure_redis(redis_dir))
    server = start_daphne(own)
    try:
        assert server.get("/healthz")[0] == 200
        embedded.stop_redis(redis_dir, kill=True)

        status, body = server.get("/healthz")
    finally:
        server.stop()
        embedded.stop_redis(redis_dir)

    report = json.loads(body)
    assert status == 503
    assert report["status"] == "unavailable"
    assert set(report["failing"]) == {"redis", "broker"}
    assert report["services"]["database"]["status"] == "up"


def test_healthz_is_503_naming_the_database_when_it_accepts_and_never_answers(process_env):
    """A database (or a pooler) that accepts the connection and then says nothing: the check fails at
    ``DATABASE_CONNECT_TIMEOUT`` instead of holding the request, so a balancer's health check gets its
    answer."""
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen(64)  # the kernel completes each handshake; nobody ever reads or answers
        url = f"postgresql://postgres:@127.0.0.1:{silent.getsockname()[1]}/postgres"
        server = start_daphne(
            ProcessEnv(database_url=url, redis_url=process_env.redis_url), extra_env={"DATABASE_CONNECT_TIMEOUT": "1"}
        )
        try:
            status, body = server.get("/healthz", timeout=30)
        finally:
            server.stop()

    report = json.loads(body)
    assert status == 503 and report["failing"] == ["database"]
    logged = [line for line in server.log.read_text().splitlines() if "health check database failed" in line]
    assert logged and "timeout" in logged[-1].lower(), logged
