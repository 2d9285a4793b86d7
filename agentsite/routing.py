"""Websocket routes of every app, gathered for asgi.py."""

from django.urls import path

from agentsite.consumers import EchoConsumer
from chat.routing import websocket_urlpatterns as chat_routes

websocket_urlpatterns = [
    path("ws/echo/", EchoConsumer.as_asgi()),
    *chat_routes,
]
