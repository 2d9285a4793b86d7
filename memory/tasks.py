"""Celery tasks of the memory app: thin wrappers that load ids and call the memory functions."""

from __future__ import annotations

import os

from agentsite.celery import app


@app.task(name="memory.embed_probe")
def embed_probe(text: str) -> dict:
    """Embed ``text`` as a query in this worker process (proves embedding works after a fork)."""
    from memory.embeddings import get_embedder

    vector = get_embedder().embed_queries([text])[0]
    return {"pid": os.getpid(), "vector": [float(x) for x in vector]}
