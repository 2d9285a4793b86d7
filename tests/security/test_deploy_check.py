"""`manage.py check --deploy` with production settings from the environment, run as a real subprocess."""

from __future__ import annotations

import os
import subprocess
import sys

from tests.procs import ROOT
from tests.testenv import TEST_ONLY

PRODUCTION = {
    "AGENTSITE_ENV": "production",
    "SECRET_KEY": "k3V9-qT7mZ2x_Lp8Rw4Yb6Nc1Hd5Fg0Js-Ua7Ve3Wi9Xo2Zq8Ct4Ey6Gr1Kn5Mh0Pl",
    "ALLOWED_HOSTS": "support.example.com",
    "DATABASE_URL": "postgresql://app:secret@db.internal:5432/agent",
    "REDIS_URL": "redis://cache.internal:6379",
    "OPENAI_BASE_URL": "https://llm.internal/v1",
}
# Variables of the developer's shell or the test run that would change what production loads.
NOT_INHERITED = {*TEST_ONLY, "DEBUG", "SECURE_HSTS_PRELOAD", "SECURE_HSTS_SECONDS", "SECURE_SSL_REDIRECT"}


def check_deploy(**overrides: str) -> subprocess.CompletedProcess:
    environ = {k: v for k, v in os.environ.items() if k not in PRODUCTION and k not in NOT_INHERITED}
    environ.update(PRODUCTION, AGENTSITE_READ_DOTENV="0", DJANGO_SETTINGS_MODULE="agentsite.settings", **overrides)
    return subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=ROOT,
        env=environ,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_check_deploy_passes_with_production_settings_from_the_environment():
    run = check_deploy()

    assert run.returncode == 0, run.stdout + run.stderr
    assert "System check identified no issues (1 silenced)." in run.stdout  # security.W021, reason in settings


def test_check_deploy_passes_with_preload_opted_in_and_nothing_silenced():
    run = check_deploy(SECURE_HSTS_PRELOAD="1")

    assert run.returncode == 0, run.stdout + run.stderr
    assert "System check identified no issues (0 silenced)." in run.stdout


def test_check_deploy_fails_when_production_settings_are_weakened():
    run = check_deploy(SECRET_KEY="short-and-guessable", DEBUG="1", SECURE_SSL_REDIRECT="0", SECURE_HSTS_SECONDS="0")

    assert run.returncode != 0
    for warning in ("security.W009", "security.W018", "security.W008", "security.W004"):
        assert warning in run.stdout + run.stderr


def test_production_redirects_plain_http_to_https_except_the_health_check():
    """A load balancer probing /healthz over HTTP must get the health answer, not a 301."""
    probe = (
        "import django; django.setup()\n"
        "from django.http import HttpResponse\n"
        "from django.middleware.security import SecurityMiddleware\n"
        "from django.test import RequestFactory\n"
        "middleware = SecurityMiddleware(lambda request: HttpResponse('ok'))\n"
        "factory = RequestFactory(HTTP_HOST='support.example.com')\n"
        "print(*(middleware(factory.get(path)).status_code for path in ('/healthz', '/', '/staff/')))\n"
    )
    environ = {k: v for k, v in os.environ.items() if k not in PRODUCTION and k not in NOT_INHERITED}
    environ.update(PRODUCTION, AGENTSITE_READ_DOTENV="0", DJANGO_SETTINGS_MODULE="agentsite.settings")
    run = subprocess.run(
        [sys.executable, "-c", probe], cwd=ROOT, env=environ, capture_output=True, text=True, timeout=120
    )

    assert run.returncode == 0, run.stderr
    assert run.stdout.split() == ["200", "301", "301"]
