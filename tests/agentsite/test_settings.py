"""Production settings: hardening on, and a missing required setting names itself."""

import os
import subprocess
import sys

import pytest

from tests.procs import ROOT
from tests.testenv import TEST_ONLY

PRODUCTION = {
    "AGENTSITE_ENV": "production",
    "SECRET_KEY": "a-long-random-production-secret-key-with-enough-entropy-0123456789",
    "ALLOWED_HOSTS": "support.example.com",
    "DATABASE_URL": "postgresql://app:secret@db.internal:5432/agent",
    "REDIS_URL": "redis://cache.internal:6379",
    "OPENAI_BASE_URL": "https://llm.internal/v1",
}


def _load_settings(env: dict[str, str], expr: str = "settings.DEBUG") -> subprocess.CompletedProcess:
    clean = {k: v for k, v in os.environ.items() if k not in PRODUCTION and k not in TEST_ONLY}
    code = f"import django; django.setup(); from django.conf import settings; print({expr})"
    return subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        env={**clean, "DJANGO_SETTINGS_MODULE": "agentsite.settings", **env},
        capture_output=True,
        text=True,
        timeout=60,
    )


@pytest.mark.parametrize("missing", ["SECRET_KEY", "ALLOWED_HOSTS", "DATABASE_URL", "REDIS_URL"])
def test_missing_required_setting_in_production_is_named(missing):
    env = {k: v for k, v in PRODUCTION.items() if k != missing}

    run = _load_settings(env)

    assert run.returncode != 0
    assert f"ImproperlyConfigured: {missing} must be set when AGENTSITE_ENV=production" in run.stderr


def test_production_switches_hardening_on():
    run = _load_settings(
        PRODUCTION,
        "(settings.DEBUG, settings.SESSION_COOKIE_SECURE, settings.CSRF_COOKIE_SECURE, settings.SECURE_SSL_REDIRECT)",
    )

    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == "(False, True, True, True)"


def test_production_refuses_a_movable_clock():
    run = _load_settings({**PRODUCTION, "CLOCK_ALLOW_OFFSET": "1"})

    assert "CLOCK_ALLOW_OFFSET must not be set" in run.stderr


def test_production_refuses_fast_password_hashing():
    run = _load_settings({**PRODUCTION, "TEST_FAST_PASSWORD_HASHING": "1"})

    assert "TEST_FAST_PASSWORD_HASHING must not be set" in run.stderr


def test_passwords_are_hashed_slowly_unless_the_tests_say_otherwise():
    expr = "settings.PASSWORD_HASHERS[0].rsplit('.', 1)[1]"

    assert _load_settings(PRODUCTION, expr).stdout.strip() == "PBKDF2PasswordHasher"
    assert _load_settings({}, expr).stdout.strip() == "PBKDF2PasswordHasher"
