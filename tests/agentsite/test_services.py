"""The real services every tier stands on: pgvector through the ORM, Redis through django-redis."""

import pytest
from django.core.cache import cache
from django.db import connection, models
from django_redis import get_redis_connection
from pgvector.django import CosineDistance, VectorField


class Probe(models.Model):
    """A throwaway table for the pgvector round trip (created and dropped by the test)."""

    label = models.CharField(max_length=20)
    embedding = VectorField(dimensions=3)

    class Meta:
        app_label = "agentsite"
        db_table = "test_vector_probe"

    def __str__(self) -> str:
        return self.label


@pytest.fixture
def probe_table(db):
    with connection.schema_editor() as editor:
        editor.create_model(Probe)
    yield Probe
    with connection.schema_editor() as editor:
        editor.delete_model(Probe)


def test_cosine_distance_orders_rows_by_similarity(probe_table):
    Probe.objects.bulk_create(
        [
            Probe(label="opposite", embedding=[-1, 0, 0]),
            Probe(label="same", embedding=[2, 0, 0]),
            Probe(label="orthogonal", embedding=[0, 1, 0]),
            Probe(label="close", embedding=[1, 0.2, 0]),
        ]
    )

    ranked = Probe.objects.annotate(distance=CosineDistance("embedding", [1, 0, 0])).order_by("distance")

    assert [p.label for p in ranked] == ["same", "close", "orthogonal", "opposite"]
    assert ranked[0].distance == pytest.approx(0.0, abs=1e-6)
    assert ranked[3].distance == pytest.approx(2.0, abs=1e-6)


def test_database_has_pgvector_and_pg_trgm(db):
    with connection.cursor() as cursor:
        cursor.execute("SELECT extname FROM pg_extension")
        installed = {row[0] for row in cursor.fetchall()}
    assert {"vector", "pg_trgm"} <= installed


def test_cache_round_trip_sets_the_ttl():
    cache.set("probe:key", {"a": 1}, timeout=120)

    assert cache.get("probe:key") == {"a": 1}
    ttl = cache.ttl("probe:key")
    assert 0 < ttl <= 120
    raw = get_redis_connection("default")
    assert raw.connection_pool.connection_kwargs["db"] == 1  # the cache's own database number


def test_each_redis_user_has_its_own_database():
    from django.conf import settings

    numbers = {
        settings.CELERY_BROKER_URL.rsplit("/", 1)[1],
        settings.CACHES["default"]["LOCATION"].rsplit("/", 1)[1],
        settings.CHANNEL_LAYERS["default"]["CONFIG"]["hosts"][0]["address"].rsplit("/", 1)[1],
        settings.CELERY_RESULT_BACKEND.rsplit("/", 1)[1],
    }
    assert len(numbers) == 4


def test_redis_server_never_evicts_the_broker():
    config = get_redis_connection("default").config_get("maxmemory-policy")
    assert config["maxmemory-policy"] == "noeviction"
