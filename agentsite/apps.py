from django.apps import AppConfig


class AgentsiteConfig(AppConfig):
    """Infrastructure app: database extensions, health, the model-call records."""

    name = "agentsite"
    verbose_name = "Agent site"
