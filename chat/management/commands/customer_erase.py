"""``manage.py customer_erase USER [--yes] [--delete-account]``: remove what the agent holds about a customer."""

from __future__ import annotations

from argparse import ArgumentParser
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from chat import privacy


class Command(BaseCommand):
    help = (
        "Erase one customer's long-term memories (with events and conflicts), transcripts, summaries, state "
        "transitions, ratings, handoff packets, pending actions, model-call records, Redis keys and queued "
        "consolidation. Asks for confirmation unless --yes."
    )

    def add_arguments(self, parser: ArgumentParser) -> None:
        parser.add_argument("username")
        parser.add_argument("--yes", action="store_true", help="do not ask for confirmation")
        parser.add_argument(
            "--delete-account", action="store_true", help="also delete the account with its orders and profile"
        )

    def handle(self, *args: Any, username: str, yes: bool, delete_account: bool, **options: Any) -> None:
        try:
            user = privacy.customer(username)
        except privacy.UnknownCustomer as exc:
            raise CommandError(str(exc)) from exc
        if not yes:
            what = "everything the agent holds about" + (" (and the account of)" if delete_account else "")
            answer = input(f"Erase {what} {username!r}? This cannot be undone. Type the user name to confirm: ")
            if answer.strip() != username:
                raise CommandError("not confirmed; nothing was erased")
        erased = privacy.erase(user, delete_account=delete_account)
        for kind, count in sorted(erased.counts.items()):
            self.stdout.write(f"{kind}: {count}")
        self.stdout.write(self.style.SUCCESS(f"erased {username}"))
