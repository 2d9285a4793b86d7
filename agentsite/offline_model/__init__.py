"""A deterministic model server that speaks the OpenAI chat-completions protocol, offline, for the demo and the
tests when no real endpoint is configured. It is reached only over HTTP and sees only the messages it is sent:
it imports nothing from Django or the application. Start it with ``python -m agentsite.offline_model`` or
``runner.start_offline_model()``. See docs/offline-model.md.
"""
