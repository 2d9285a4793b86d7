"""Point the project at the tests' own services before Django reads its settings.

Loaded as a pytest plugin (``-p tests.testenv`` in pytest.ini) so it runs before pytest-django
imports ``agentsite.settings``. The tests never share the demo's servers: they get their own
embedded PostgreSQL and redis-server under ``.data/test`` — or external ones named by
``TEST_DATABASE_URL`` / ``TEST_REDIS_URL`` (``DATABASE_URL`` / ``REDIS_URL`` are ignored here, so a
shell set up for the demo cannot aim the tests at the demo's data).
"""

import os
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

os.environ["EMBEDDED_DATA_DIR"] = os.environ.get("TEST_EMBEDDED_DATA_DIR", str(ROOT / ".data" / "test"))
# What only the tests may set (production refuses each): a movable clock, and fast password hashing (about 0.2 s
# saved for every customer a test creates). Tests that load production settings leave these out.
TEST_ONLY = {"CLOCK_ALLOW_OFFSET": "1", "TEST_FAST_PASSWORD_HASHING": "1"}
os.environ.update(TEST_ONLY)
os.environ["AGENTSITE_READ_DOTENV"] = "0"  # a developer's .env is for the demo, not the tests
os.environ["AGENTSITE_ENV"] = "development"
os.environ.setdefault("OMP_NUM_THREADS", "1")
# The consumers' thread pools run inside the test process: with persistent connections their idle
# connections would outlive each test (and keep the test database from being dropped). Child
# processes inherit this too; tests/faults/test_postgres_restart.py runs daphne with the default.
os.environ["DATABASE_CONN_MAX_AGE"] = "0"
for name in ("DATABASE_URL", "REDIS_URL"):
    os.environ.pop(name, None)
    if os.environ.get(f"TEST_{name}"):
        os.environ[name] = os.environ[f"TEST_{name}"]
