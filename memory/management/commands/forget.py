"""`manage.py forget [--dry-run]`: apply the forgetting policy now (the daily beat task does it too)."""

from django.core.management.base import BaseCommand, CommandParser

from memory import forgetting


class Command(BaseCommand):
    help = "Decay, archive and delete long-term memories and expire old transcripts, per the policy settings."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--dry-run", action="store_true", help="count what would change; change nothing")

    def handle(self, *args: object, dry_run: bool = False, **options: object) -> None:
        counts = forgetting.run(dry_run=dry_run)
        verb = "would be" if dry_run else "were"
        self.stdout.write(
            f"{counts.decayed} memories {verb} decayed, {counts.archived} archived, {counts.deleted} deleted; "
            f"{counts.transcripts_deleted} old conversations {verb} deleted."
        )
