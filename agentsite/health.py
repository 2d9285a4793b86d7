"""`GET /healthz`: is each service the app needs reachable right now? See docs/operations.md."""

from __future__ import annotations

import logging
from collections.abc import Callable

from django.conf import settings
from django.db import DatabaseError, connection
from django.http import HttpRequest, JsonResponse
from django.views.decorators.http import require_GET

logger = logging.getLogger(__name__)


def check_database() -> str:
    """Return the pgvector version, or raise if the database or the extension is missing."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT extversion FROM pg_extension WHERE extname = 'vector'")
        row = cursor.fetchone()
    if row is None:
        raise RuntimeError("the vector extension is not installed (run migrate)")
    return f"pgvector {row[0]}"


def check_redis() -> str:
    """Ping the Redis database of the cache and the short-term memory."""
    from django_redis import get_redis_connection

    get_redis_connection("default").ping()
    return "ok"


def check_broker() -> str:
    """Connect to the Celery broker."""
    import redis

    client = redis.Redis.from_url(settings.CELERY_BROKER_URL, socket_connect_timeout=2, socket_timeout=2)
    try:
        client.ping()
    finally:
        client.close()
    return "ok"


CHECKS: dict[str, Callable[[], str]] = {
    "database": check_database,
    "redis": check_redis,
    "broker": check_broker,
}


def run_checks() -> tuple[bool, dict[str, dict[str, str]]]:
    """Run every check; return whether all passed and each one's state. A failure is logged with its cause,
    which the response shows to staff only."""
    results: dict[str, dict[str, str]] = {}
    for name, check in CHECKS.items():
        try:
            results[name] = {"status": "up", "detail": check()}
        except Exception as exc:  # a health check reports any failure instead of raising
            results[name] = {"status": "down", "detail": f"{type(exc).__name__}: {exc}"[:300]}
            logger.warning("health check %s failed: %s", name, results[name]["detail"])
    return all(r["status"] == "up" for r in results.values()), results


@require_GET
def healthz(request: HttpRequest) -> JsonResponse:
    """Answer 200 when every service is up, else 503 naming the failing ones. What each check found (versions,
    the error, which may name a host) is for staff only: anyone else, a balancer included, gets the states."""
    healthy, services = run_checks()
    if not _is_staff(request):
        services = {name: {"status": r["status"]} for name, r in services.items()}
    body = {
        "status": "ok" if healthy else "unavailable",
        "failing": [name for name, r in services.items() if r["status"] != "up"],
        "services": services,
    }
    return JsonResponse(body, status=200 if healthy else 503)


def _is_staff(request: HttpRequest) -> bool:
    """Whether a staff member asks; with the database down, who asks cannot be known, and nobody is."""
    try:
        return bool(request.user.is_authenticated and request.user.is_staff)
    except DatabaseError:
        return False
