"""Load the demo data (when the shop provides it) and make sure a staff account exists."""

from typing import Any

from django.core.management import call_command, get_commands
from django.core.management.base import BaseCommand


class Command(BaseCommand):
    help = "Idempotent demo set-up after migrate: demo customers and shop data, staff account."

    def handle(self, *args: Any, **options: Any) -> None:
        if "seed_demo" in get_commands():
            call_command("seed_demo", history=True, stdout=self.stdout)
        call_command("ensure_staff", stdout=self.stdout)
