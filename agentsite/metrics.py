"""Prometheus metrics shared by every process: counters in Redis, gauges read at scrape time. Several daphne
processes and Celery workers do the work, so nothing is counted in process memory alone; the apps register
their gauges here from ``AppConfig.ready()``, so this module names no app, and counting never fails the work
being counted. See docs/operations.md ("Metrics").
"""

from __future__ import annotations

import collections
import contextlib
import hmac
import json
import logging
import os
import socket
import threading
import time
from collections.abc import Iterable, Iterator
from decimal import Decimal
from typing import TYPE_CHECKING, Protocol, TypedDict

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.views.decorators.http import require_GET
from prometheus_client import CollectorRegistry, generate_latest
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, HistogramMetricFamily, Metric
from prometheus_client.exposition import CONTENT_TYPE_PLAIN_0_0_4

if TYPE_CHECKING:
    from redis import Redis
    from redis.client import Pipeline

logger = logging.getLogger(__name__)

PREFIX = "metrics:"
TURNS = "metrics:turns"  # hash: outcome -> count
TURN_LATENCY = "metrics:turn_latency"  # hash: bucket upper bound ("+Inf" too), "count", "sum"
MODEL_CALLS = "metrics:model_calls"  # hash: {"purpose","model","outcome"} JSON -> count
MODEL_TOKENS = "metrics:model_tokens"  # hash: {"model","direction"} JSON -> count
MODEL_COST = "metrics:model_cost_usd"  # hash: model -> float
VECTOR_QUERIES = "metrics:vector_queries"  # plain counter: memory recall and policy search (count_vector_query)
TOOL_SUMMARIES = "metrics:tool_summaries"  # hash: outcome of summarising a long tool result -> count
BREAKER = "metrics:breaker:"  # one key per process: JSON {"failures", "opened_at", "cooldown"}
BREAKER_TTL_SECONDS = 7 * 24 * 3600

TURN_BUCKETS = (0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 20.0, 30.0, 60.0)
BREAKER_STATES = ("closed", "half_open", "open")


def _redis() -> Redis:
    from django_redis import get_redis_connection

    connection: Redis = get_redis_connection("default")
    return connection


def _text(value: bytes | str) -> str:
    """A key or value read from Redis (bytes: the connection does not decode) as text."""
    return value.decode() if isinstance(value, bytes) else value


def _label_key(**labels: str) -> str:
    return json.dumps(labels, sort_keys=True)


class _Deferred:
    """Counts of this process that travel with its next metrics write instead of a round trip of their own.

    A vector search or a tool result's summary is counted on a turn's path, before a model call;
    the model call's record (or the turn's) follows within milliseconds and is a pipeline anyway, so
    the count goes with it. A write that fails gives the counts back for the next one.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._vector_queries = 0
        self._summaries: collections.Counter[str] = collections.Counter()

    def add_vector_query(self) -> None:
        with self._lock:
            self._vector_queries += 1

    def add_summary(self, outcome: str) -> None:
        with self._lock:
            self._summaries[outcome] += 1

    @contextlib.contextmanager
    def onto(self, pipe: Pipeline) -> Iterator[None]:
        """Queue the pending counts on ``pipe``; if the block raises, keep them for the next write."""
        with self._lock:
            taken, self._vector_queries = self._vector_queries, 0
            summaries, self._summaries = self._summaries, collections.Counter()
        if taken:
            pipe.incrby(VECTOR_QUERIES, taken)
        for outcome, count in summaries.items():
            pipe.hincrby(TOOL_SUMMARIES, outcome, count)
        try:
            yield
        except BaseException:
            with self._lock:
                self._vector_queries += taken
                self._summaries.update(summaries)
            raise


_deferred = _Deferred()


def count_vector_query() -> None:
    """Count one vector search; it reaches Redis with this process's next turn or model call record."""
    _deferred.add_vector_query()


def count_tool_result_summary(outcome: str) -> None:
    """Count what became of a long tool result's summary (``used``, ``not_shorter``, ``lost_values``); it
    reaches Redis with this process's next turn or model call record."""
    _deferred.add_summary(outcome)


def record_turn(seconds: float, outcome: str) -> None:
    """Count one turn (``ok``, ``failed``, ``escalated``, ``silent`` or ``error``) and its latency."""
    try:
        pipe = _redis().pipeline(transaction=False)
        pipe.hincrby(TURNS, outcome, 1)
        for bound in TURN_BUCKETS:
            if seconds <= bound:
                pipe.hincrby(TURN_LATENCY, repr(bound), 1)
        pipe.hincrby(TURN_LATENCY, "+Inf", 1)
        pipe.hincrby(TURN_LATENCY, "count", 1)
        pipe.hincrbyfloat(TURN_LATENCY, "sum", seconds)
        with _deferred.onto(pipe):
            pipe.execute()
    except Exception:  # metrics must never fail a turn
        logger.debug("could not record a turn in the metrics", exc_info=True)


def record_model_call(
    purpose: str, model: str, ok: bool, prompt_tokens: int, completion_tokens: int, cost: Decimal | float
) -> None:
    """Count one call to the model endpoint with its tokens and cost (and the vector searches waiting)."""
    try:
        pipe = _redis().pipeline(transaction=False)
        pipe.hincrby(MODEL_CALLS, _label_key(purpose=purpose, model=model, outcome="ok" if ok else "error"), 1)
        if prompt_tokens:
            pipe.hincrby(MODEL_TOKENS, _label_key(model=model, direction="prompt"), prompt_tokens)
        if completion_tokens:
            pipe.hincrby(MODEL_TOKENS, _label_key(model=model, direction="completion"), completion_tokens)
        if cost:
            pipe.hincrbyfloat(MODEL_COST, model, float(cost))
        with _deferred.onto(pipe):
            pipe.execute()
    except Exception:
        logger.debug("could not record a model call in the metrics", exc_info=True)


def process_name() -> str:
    """This process as the metrics name it: host and pid."""
    return f"{socket.gethostname()}:{os.getpid()}"


def publish_breaker(failures: int, opened_at_monotonic: float | None, cooldown: float) -> None:
    """Publish this process's circuit breaker (its open time converted to wall-clock seconds)."""
    opened_at = None if opened_at_monotonic is None else time.time() - (time.monotonic() - opened_at_monotonic)
    value = json.dumps({"failures": failures, "opened_at": opened_at, "cooldown": cooldown})
    try:
        _redis().set(BREAKER + process_name(), value, ex=BREAKER_TTL_SECONDS)
    except Exception:
        logger.debug("could not publish the circuit breaker's state", exc_info=True)


class PublishedBreaker(TypedDict):
    """A process's circuit breaker as ``publish_breaker`` writes it (JSON); ``opened_at`` is wall-clock."""

    failures: int
    opened_at: float | None
    cooldown: float


def breaker_state(published: PublishedBreaker, now: float) -> str:
    """Return ``closed``, ``half_open`` or ``open`` for a published breaker at wall-clock ``now``."""
    opened_at = published.get("opened_at")
    if opened_at is None:
        return "closed"
    return "open" if now - opened_at < published.get("cooldown", 0) else "half_open"


class Collector(Protocol):
    """What an app registers: something that yields Prometheus metric families when scraped."""

    def collect(self) -> Iterable[Metric]: ...


_collectors: list[Collector] = []


def register(collector: Collector) -> None:
    """Serve ``collector``'s metrics on ``/metrics`` too (apps call this from ``AppConfig.ready``)."""
    if not any(type(known) is type(collector) for known in _collectors):  # ready() may run twice in tests
        _collectors.append(collector)


class AgentCollector:
    """Reads the site's own metrics from Redis when collected (one scrape, one read)."""

    def collect(self) -> Iterator[Metric]:
        redis = _redis()
        yield from self._turns(redis)
        yield from self._model(redis)
        queries = CounterMetricFamily("agent_vector_queries", "Vector searches run (memory recall and policy search).")
        queries.add_metric([], float(redis.get(VECTOR_QUERIES) or 0))
        yield queries
        summaries = CounterMetricFamily(
            "agent_tool_result_summaries", "Long tool results summarised, by outcome.", labels=["outcome"]
        )
        for outcome, count in sorted(redis.hgetall(TOOL_SUMMARIES).items()):
            summaries.add_metric([_text(outcome)], float(count))
        yield summaries
        yield from self._breakers(redis)

    def _turns(self, redis: Redis) -> Iterator[Metric]:
        turns = CounterMetricFamily("agent_turns", "Agent turns answered, by outcome.", labels=["outcome"])
        for outcome, count in sorted(redis.hgetall(TURNS).items()):
            turns.add_metric([_text(outcome)], float(count))
        yield turns
        raw = {_text(k): float(v) for k, v in redis.hgetall(TURN_LATENCY).items()}
        buckets = [(repr(bound), raw.get(repr(bound), 0.0)) for bound in TURN_BUCKETS]
        buckets.append(("+Inf", raw.get("+Inf", 0.0)))
        latency = HistogramMetricFamily("agent_turn_latency_seconds", "Time to answer one customer message.")
        latency.add_metric([], buckets, sum_value=raw.get("sum", 0.0))
        yield latency

    def _model(self, redis: Redis) -> Iterator[Metric]:
        calls = CounterMetricFamily(
            "agent_model_calls", "Requests to the model endpoint.", labels=["purpose", "model", "outcome"]
        )
        for key, count in sorted(redis.hgetall(MODEL_CALLS).items()):
            labels = json.loads(key)
            calls.add_metric([labels["purpose"], labels["model"], labels["outcome"]], float(count))
        yield calls
        tokens = CounterMetricFamily(
            "agent_model_tokens", "Tokens sent to and received from the model.", labels=["model", "direction"]
        )
        for key, count in sorted(redis.hgetall(MODEL_TOKENS).items()):
            labels = json.loads(key)
            tokens.add_metric([labels["model"], labels["direction"]], float(count))
        yield tokens
        cost = CounterMetricFamily("agent_model_cost_usd", "Model cost in USD (LLM_PRICES).", labels=["model"])
        for model, value in sorted(redis.hgetall(MODEL_COST).items()):
            cost.add_metric([_text(model)], float(value))
        yield cost

    def _breakers(self, redis: Redis) -> Iterator[Metric]:
        now = time.time()
        state = GaugeMetricFamily(
            "agent_model_circuit_breaker_state",
            "1 for the state each process's circuit breaker is in (closed, half_open, open).",
            labels=["process", "state"],
        )
        opened = GaugeMetricFamily("agent_model_circuit_breakers_open", "Processes whose circuit breaker is open.")
        open_count = 0
        for key in sorted(redis.scan_iter(match=BREAKER + "*", count=500)):
            raw = redis.get(key)
            if raw is None:
                continue
            current = breaker_state(json.loads(raw), now)
            open_count += current == "open"
            process = _text(key)[len(BREAKER) :]
            for name in BREAKER_STATES:
                state.add_metric([process, name], 1.0 if name == current else 0.0)
        opened.add_metric([], float(open_count))
        yield state
        yield opened


def authorised(request: HttpRequest) -> bool:
    """A logged-in staff member, or ``Authorization: Bearer <METRICS_TOKEN>`` when that setting is set."""
    if getattr(request, "user", None) is not None and request.user.is_authenticated and request.user.is_staff:
        return True
    token = settings.METRICS_TOKEN
    header = request.headers.get("Authorization", "")
    return bool(token) and header.startswith("Bearer ") and hmac.compare_digest(header[7:].encode(), token.encode())


@require_GET
def metrics_view(request: HttpRequest) -> HttpResponse:
    """Serve every metric in the Prometheus text format (staff or bearer token only)."""
    if not authorised(request):
        response = HttpResponse("staff login or a bearer token needed\n", status=401, content_type="text/plain")
        response["WWW-Authenticate"] = 'Bearer realm="metrics"'
        return response
    registry = CollectorRegistry(auto_describe=False)
    for collector in (AgentCollector(), *_collectors):
        registry.register(collector)
    return HttpResponse(generate_latest(registry), content_type=CONTENT_TYPE_PLAIN_0_0_4)  # what every Prometheus reads
