"""Make sure a staff account exists; print a generated password once."""

from __future__ import annotations

import secrets
from typing import Any

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand


class Command(BaseCommand):
    help = "Create the staff superuser named by DEMO_ADMIN_USERNAME unless it exists."

    def handle(self, *args: Any, **options: Any) -> None:
        from django.conf import settings

        username = settings.DEMO_ADMIN_USERNAME
        user_model = get_user_model()
        if user_model.objects.filter(username=username).exists():
            self.stdout.write(f"staff account '{username}' exists (reset with: manage.py changepassword {username})")
            return
        password = settings.DEMO_ADMIN_PASSWORD or secrets.token_urlsafe(12)
        user_model.objects.create_superuser(username=username, email="", password=password)
        if settings.DEMO_ADMIN_PASSWORD:
            self.stdout.write(f"created staff account '{username}' with the password from DEMO_ADMIN_PASSWORD")
        else:
            self.stdout.write(f"created staff account '{username}' with password: {password}  (shown once)")
