"""/metrics: Prometheus text format, staff or bearer token only, values shared by every process."""

import subprocess
import sys
from datetime import timedelta

import pytest
from django.test import Client
from prometheus_client.parser import text_string_to_metric_families

from agentsite import clock, llm
from chat.consumers import observed_turn
from chat.models import Handoff
from memory.models import MemoryConflict, Source
from memory.session import SessionStore
from memory.working import Entry, Role
from tests.procs import ROOT

TOKEN = "metrics-test-token"


def scrape(client: Client | None = None, **headers) -> dict[tuple[str, tuple], float]:
    response = (client or Client()).get("/metrics", headers=headers)
    assert response.status_code == 200, response.content
    assert response["Content-Type"].startswith("text/plain; version=0.0.4")
    return {
        (sample.name, tuple(sorted(sample.labels.items()))): sample.value
        for family in text_string_to_metric_families(response.content.decode())
        for sample in family.samples
    }


@pytest.fixture
def token(settings):
    settings.METRICS_TOKEN = TOKEN
    return {"Authorization": f"Bearer {TOKEN}"}


@pytest.mark.django_db
def test_only_staff_or_the_token_may_scrape(settings, django_user_model):
    settings.METRICS_TOKEN = ""
    assert Client().get("/metrics").status_code == 401
    assert Client().get("/metrics", headers={"Authorization": "Bearer "}).status_code == 401  # no token configured
    settings.METRICS_TOKEN = TOKEN
    assert Client().get("/metrics", headers={"Authorization": "Bearer wrong"}).status_code == 401
    customer = Client()
    customer.force_login(django_user_model.objects.create_user("customer"))
    assert customer.get("/metrics").status_code == 401
    staff = Client()
    staff.force_login(django_user_model.objects.create_user("staff", is_staff=True))
    assert scrape(staff)
    assert scrape(Authorization=f"Bearer {TOKEN}")


@pytest.mark.django_db
def test_turns_model_calls_tokens_and_vector_queries_are_counted(token, offline_model, django_user_model):
    from tests.factories import remember

    customer = django_user_model.objects.create_user("metrics-customer")
    remember(customer, "The customer prefers deliveries after 6 pm")  # a customer without memories is not searched
    conversation = SessionStore().start(customer.pk).id
    before = scrape(**token)
    assert before[("agent_turn_latency_seconds_count", ())] == 0

    observed_turn(customer.pk, conversation, "Hello, where is my order ORD-2025-0001?")
    observed_turn(customer.pk, conversation, "thanks")

    after = scrape(**token)
    assert after[("agent_turns_total", (("outcome", "ok"),))] == 2
    assert after[("agent_turn_latency_seconds_count", ())] == 2
    assert after[("agent_turn_latency_seconds_bucket", (("le", "+Inf"),))] == 2
    assert after[("agent_turn_latency_seconds_sum", ())] > 0
    chats = offline_model.stats()["by_task"]["chat"]
    assert chats >= 2
    calls = after[("agent_model_calls_total", (("model", "offline-main"), ("outcome", "ok"), ("purpose", "chat")))]
    assert calls == chats
    assert after[("agent_model_tokens_total", (("direction", "prompt"), ("model", "offline-main")))] > 0
    assert after[("agent_model_tokens_total", (("direction", "completion"), ("model", "offline-main")))] > 0
    assert after[("agent_vector_queries_total", ())] >= 2  # active recall: one search per turn


@pytest.mark.django_db
def test_model_cost_follows_the_price_list(token, settings, offline_model):
    settings.LLM_PRICES = {"offline-main": [1_000_000, 0]}  # one dollar per prompt token
    llm.chat([{"role": "user", "content": "hello"}])
    after = scrape(**token)
    prompt = after[("agent_model_tokens_total", (("direction", "prompt"), ("model", "offline-main")))]
    assert after[("agent_model_cost_usd_total", (("model", "offline-main"),))] == pytest.approx(prompt)


@pytest.mark.django_db
def test_gauges_come_from_the_database_at_scrape_time(token, django_user_model):
    customer = django_user_model.objects.create_user("gauges")
    store = SessionStore()
    conversation = store.start(customer.pk).id
    assert scrape(**token)[("agent_consolidation_lag_seconds", ())] == 0
    store.append(conversation, Entry.create(Role.USER, "hello", timestamp=clock.now()))
    clock.advance(timedelta(hours=2))
    try:
        values = scrape(**token)
    finally:
        clock.reset()
    assert values[("agent_consolidation_lag_seconds", ())] >= 7200
    assert values[("agent_conversations_unconsolidated", ())] == 1
    assert values[("agent_memory_conflicts_open", ())] == 0
    assert values[("agent_escalations", (("status", "waiting"),))] == 0

    MemoryConflict.objects.create(
        customer=customer, key="birthday", incoming_value="03-15", incoming_source=Source.CUSTOMER_STATED
    )
    MemoryConflict.objects.create(
        customer=customer,
        key="birthday",
        incoming_value="05-13",
        incoming_source=Source.CUSTOMER_STATED,
        status="dismissed",
    )
    Handoff.objects.create(conversation_id=conversation, packet={})
    values = scrape(**token)
    assert values[("agent_memory_conflicts_open", ())] == 1
    assert values[("agent_escalations", (("status", "waiting"),))] == 1
    assert values[("agent_escalations", (("status", "taken"),))] == 0


@pytest.mark.django_db
def test_an_open_circuit_breaker_shows(token, settings, offline_model):
    settings.LLM_BREAKER_THRESHOLD = 1
    settings.LLM_MAX_RETRIES = 0
    llm.reset_gateway()
    try:
        llm.chat([{"role": "user", "content": "hello"}])  # a success publishes nothing
        assert scrape(**token)[("agent_model_circuit_breakers_open", ())] == 0
        offline_model.script(["server_error"])
        with pytest.raises(llm.ModelUnavailable):
            llm.chat([{"role": "user", "content": "hello"}])
        values = scrape(**token)
    finally:
        llm.reset_gateway()
    assert values[("agent_model_circuit_breakers_open", ())] == 1
    states = {dict(labels)["state"]: v for (name, labels), v in values.items() if name.endswith("breaker_state")}
    assert states == {"closed": 0, "half_open": 0, "open": 1}
    assert values[("agent_model_calls_total", (("model", "offline-main"), ("outcome", "error"), ("purpose", "chat")))]


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_counts_from_another_process_are_in_the_same_scrape(token, process_env):
    code = "from agentsite import metrics; metrics.record_turn(0.3, 'ok'); metrics.record_turn(70.0, 'failed')"
    done = subprocess.run(
        [sys.executable, "manage.py", "shell", "-c", code],
        cwd=ROOT,
        env=process_env.as_environ(),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    values = scrape(**token)
    assert values[("agent_turns_total", (("outcome", "ok"),))] == 1
    assert values[("agent_turns_total", (("outcome", "failed"),))] == 1
    assert values[("agent_turn_latency_seconds_bucket", (("le", "0.5"),))] == 1
    assert values[("agent_turn_latency_seconds_bucket", (("le", "60.0"),))] == 1
    assert values[("agent_turn_latency_seconds_bucket", (("le", "+Inf"),))] == 2


@pytest.fixture
def nothing_pending():
    """Counts other tests left waiting in this process go out first (with a turn record nobody reads here)."""
    from agentsite import metrics

    metrics.record_turn(0.1, "ok")
    return metrics


@pytest.mark.django_db
def test_a_vector_search_is_counted_with_the_next_metrics_write_not_on_its_own(
    token, django_user_model, nothing_pending
):
    from django_redis import get_redis_connection

    from memory.recall import recall
    from tests.factories import remember

    metrics, redis_conn = nothing_pending, get_redis_connection("default")
    customer = django_user_model.objects.create_user("searcher")
    remember(customer, "The customer prefers parcels left with the concierge")
    counted = scrape(**token)[("agent_vector_queries_total", ())]
    incr_before = redis_conn.info("commandstats").get("cmdstat_incr", {}).get("calls", 0)

    for _ in range(3):
        recall(customer.pk, "where should parcels go?")

    assert redis_conn.info("commandstats").get("cmdstat_incr", {}).get("calls", 0) == incr_before  # no round trip
    assert scrape(**token)[("agent_vector_queries_total", ())] == counted  # not in Redis yet
    metrics.record_model_call("chat", "offline-main", True, 10, 2, 0)
    assert scrape(**token)[("agent_vector_queries_total", ())] == counted + 3
    metrics.record_turn(0.1, "ok")
    assert scrape(**token)[("agent_vector_queries_total", ())] == counted + 3  # counted once


@pytest.mark.django_db
def test_counts_a_failed_metrics_write_could_not_send_go_with_the_next_one(token, monkeypatch, nothing_pending):
    import redis

    from tests.procs import free_port

    metrics, reachable = nothing_pending, nothing_pending._redis
    counted = scrape(**token)[("agent_vector_queries_total", ())]
    metrics.count_vector_query()
    down = redis.Redis(port=free_port(), socket_connect_timeout=0.2, retry=None)
    monkeypatch.setattr(metrics, "_redis", lambda: down)

    metrics.record_turn(0.1, "ok")  # fails quietly: metrics never fail the work
    monkeypatch.setattr(metrics, "_redis", reachable)
    assert scrape(**token)[("agent_vector_queries_total", ())] == counted
    metrics.record_turn(0.1, "ok")

    assert scrape(**token)[("agent_vector_queries_total", ())] == counted + 1
