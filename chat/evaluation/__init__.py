"""The evaluation harness: scenario files run through the real agent turn with memory off and on.

``scenarios`` reads and validates the file format (docs/eval.md), ``generator`` writes the committed
corpus from templates with a fixed seed, ``runner`` plays scenarios through ``chat.agent.run_turn``
on the real stack (PostgreSQL + pgvector, Redis, a Celery worker consolidating, the moved clock),
``report`` turns the runs into the figures of reports/eval.md beside the article's. The management
command ``eval`` (``make eval``) wires them together.
"""
