"""`manage.py recap_conversations [--all] [--customer NAME] [--dry-run]`: write conversations' recaps again. By
default only those whose recap is still the transcript itself; ``--all`` rewrites every recapped conversation.
Each new recap replaces the old one, which is kept invalidated (docs/longterm.md, "Conversation recaps").
"""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError, CommandParser

from agentsite import llm
from memory import recaps
from memory.models import Conversation, LongTermMemory, MemoryType


class Command(BaseCommand):
    help = "Write conversations' recaps again: those still holding a transcript, or all with --all."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--all", action="store_true", help="every recapped conversation, not only old ones")
        parser.add_argument("--customer", help="only this customer's conversations (their user name)")
        parser.add_argument("--dry-run", action="store_true", help="count what would be rewritten; change nothing")

    def handle(
        self, *args: object, all: bool = False, customer: str | None = None, dry_run: bool = False, **options: object
    ) -> None:
        recapped = LongTermMemory.objects.valid().filter(type=MemoryType.SUMMARY, source_conversation__isnull=False)
        if customer is not None:
            user = get_user_model().objects.filter(username=customer).first()
            if user is None:
                raise CommandError(f"no customer called {customer!r}")
            recapped = recapped.filter(customer=user)
        chosen = {row.source_conversation_id for row in recapped if all or recaps.is_legacy(row.content)}
        if dry_run:
            self.stdout.write(f"{len(chosen)} conversation(s) would get a new recap.")
            return
        outcomes: dict[str, int] = {}
        for conversation in Conversation.objects.filter(pk__in=chosen).order_by("created_at"):
            try:
                outcome = recaps.rewrite(conversation)
            except (recaps.RecapDeferred, llm.LLMError) as exc:
                outcome = "deferred"
                self.stderr.write(f"conversation {conversation.pk}: the model could not write it now ({exc})")
            outcomes[outcome] = outcomes.get(outcome, 0) + 1
        said = ", ".join(f"{count} {outcome}" for outcome, count in sorted(outcomes.items())) or "nothing to do"
        self.stdout.write(f"{len(chosen)} conversation(s): {said}.")
