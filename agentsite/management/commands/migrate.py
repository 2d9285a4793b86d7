"""`migrate`, refusing with one clear sentence when the database lacks pgvector or pg_trgm."""

from django.core.management.base import CommandError
from django.core.management.commands.migrate import Command as MigrateCommand

from agentsite.extensions import missing_extensions, missing_extensions_message


class Command(MigrateCommand):
    def handle(self, *args, **options):
        alias = options["database"]
        missing = missing_extensions(alias)
        if missing:
            raise CommandError(missing_extensions_message(missing, alias))
        return super().handle(*args, **options)
