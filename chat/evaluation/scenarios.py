"""The scenario file format: customers, their shop data, sessions of turns, and checks. ``load`` reads one
JSON file or every ``*.json`` in a folder and validates it completely before anything runs; a bad file
raises ``ScenarioError`` naming the file, the place inside it (``customers[2].sessions[0].turns[3]``)
and what is wrong. Every field: docs/eval.md, "Scenario file format".
"""

from __future__ import annotations

import builtins
import json
import re
from collections.abc import Set
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

FORMAT = 1
LANGUAGES = {"zh", "en"}
ORDER_STATUSES = {"pending", "paid", "processing", "shipped", "in_transit", "delivered", "cancelled", "refunded"}
ORDER_NUMBER = re.compile(r"^ORD-\d{4}-\d{4}$")
# Keys a customer can plant and later be asked about (the registry of memory/keys.py, and what the
# agent can ask a customer for).
KEYS = {
    "birthday",
    "notification_preference",
    "contact_channel",
    "shipping_address",
    "order_number",
    "preferred_carrier",
    "phone_number",
    "email",
    "name",
}
TURN_CHECKS = {"reply_contains", "reply_contains_any", "reply_lacks", "max_vector_queries"}
SESSION_CHECKS = {"memory", "no_memory", "memory_count", "conflict", "max_vector_queries"}


class ScenarioError(ValueError):
    """A scenario file that cannot run; the message names the file, the place and the problem."""


@dataclass(frozen=True)
class Check:
    kind: str
    arg: Any


@dataclass(frozen=True)
class Turn:
    say: str
    checks: tuple[Check, ...] = ()
    plants: dict[str, str] = field(default_factory=dict)
    question: str = ""  # the fact (key) or topic this turn asks about; counted in the accuracy figures
    needs_memory: bool = False  # only an earlier session can answer it


@dataclass(frozen=True)
class Session:
    days_after: float
    turns: tuple[Turn, ...]
    after: tuple[Check, ...] = ()


@dataclass(frozen=True)
class Order:
    number: str
    status: str
    days_ago: float
    total: str
    items: tuple[tuple[str, int, str], ...]
    carrier: str = ""
    tracking: str = ""
    events: tuple[tuple[float, str, str], ...] = ()


@dataclass(frozen=True)
class Customer:
    id: str
    language: str
    name: str
    orders: tuple[Order, ...]
    sessions: tuple[Session, ...]
    tags: tuple[str, ...] = ()


@dataclass(frozen=True)
class ScenarioFile:
    path: Path
    name: str
    customers: tuple[Customer, ...]

    @property
    def turns(self) -> int:
        return sum(len(s.turns) for c in self.customers for s in c.sessions)


class _Reader:
    """Walks the JSON with the path of every value, so errors can say where they are."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def fail(self, where: str, problem: str) -> ScenarioError:
        return ScenarioError(f"{self.path}: {where}: {problem}")

    # The methods below are named for the JSON types they read, so in here ``str``, ``int`` and ``list``
    # name them: annotations spell the builtins out.
    def obj(
        self, value: Any, where: builtins.str, required: Set[builtins.str], optional: Set[builtins.str] = frozenset()
    ) -> dict[builtins.str, Any]:
        if not isinstance(value, dict):
            raise self.fail(where, f"expected an object, got {type(value).__name__}")
        missing = sorted(required - value.keys())
        if missing:
            raise self.fail(where, f"missing {', '.join(repr(m) for m in missing)}")
        unknown = sorted(value.keys() - required - optional)
        if unknown:
            allowed = ", ".join(sorted(required | optional))
            raise self.fail(where, f"unknown field {', '.join(repr(u) for u in unknown)} (allowed: {allowed})")
        return value

    def list(self, value: Any, where: builtins.str, *, min_len: builtins.int = 0) -> builtins.list[Any]:
        if not isinstance(value, list):
            raise self.fail(where, f"expected a list, got {type(value).__name__}")
        if len(value) < min_len:
            raise self.fail(where, f"needs at least {min_len} item{'s' if min_len > 1 else ''}")
        return value

    def str(self, value: Any, where: builtins.str, *, empty: bool = False) -> builtins.str:
        if not isinstance(value, str) or (not empty and not value.strip()):
            raise self.fail(where, "expected a non-empty string" if not empty else "expected a string")
        return builtins.str(value)

    def number(self, value: Any, where: builtins.str, *, minimum: float = 0) -> float:
        if isinstance(value, bool) or not isinstance(value, int | float) or value < minimum:
            raise self.fail(where, f"expected a number >= {minimum}")
        return float(value)

    def int(self, value: Any, where: builtins.str, *, minimum: builtins.int = 0) -> builtins.int:
        if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
            raise self.fail(where, f"expected a whole number >= {minimum}")
        return builtins.int(value)

    def key(self, value: Any, where: builtins.str) -> builtins.str:
        if value not in KEYS:
            raise self.fail(where, f"unknown key {value!r} (known: {', '.join(sorted(KEYS))})")
        return builtins.str(value)


def _check(r: _Reader, raw: Any, where: str, allowed: set[str]) -> Check:
    if not isinstance(raw, dict) or len(raw) != 1:
        raise r.fail(where, f"a check is an object with exactly one of: {', '.join(sorted(allowed))}")
    ((kind, arg),) = raw.items()
    if kind not in allowed:
        raise r.fail(where, f"unknown check {kind!r} (allowed here: {', '.join(sorted(allowed))})")
    at = f"{where}.{kind}"
    if kind in {"reply_contains", "reply_lacks"}:
        items = [arg] if isinstance(arg, str) else r.list(arg, at, min_len=1)
        return Check(kind, tuple(r.str(x, f"{at}[{i}]") for i, x in enumerate(items)))
    if kind == "reply_contains_any":
        return Check(kind, tuple(r.str(x, f"{at}[{i}]") for i, x in enumerate(r.list(arg, at, min_len=1))))
    if kind == "max_vector_queries":
        return Check(kind, r.int(arg, at))
    if kind in {"memory", "no_memory"}:
        spec = r.obj(arg, at, {"key", "value"})
        return Check(kind, (r.key(spec["key"], f"{at}.key"), r.str(spec["value"], f"{at}.value")))
    if kind == "memory_count":
        spec = r.obj(arg, at, {"key", "max"}, {"value"})
        value = r.str(spec["value"], f"{at}.value") if "value" in spec else ""
        return Check(kind, (r.key(spec["key"], f"{at}.key"), value, r.int(spec["max"], f"{at}.max", minimum=0)))
    # conflict
    return Check(kind, r.key(arg, at))


def _turn(r: _Reader, raw: Any, where: str) -> Turn:
    if isinstance(raw, str):
        return Turn(say=r.str(raw, where))
    spec = r.obj(raw, where, {"say"}, {"checks", "plants", "question", "needs_memory"})
    plants = r.obj(spec.get("plants", {}), f"{where}.plants", set(), KEYS)
    question = spec.get("question", "")
    if question and not re.fullmatch(r"[a-z_]+", question):
        raise r.fail(f"{where}.question", "expected a lower-case word (a key such as 'birthday', or a topic)")
    needs_memory = spec.get("needs_memory", False)
    if not isinstance(needs_memory, bool):
        raise r.fail(f"{where}.needs_memory", "expected true or false")
    checks = r.list(spec.get("checks", []), f"{where}.checks")
    if question and not checks:
        raise r.fail(where, "a question needs at least one check, or its accuracy cannot be scored")
    return Turn(
        say=r.str(spec["say"], f"{where}.say"),
        checks=tuple(_check(r, c, f"{where}.checks[{i}]", TURN_CHECKS) for i, c in enumerate(checks)),
        plants={k: r.str(v, f"{where}.plants.{k}") for k, v in plants.items()},
        question=question,
        needs_memory=needs_memory,
    )


def _order(r: _Reader, raw: Any, where: str, seen: set[str]) -> Order:
    spec = r.obj(raw, where, {"number", "status"}, {"days_ago", "total", "items", "carrier", "tracking", "events"})
    number = r.str(spec["number"], f"{where}.number")
    if not ORDER_NUMBER.match(number):
        raise r.fail(f"{where}.number", f"{number!r} is not an order number like ORD-2025-0816")
    if number in seen:
        raise r.fail(f"{where}.number", f"{number} is used twice in this file (order numbers are unique)")
    seen.add(number)
    if spec["status"] not in ORDER_STATUSES:
        raise r.fail(
            f"{where}.status", f"unknown status {spec['status']!r} (known: {', '.join(sorted(ORDER_STATUSES))})"
        )
    items = []
    for i, item in enumerate(r.list(spec.get("items", [["item", 1, "10.00"]]), f"{where}.items", min_len=1)):
        at = f"{where}.items[{i}]"
        if not (isinstance(item, list) and len(item) == 3):
            raise r.fail(at, 'expected ["name", quantity, "unit price"]')
        items.append((r.str(item[0], at), r.int(item[1], at, minimum=1), r.str(item[2], at)))
    events = []
    for i, event in enumerate(r.list(spec.get("events", []), f"{where}.events")):
        at = f"{where}.events[{i}]"
        if not (isinstance(event, list) and len(event) == 3):
            raise r.fail(at, 'expected [days_ago, "location", "description"]')
        events.append((r.number(event[0], at), r.str(event[1], at), r.str(event[2], at)))
    if events and not spec.get("carrier"):
        raise r.fail(where, "tracking events need a carrier")
    return Order(
        number=number,
        status=spec["status"],
        days_ago=r.number(spec.get("days_ago", 1), f"{where}.days_ago"),
        total=r.str(spec.get("total", "10.00"), f"{where}.total"),
        items=tuple(items),
        carrier=r.str(spec.get("carrier", ""), f"{where}.carrier", empty=True),
        tracking=r.str(spec.get("tracking", ""), f"{where}.tracking", empty=True),
        events=tuple(events),
    )


def parse(data: Any, path: Path) -> ScenarioFile:
    """Validate the decoded JSON of one scenario file."""
    r = _Reader(path)
    top = r.obj(data, "(top)", {"format", "customers"}, {"name", "description"})
    if top["format"] != FORMAT:
        raise r.fail("format", f"this harness reads format {FORMAT}, the file says {top['format']!r}")
    customers: list[Customer] = []
    ids: set[str] = set()
    numbers: set[str] = set()
    for c, raw in enumerate(r.list(top["customers"], "customers", min_len=1)):
        where = f"customers[{c}]"
        spec = r.obj(raw, where, {"id", "language", "sessions"}, {"name", "orders", "tags"})
        cid = r.str(spec["id"], f"{where}.id")
        if not re.fullmatch(r"[A-Za-z0-9_-]{1,40}", cid) or cid in ids:
            raise r.fail(f"{where}.id", f"{cid!r} must be unique and use only letters, digits, '-' and '_'")
        ids.add(cid)
        if spec["language"] not in LANGUAGES:
            raise r.fail(f"{where}.language", f"expected 'zh' or 'en', got {spec['language']!r}")
        orders = tuple(
            _order(r, o, f"{where}.orders[{i}]", numbers)
            for i, o in enumerate(r.list(spec.get("orders", []), f"{where}.orders"))
        )
        sessions = []
        for s, raw_session in enumerate(r.list(spec["sessions"], f"{where}.sessions", min_len=1)):
            at = f"{where}.sessions[{s}]"
            session = r.obj(raw_session, at, {"turns"}, {"days_after", "after"})
            turns = r.list(session["turns"], f"{at}.turns", min_len=1)
            after = r.list(session.get("after", []), f"{at}.after")
            sessions.append(
                Session(
                    days_after=r.number(session.get("days_after", 0), f"{at}.days_after"),
                    turns=tuple(_turn(r, t, f"{at}.turns[{i}]") for i, t in enumerate(turns)),
                    after=tuple(_check(r, a, f"{at}.after[{i}]", SESSION_CHECKS) for i, a in enumerate(after)),
                )
            )
        tags = tuple(
            r.str(t, f"{where}.tags[{i}]") for i, t in enumerate(r.list(spec.get("tags", []), f"{where}.tags"))
        )
        name = r.str(spec.get("name", cid), f"{where}.name")
        customers.append(Customer(cid, spec["language"], name, orders, tuple(sessions), tags))
    return ScenarioFile(path=path, name=str(top.get("name") or path.stem), customers=tuple(customers))


def load(path: Path | str) -> list[ScenarioFile]:
    """Read and validate a scenario file, or every ``*.json`` file in a folder (sorted by name)."""
    path = Path(path)
    if path.is_dir():
        files = sorted(path.glob("*.json"))
        if not files:
            raise ScenarioError(f"{path}: no *.json scenario files in this folder")
    elif path.exists():
        files = [path]
    else:
        raise ScenarioError(f"{path}: no such file or folder")
    loaded = []
    for file in files:
        try:
            data = json.loads(file.read_text(encoding="utf-8"))
        except json.JSONDecodeError as exc:
            raise ScenarioError(f"{file}: not valid JSON: line {exc.lineno} column {exc.colno}: {exc.msg}") from exc
        loaded.append(parse(data, file))
    numbers: dict[str, Path] = {}
    ids: dict[str, Path] = {}
    for scenario in loaded:  # order numbers are unique in the shop, so across files too
        for customer in scenario.customers:
            for order in customer.orders:
                if order.number in numbers and numbers[order.number] != scenario.path:
                    raise ScenarioError(f"{scenario.path}: order {order.number} is also in {numbers[order.number]}")
                numbers[order.number] = scenario.path
            # the files' customers play at the same time (runner.timeline), each under its id
            if customer.id in ids:
                raise ScenarioError(f"{scenario.path}: customer {customer.id} is also in {ids[customer.id]}")
            ids[customer.id] = scenario.path
    return loaded
