"""`migrate`, refusing with one clear sentence when the database lacks pgvector or pg_trgm, and computing one
vector distance afterwards so that a pgvector build that crashes on this CPU is reported at start-up rather
than in the middle of a chat.
"""

from typing import Any

from django.core.management.base import CommandError
from django.core.management.commands.migrate import Command as MigrateCommand

from agentsite.extensions import missing_extensions, missing_extensions_message, vector_math_error


class Command(MigrateCommand):
    def handle(self, *args: Any, **options: Any) -> str | None:
        alias = options["database"]
        missing = missing_extensions(alias)
        if missing:
            raise CommandError(missing_extensions_message(missing, alias))
        result = super().handle(*args, **options)
        problem = vector_math_error(alias)
        if problem:
            raise CommandError(problem)
        return result
