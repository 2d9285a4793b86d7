"""django-axes' lockouts in the admin, where staff see and lift them (docs/operations.md)."""

from axes.admin import AccessAttemptAdmin
from axes.models import AccessAttempt
from django.contrib import admin

admin.site.unregister(AccessAttempt)


@admin.register(AccessAttempt)
class LockoutAdmin(AccessAttemptAdmin):  # type: ignore[misc]  # django-axes ships no types
    # Not axes' "clean up expired attempts": it fails whenever it runs in axes 8.3.1 (it reads an attribute only
    # set on the login path, jazzband/django-axes#1424), and attempts do not expire here (no
    # AXES_USE_ATTEMPT_EXPIRATION). Deleting an attempt lifts its lockout.
    actions: list[str] = []
