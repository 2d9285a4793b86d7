"""Websocket routes of every app, gathered for asgi.py."""

from django.urls import path

from agentsite.consumers import EchoConsumer

websocket_urlpatterns = [
    path("ws/echo/", EchoConsumer.as_asgi()),
]
