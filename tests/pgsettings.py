"""Reading PostgreSQL settings on the test's own connection (what a statement left behind)."""


def current_setting(name: str) -> str | None:
    """The value of ``name`` on Django's connection of this thread; ``None`` for an unknown custom setting."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("SELECT current_setting(%s, true)", [name])
        return cursor.fetchone()[0]
