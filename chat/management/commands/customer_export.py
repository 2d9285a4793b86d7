"""``manage.py customer_export USER [--output FILE]``: everything held about a customer, as JSON."""

from __future__ import annotations

import json
from argparse import ArgumentParser
from typing import Any

from django.core.management.base import BaseCommand, CommandError
from django.core.serializers.json import DjangoJSONEncoder

from chat import privacy


class Command(BaseCommand):
    help = "Write everything the system holds about one customer as JSON (stdout, or --output FILE)."

    def add_arguments(self, parser: ArgumentParser) -> None:
        parser.add_argument("username")
        parser.add_argument("--output", "-o", help="write to this file instead of stdout")

    def handle(self, *args: Any, username: str, output: str | None, **options: Any) -> None:
        try:
            user = privacy.customer(username)
        except privacy.UnknownCustomer as exc:
            raise CommandError(str(exc)) from exc
        text = json.dumps(privacy.export(user), cls=DjangoJSONEncoder, ensure_ascii=False, indent=2)
        if output:
            with open(output, "w", encoding="utf-8") as handle:
                handle.write(text + "\n")
            self.stderr.write(f"wrote {output}")
        else:
            self.stdout.write(text)
