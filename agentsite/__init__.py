"""The agent site: settings, process wiring and the services every app shares. Kept import-light on purpose, so
that ``python -m agentsite.offline_model`` starts at once: the Celery app lives in ``agentsite.celery`` and is
imported where it is needed.
"""
