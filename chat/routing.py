"""The customer's websocket route."""

from django.urls import path

from chat.consumers import ChatConsumer

websocket_urlpatterns = [path("ws/chat/", ChatConsumer.as_asgi())]
