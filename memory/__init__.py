"""The memory app: the agent's three tiers. Working memory lives in the agent's process for one turn
(``working``); short-term memory holds one conversation's session in Redis with a durable copy in PostgreSQL
for as long as the transcript is kept (``session``); long-term memory keeps facts, preferences, experiences
and summaries per customer in PostgreSQL + pgvector until forgetting or erasure (``longterm``, ``recall``,
``forgetting``). See docs/session.md and docs/longterm.md.
"""
