"""`migrate` against a PostgreSQL without pgvector stops with one clear sentence."""

import os
import subprocess
import sys

from tests.procs import ROOT

# This machine's own PostgreSQL 15 (started before every session and CI run) has no pgvector.
PLAIN_POSTGRES_URL = os.environ.get("TEST_PLAIN_POSTGRES_URL", "postgresql://postgres@127.0.0.1:5432/postgres")


def test_migrate_without_pgvector_names_what_is_missing_and_the_fix():
    env = dict(os.environ, DATABASE_URL=PLAIN_POSTGRES_URL, DJANGO_SETTINGS_MODULE="agentsite.settings")

    run = subprocess.run(
        [sys.executable, "manage.py", "migrate", "--noinput"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )

    assert run.returncode == 1, run.stdout + run.stderr
    assert "Traceback" not in run.stderr
    message = run.stderr.strip()
    assert message.startswith(
        "CommandError: The PostgreSQL server at 127.0.0.1:5432/postgres lacks the extension(s) vector"
    )
    assert "unset DATABASE_URL" in message
    assert len(message.splitlines()) == 1


def test_vector_math_on_the_tests_database_does_not_crash_the_server(db):
    """The embedded pgvector computes an embedding-sized distance (0.1.6 crashed with SIGILL on AVX2)."""
    from agentsite.extensions import vector_math_error

    assert vector_math_error() is None
