"""``manage.py large_customers [--rebuild]``: what beat does every MEMORY_LARGE_CUSTOMER_CHECK_MINUTES, now."""

from django.core.management.base import BaseCommand, CommandError, CommandParser

from memory.large_customers import refresh


class Command(BaseCommand):
    help = "Build, recount and drop the vector indexes of customers with many memories (memory.large_customers)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--rebuild", action="store_true", help="drop every such index first and build it again")

    def handle(self, *args: object, rebuild: bool = False, **options: object) -> None:
        done = refresh(rebuild=rebuild)
        if done.skipped:
            raise CommandError("another process is refreshing the large customers' indexes; try again when it ends")
        self.stdout.write(
            f"built {done.built or 'none'}; dropped {done.dropped or 'none'}; counted {done.counted or 'none'}"
        )
