"""The site's app: loads the Celery app in every process that sets Django up, and puts the admin on
the site's own class (``agentsite.admin_site``).
"""

from django.apps import AppConfig
from django.contrib.admin import apps as admin_apps


class AgentsiteConfig(AppConfig):
    """Infrastructure app: database extensions, health, the model-call records."""

    name = "agentsite"
    verbose_name = "Agent site"

    def ready(self) -> None:
        # Every process that sets Django up gets the project's Celery app, so the apps' shared tasks queue
        # to its broker (not Celery's default) wherever they are called from: web, shell, tests, benchmarks.
        from agentsite import celery  # noqa: F401


class AgentAdminConfig(admin_apps.AdminConfig):
    """Django's admin on the project's site class (``agentsite.admin_site``); named in INSTALLED_APPS."""

    default = False  # the app "agentsite" itself is AgentsiteConfig

    default_site = "agentsite.admin_site.AgentAdminSite"
