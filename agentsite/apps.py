from django.apps import AppConfig
from django.contrib.admin import apps as admin_apps


class AgentsiteConfig(AppConfig):
    """Infrastructure app: database extensions, health, the model-call records."""

    name = "agentsite"
    verbose_name = "Agent site"


class AgentAdminConfig(admin_apps.AdminConfig):
    """Django's admin on the project's site class (``agentsite.admin_site``); named in INSTALLED_APPS."""

    default = False  # the app "agentsite" itself is AgentsiteConfig

    default_site = "agentsite.admin_site.AgentAdminSite"
