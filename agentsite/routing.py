"""Websocket routes of every app, gathered for asgi.py; any other path is refused at the handshake."""

from channels.generic.websocket import AsyncWebsocketConsumer
from django.urls import re_path

from chat.routing import websocket_urlpatterns as chat_routes


class NoSuchRoute(AsyncWebsocketConsumer):  # type: ignore[misc]  # Channels ships no types
    """Refuse the handshake (HTTP 403) of a path no app serves, rather than fail inside the router."""

    async def connect(self) -> None:
        await self.close()


websocket_urlpatterns = [*chat_routes, re_path(r"", NoSuchRoute.as_asgi())]
