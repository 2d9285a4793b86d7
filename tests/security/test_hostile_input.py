"""Hostile input on every URL and every admin action: unknown ids, nested and broken JSON, huge fields, wrong methods.

The walker takes its targets from the URL conf (``get_resolver()``) and the admin registry
(``admin.site._registry``), never from a list kept here: a URL or an admin action added later is
walked without editing this file, or fails the test until the walker can reach it. Every answer
must be a success, a redirect or a client error; never a 5xx.
"""

from __future__ import annotations

import contextlib
import json
import logging
import re
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from urllib.parse import unquote, urlencode, urlsplit

import pytest
from django.contrib import admin
from django.contrib.auth import get_user_model
from django.http import HttpRequest, HttpResponse
from django.test import Client, RequestFactory
from django.urls import Resolver404, URLResolver, get_resolver, resolve, reverse
from django.urls.resolvers import LocalePrefixPattern, RegexPattern, RoutePattern

from memory.models import LongTermMemory
from tests.security.footprint import Footprint, leave_footprint

ALLOWED = {400, 401, 403, 404, 405, 413}  # 401: /metrics asks for a bearer token
ALLOWED_ON_LOGIN = ALLOWED | {429}  # django-axes may answer bad logins with a lockout

MB = 1024 * 1024
UNKNOWN_INT = "999999999"
UNKNOWN_UUID = str(uuid.UUID(int=0xDEAD))
HOSTILE_VALUES = [
    str(2**70),  # past bigint
    "-1",
    "0",
    "abc",
    "a" * 3000,  # a very long slug
    str(uuid.UUID(int=0xBEEF)),
    "x%27%22%3Cb%3E",  # quotes and markup, percent-encoded in the path
]
# Verbs this project's views take in their URLs (the staff console's actions); tried on every
# parameter that is one path segment, with the other parameters on an existing object.
VERBS = ["take", "reply", "close", "hand-back", "delete", "change"]

_ROUTE_PARAMETER = re.compile(r"<(?:[^>:]+:)?(?P<name>[^>]+)>")
_WORDS = re.compile(r"[\w-]+(?:\|[\w-]+)*")


@dataclass(frozen=True)
class Body:
    name: str
    content_type: str
    data: bytes


def _form(name: str, fields: dict) -> Body:
    return Body(name, "application/x-www-form-urlencoded", urlencode(fields, doseq=True).encode())


JUNK_FIELDS = {"zzz": "1", "action": "zzz", "index": "zzz", "_selected_action": "abc", "score": "-7", "text": "hi"}
BODIES = [
    Body("broken json", "application/json", b'{"score": 5, "conversation_id": '),
    Body("nested json", "application/json", b"[" * 100_000 + b"]" * 100_000),
    _form("huge fields", {"text": "x" * MB, "content": "y" * MB}),
    _form("unknown fields", JUNK_FIELDS),
    Body("multipart without boundary", "multipart/form-data", b"--x\r\nContent-Disposition: form-data\r\n\r\n"),
    Body("xml", "application/xml", b"<?xml version='1.0'?><!DOCTYPE a [<!ENTITY b 'c'>]><a>&b;</a>"),
]
BODY = {body.name: body for body in BODIES}
QUERIES = ["p=999999", "o=zzz.-9", "q=" + "q" * 10_000, "e=1", "all=&_popup=zzz&_to_field=zzz"]
JUNK_QUERY = "&".join(QUERIES)


@dataclass(frozen=True)
class Route:
    """One view of the URL conf, spelled as ``ResolverMatch.route`` spells it."""

    route: str
    name: str | None
    parts: tuple  # the patterns from the root to the view
    callback: Callable

    @property
    def model_admin(self) -> admin.ModelAdmin | None:
        return getattr(self.callback, "model_admin", None)

    def __str__(self) -> str:
        return f"{self.route} ({self.name})"


def url_conf_routes() -> list[Route]:
    """Every URL pattern of the project: nested includes, the admin's own URLs, language prefixes."""
    found: list[Route] = []

    def walk(entries, parts: tuple, prefix: str) -> None:
        for entry in entries:
            own = "" if isinstance(entry.pattern, LocalePrefixPattern) else str(entry.pattern)
            here = URLResolver._join_route(prefix, own)  # as the resolver joins ResolverMatch.route
            if isinstance(entry, URLResolver):
                walk(entry.url_patterns, (*parts, entry.pattern), here)
            else:
                found.append(Route(here, entry.name, (*parts, entry.pattern), entry.callback))

    walk(get_resolver().url_patterns, (), "")
    return found


@dataclass(frozen=True)
class Parameter:
    name: str
    accepts: Callable[[str], bool]
    words: tuple[str, ...] = ()  # a regex group that lists its values (the admin's app labels)


def _regex_groups(regex: str) -> list[tuple[str, str, int, int]]:
    """The named groups of ``regex``: name, inner regex, and where the whole group starts and ends."""
    groups = []
    for opening in re.finditer(r"\(\?P<(\w+)>", regex):
        depth, i = 1, opening.end()
        while depth:
            depth += {"(": 1, ")": -1}.get(regex[i], 0)
            i += 2 if regex[i] == "\\" else 1
        groups.append((opening.group(1), regex[opening.end() : i - 1], opening.start(), i))
    return groups


def _converter_accepts(converter) -> Callable[[str], bool]:
    def accepts(value: str) -> bool:
        if not re.fullmatch(converter.regex, unquote(value)):
            return False
        try:
            converter.to_python(unquote(value))
        except ValueError:
            return False
        return True

    return accepts


def parameters(route: Route) -> list[Parameter]:
    found = []
    for part in route.parts:
        if isinstance(part, RoutePattern):
            found += [Parameter(name, _converter_accepts(conv)) for name, conv in part.converters.items()]
        elif isinstance(part, RegexPattern):
            for name, inner, _start, _end in _regex_groups(str(part)):
                words = tuple(inner.split("|")) if _WORDS.fullmatch(inner) else ()
                found.append(Parameter(name, lambda v, inner=inner: bool(re.fullmatch(inner, unquote(v))), words))
    return found


def build_path(route: Route, values: dict[str, str]) -> str:
    """The concrete path of ``route`` with ``values`` in its parameters."""
    path = ""
    for part in route.parts:
        if isinstance(part, RoutePattern):
            path += _ROUTE_PARAMETER.sub(lambda m: values[m.group("name")], str(part))
        elif isinstance(part, RegexPattern):
            regex, position = str(part), 0
            for name, _inner, start, end in _regex_groups(regex):
                path += regex[position:start].removeprefix("^").replace("\\", "") + values[name]
                position = end
            path += regex[position:].removeprefix("^").removesuffix("$").replace("\\", "")
        else:  # a language prefix
            path += str(part)
    return "/" + path


def _resolves_to(path: str, route: Route) -> bool:
    try:
        return resolve(unquote(path)).route == route.route
    except Resolver404:
        return False


@dataclass(frozen=True)
class Target:
    """A concrete path of a route; ``kind`` says what its parameters hold: plain, existing, unknown, hostile."""

    route: Route
    path: str
    kind: str


def targets(route: Route, existing_ids: list[str], first_pks: dict[type, str]) -> list[Target]:
    """Paths for ``route``: on existing rows (another customer's), on unknown ids, with hostile values."""
    params = parameters(route)
    if not params:
        return [Target(route, build_path(route, {}), "plain")]
    model_admin = route.model_admin
    own = [first_pks[model_admin.model]] if model_admin and model_admin.model in first_pks else []
    existing = {p.name: list(p.words) or [v for v in own or existing_ids if p.accepts(v)][:6] for p in params}
    unknown = {
        p.name: next((v for v in (*p.words[:1], UNKNOWN_INT, UNKNOWN_UUID, "unknown") if p.accepts(v)), None)
        for p in params
    }
    hostile = {
        p.name: [
            v for v in HOSTILE_VALUES + (VERBS if not p.accepts("a/b") else []) if p.accepts(v) and v != unknown[p.name]
        ]
        for p in params
    }
    anchor = {p.name: (existing[p.name] or [unknown[p.name]])[0] for p in params}

    found = [("unknown", unknown)]  # first: where a word list gives no unknown value, it gets every method
    found += [
        ("existing", {name: values[i] if i < len(values) else anchor[name] for name, values in existing.items()})
        for i in range(max(len(values) for values in existing.values()))
    ]
    for p in params:
        found += [("hostile", {**anchor, p.name: value}) for value in hostile[p.name]]

    out, seen = [], set()
    for kind, values in found:
        if None in values.values():
            continue
        path = build_path(route, values)
        if path not in seen and _resolves_to(path, route):
            seen.add(path)
            out.append(Target(route, path, kind))
    return out


@dataclass
class Visitor:
    label: str
    client: Client
    user: object | None = None

    @property
    def is_staff(self) -> bool:
        return self.user is not None and self.user.is_staff

    def stay_logged_in(self) -> None:
        """A logout URL ends the session: log in again so the rest of the walk is still this user's."""
        session = self.client.cookies.get("sessionid")
        if self.user is not None and (session is None or not session.value):
            self.client.force_login(self.user)


@dataclass
class Walker:
    """Requests hostile input; records which routes it reached (and admin actions that ran), and every 5xx."""

    staff: object
    bodies: list[Body]
    visited_routes: set[str] = field(default_factory=set)
    actions_run: set[tuple[str, str]] = field(default_factory=set)
    failures: list[str] = field(default_factory=list)
    requests: int = 0

    def send(self, visitor: Visitor, method: str, path: str, body: Body | None = None) -> HttpResponse:
        """Make one request; record the route it reached, and its answer if that is a 5xx."""
        data, content_type = (body.data, body.content_type) if body else (b"", "application/octet-stream")
        response = visitor.client.generic(method, path, data, content_type)
        self.requests += 1
        allowed = ALLOWED
        with contextlib.suppress(Resolver404):
            match = resolve(unquote(urlsplit(path).path))
            self.visited_routes.add(match.route)
            allowed = ALLOWED_ON_LOGIN if match.url_name == "login" else ALLOWED
        if not (200 <= response.status_code < 400 or response.status_code in allowed):
            exc = getattr(response, "exc_info", None)  # the test client keeps what the view raised
            cause = f" {exc[0].__name__}: {str(exc[1])[:120]}" if exc else ""
            shown = path if len(path) < 120 else f"{path[:100]}…({len(path)} chars)"
            sent = body.name if body else "-"
            self.failures.append(f"{method} {shown} as {visitor.label} [{sent}]: {response.status_code}{cause}")
        visitor.stay_logged_in()
        return response

    def every_method(self, visitor: Visitor, path: str, queries: list[str]) -> None:
        """Plain reads, junk query strings, every hostile body on POST, one each on PUT and PATCH, DELETE."""
        self.send(visitor, "HEAD", path)
        for query in queries:
            self.send(visitor, "GET", f"{path}?{query}")
        for body in self.bodies:
            self.send(visitor, "POST", path, body)
        self.send(visitor, "PUT", path, BODY["nested json"])
        self.send(visitor, "PATCH", path, BODY["broken json"])
        self.send(visitor, "DELETE", path)

    def walk(self, visitor: Visitor, targets: list[Target]) -> None:
        """Walk the paths of one route as ``visitor``."""
        for target in targets:
            first = self.send(visitor, "GET", target.path)
            if not visitor.is_staff and redirects_to_login(first):
                # Not this visitor's page: the login check comes before anything reads the path or the body.
                self.send(visitor, "POST", target.path, BODY["nested json"])
                return
            self.visit(visitor, target, first.status_code)

    def visit(self, visitor: Visitor, target: Target, status: int) -> None:
        """Every method on a plain or unknown target; on the others, a write where the view takes one."""
        if target.kind == "plain":
            queries = QUERIES + self.filter_queries(target.route) if visitor.is_staff else [JUNK_QUERY]
            self.every_method(visitor, target.path, queries)
        elif target.kind == "unknown":
            self.every_method(visitor, target.path, [JUNK_QUERY])
        elif target.kind == "hostile" and status == 405:  # a view for POSTs: post to it
            self.send(visitor, "POST", target.path, BODY["unknown fields"])
        elif target.kind == "existing" and not visitor.is_staff:  # another customer's object
            self.send(visitor, "POST", target.path, BODY["unknown fields"])
            self.send(visitor, "POST", target.path, BODY["huge fields"])
        # Staff only read existing rows: a POST on an admin delete page deletes them.

    def filter_queries(self, route: Route) -> list[str]:
        """On an admin changelist: each parameter of its list filters on a word, then all of them past bigint."""
        if route.model_admin is None or not (route.name or "").endswith("_changelist"):
            return []
        changelist = route.model_admin.get_changelist_instance(staff_request(self.staff))
        names = [name for spec in changelist.filter_specs for name in spec.expected_parameters()]
        return [f"{name}=abc" for name in names] + [urlencode(dict.fromkeys(names, str(2**70)))]

    def admin_actions(self, visitor: Visitor) -> None:
        """POST every action of every ModelAdmin on unknown, non-numeric and all-rows selections."""
        selections = [
            {"_selected_action": [UNKNOWN_INT, str(2**70)]},
            {"_selected_action": ["abc", "-1", UNKNOWN_UUID]},
            {"_selected_action": [UNKNOWN_INT], "post": "yes"},  # a confirmation page's second step
            {"_selected_action": [UNKNOWN_INT], "select_across": "1"},
            {"select_across": "zzz", "index": "9"},
        ]
        for model, model_admin in admin.site._registry.items():
            meta = model._meta
            changelist = reverse(f"{model_admin.admin_site.name}:{meta.app_label}_{meta.model_name}_changelist")
            for action in model_admin.get_actions(staff_request(visitor.user)):
                for selection in selections:
                    self.send(visitor, "POST", changelist, _form(f"action {action}", {"action": action, **selection}))


def spy_on_admin_actions(monkeypatch: pytest.MonkeyPatch, staff, ran: set[tuple[str, str]]) -> set[tuple[str, str]]:
    """Have every admin action add its (model, action) to ``ran`` when it runs; return every pair there is."""
    pairs = set()
    for model, model_admin in admin.site._registry.items():
        label, get_actions = model._meta.label, model_admin.get_actions
        pairs |= {(label, name) for name in get_actions(staff_request(staff))}

        def spied(request, label=label, get_actions=get_actions) -> dict:
            return {
                key: (_spy(func, (label, key), ran), name, description)
                for key, (func, name, description) in get_actions(request).items()
            }

        monkeypatch.setattr(model_admin, "get_actions", spied)
    return pairs


def _spy(func: Callable, pair: tuple[str, str], ran: set[tuple[str, str]]) -> Callable:
    def action(modeladmin, request, queryset):
        ran.add(pair)
        return func(modeladmin, request, queryset)

    return action


def staff_request(user) -> HttpRequest:
    request = RequestFactory().get("/")
    request.user = user
    return request


def hostile_client() -> Client:
    """A client whose POSTs reach the view without a CSRF token, and which turns what a view raises into its 500."""
    return Client(enforce_csrf_checks=False, raise_request_exception=False)


def redirects_to_login(response: HttpResponse) -> bool:
    if response.status_code not in (301, 302):
        return False
    try:
        return resolve(urlsplit(response["Location"]).path).url_name == "login"
    except Resolver404:
        return False


@contextlib.contextmanager
def quiet_request_logs() -> Iterator[None]:
    """The walk answers thousands of 4xx: keep django.request's warnings (and any 500's traceback) off the log."""
    loggers = [logging.getLogger(name) for name in ("django.request", "django.security")]
    levels = [logger.level for logger in loggers]
    for logger in loggers:
        logger.setLevel(logging.CRITICAL)
    try:
        yield
    finally:
        for logger, level in zip(loggers, levels, strict=True):
            logger.setLevel(level)


def ids_of(footprint: Footprint) -> list[str]:
    """The ids of a customer's rows, as a URL carries them."""
    rows = [footprint.memory, footprint.conflict, footprint.order, footprint.rating, footprint.handoff, footprint.user]
    return [str(footprint.handoff.conversation_id), footprint.conversation_id] + [str(row.pk) for row in rows]


def json_naming(footprint: Footprint) -> Body:
    """A JSON body naming the customer's rows (for the rating view: another's conversation)."""
    payload = {"conversation_id": footprint.conversation_id, "score": 1, "comment": "x", "id": footprint.memory.pk}
    return Body("another customer's ids", "application/json", json.dumps(payload).encode())


# As in production, each request commits on its own: a statement that fails in one view cannot
# abort a surrounding test transaction and fail every request after it.
@pytest.mark.django_db(transaction=True)
def test_no_url_or_admin_action_answers_hostile_input_with_a_5xx(make_customer, monkeypatch):
    # Given a customer, another customer with every kind of row, and a staff member
    customer, order = make_customer()
    leave_footprint(customer, order, "walker-own")
    other = leave_footprint(*make_customer(), "walker-other")
    staff = get_user_model().objects.create_user(username="walker", password="x", is_staff=True, is_superuser=True)
    visitors = [Visitor("anonymous", hostile_client())]
    for label, user in (("customer", customer), ("staff", staff)):
        visitors.append(Visitor(label, hostile_client(), user))
        visitors[-1].client.force_login(user)
    first_pks = {
        model: str(pk)
        for model in admin.site._registry
        if (pk := model._default_manager.order_by("pk").values_list("pk", flat=True).first()) is not None
    }
    routes = url_conf_routes()
    walker = Walker(staff, [*BODIES, json_naming(other)])
    actions = spy_on_admin_actions(monkeypatch, staff, walker.actions_run)

    # When each visitor walks every route, and staff post every admin action
    with quiet_request_logs():
        for route in routes:
            paths = targets(route, ids_of(other), first_pks)
            for visitor in visitors:
                walker.walk(visitor, paths)
        walker.admin_actions(visitors[-1])

    # Then nothing answered with a 5xx, nothing was left out, and the other customer's memory is intact
    unvisited = [str(route) for route in routes if route.route not in walker.visited_routes]
    not_run = [f"{label}: {action}" for label, action in sorted(actions - walker.actions_run)]
    report = {
        f"{len(walker.failures)} of {walker.requests} requests answered with a 5xx": walker.failures,
        "URL patterns the walker never reached": unvisited,
        "admin actions the walker never got to run": not_run,
    }
    if any(report.values()):
        pytest.fail("\n".join(f"{title}:\n  " + "\n  ".join(lines) for title, lines in report.items() if lines))
    assert LongTermMemory.objects.get(pk=other.memory.pk).is_valid
