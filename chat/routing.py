"""The websocket routes: the customer's chat and the staff inbox. See docs/protocol.md."""

from django.urls import path

from chat.consumers import ChatConsumer
from chat.staff_consumer import StaffConsumer

websocket_urlpatterns = [path("ws/chat/", ChatConsumer.as_asgi()), path("ws/staff/", StaffConsumer.as_asgi())]
