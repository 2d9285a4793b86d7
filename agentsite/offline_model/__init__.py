"""A deterministic model server that speaks the OpenAI chat-completions protocol, offline.

The demo and the tests point ``OPENAI_BASE_URL`` at it when no real endpoint is configured. It is
reached only over HTTP and sees only the messages it is sent: it imports nothing from Django or
the application. Start it with ``python -m agentsite.offline_model`` or, from Python,
``agentsite.offline_model.runner.start_offline_model()``. Conventions: docs/offline-model.md.
"""
