"""The agent site: settings, process wiring and the services every app shares.

Kept import-light on purpose: `python -m agentsite.offline_model` must start in well under a
second, so the Celery app lives in `agentsite.celery` and is imported where it is needed.
"""
