"""Check that the database can hold long-term memory before anything is migrated."""

from __future__ import annotations

from django.db import connections

REQUIRED_EXTENSIONS = {
    "vector": "pgvector (https://github.com/pgvector/pgvector; the pgvector/pgvector Docker image has it)",
    "pg_trgm": "pg_trgm (PostgreSQL's contrib package)",
}


def missing_extensions(alias: str = "default") -> list[str]:
    """Return the required extensions this PostgreSQL server can neither find nor has installed."""
    with connections[alias].cursor() as cursor:
        cursor.execute("SELECT name FROM pg_available_extensions WHERE name = ANY(%s)", [list(REQUIRED_EXTENSIONS)])
        available = {row[0] for row in cursor.fetchall()}
    return [name for name in REQUIRED_EXTENSIONS if name not in available]


def missing_extensions_message(missing: list[str], alias: str = "default") -> str:
    """One sentence saying what is missing on which server and how to fix it."""
    settings_dict = connections[alias].settings_dict
    where = (
        f"{settings_dict.get('HOST') or 'localhost'}:{settings_dict.get('PORT') or 5432}/{settings_dict.get('NAME')}"
    )
    needs = " and ".join(REQUIRED_EXTENSIONS[name] for name in missing)
    return (
        f"The PostgreSQL server at {where} lacks the extension(s) {', '.join(missing)}: install {needs} "
        "on that server, or unset DATABASE_URL to use the embedded PostgreSQL with pgvector."
    )
