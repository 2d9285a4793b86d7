"""Who a login attempt was for, as django-axes records it (``AXES_USERNAME_CALLABLE``)."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest

# axes' AccessAttempt.username holds 255 characters; Django's login form checks no length on the server, so a
# longer username reached the insert and failed it (a 500). No account's name is that long (150 at most).
_RECORDED = 255


def attempted_username(request: HttpRequest, credentials: dict[str, Any] | None = None) -> str | None:
    """The submitted username (from the credentials, else the form), cut to what axes' table holds."""
    value = credentials.get("username") if credentials else getattr(request, "data", request.POST).get("username")
    return value[:_RECORDED] if isinstance(value, str) else value
