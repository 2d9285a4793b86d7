"""The README's "Where things live" table names every module of the three apps, and only real paths."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
APPS = ("agentsite", "memory", "chat")


def _table() -> str:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("Where things live", 1)[1]
    rows = [line for line in section.splitlines()[1:] if line.startswith("|")]
    return "\n".join(rows)


def _named_paths() -> set[str]:
    """Every backquoted path in the table; a bare file name counts in the row's folder that holds it."""
    named: set[str] = set()
    for row in _table().splitlines():
        paths = [path for path in re.findall(r"`([^`\s]+)`", row) if not path.startswith("/")]
        folders = [path if path.endswith("/") else path.rsplit("/", 1)[0] + "/" for path in paths if "/" in path]
        for path in paths:
            if "/" in path:
                named.add(path)
            elif path.endswith(".py") and folders:
                holders = [folder for folder in folders if (ROOT / folder / path).exists()]
                named.update(folder + path for folder in holders or folders[:1])
    return named


def _modules() -> list[str]:
    found = []
    for app in APPS:
        for path in sorted((ROOT / app).rglob("*.py")):
            relative = path.relative_to(ROOT).as_posix()
            if "/migrations/" in relative or path.name == "__init__.py":
                continue
            found.append(relative)
    return found


def test_every_module_of_the_apps_is_in_the_table():
    named = _named_paths()

    def covered(module: str) -> bool:
        parts = module.split("/")
        folders = {"/".join(parts[:i]) + "/" for i in range(2, len(parts))}
        return module in named or bool(folders & named)

    missing = [module for module in _modules() if not covered(module)]
    assert missing == [], f"modules the README's table does not name: {missing}"


def test_every_path_in_the_table_exists():
    absent = sorted(path for path in _named_paths() if not (ROOT / path).exists())
    assert absent == [], f"paths in the README's table that are not in the tree: {absent}"
