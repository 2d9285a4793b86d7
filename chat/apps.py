"""The chat app's configuration: wires its signals, its gauges, and the shop's writer and proposals for memory."""

from django.apps import AppConfig


class ChatConfig(AppConfig):
    """The customer-facing agent: the turn, the websocket, the demo shop and its tools."""

    name = "chat"
    verbose_name = "Chat"

    def ready(self) -> None:
        from agentsite import metrics
        from chat import signals  # noqa: F401  (connects its receivers)
        from chat.metrics import ChatCollector
        from chat.shop import apply_staff_change
        from chat.tools import withdrawn_changes
        from memory import shop_proposals, shop_writes

        metrics.register(ChatCollector())
        shop_writes.register(apply_staff_change)  # staff decisions on shop-owned keys change the shop
        shop_proposals.register(withdrawn_changes)  # changes the customer turned down are no requests
