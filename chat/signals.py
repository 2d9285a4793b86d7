"""Closing a customer's open chat sockets the moment their login ends over HTTP."""

from __future__ import annotations

import logging

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.contrib.auth.base_user import AbstractBaseUser
from django.contrib.auth.models import AnonymousUser
from django.contrib.auth.signals import user_logged_out
from django.dispatch import receiver
from django.http import HttpRequest

from chat.conversations import login_group

logger = logging.getLogger(__name__)


@receiver(user_logged_out, dispatch_uid="chat.close_sockets_of_ended_login")
def close_sockets_of_ended_login(
    sender: type[AbstractBaseUser] | None,
    request: HttpRequest | None,
    user: AbstractBaseUser | AnonymousUser | None,
    **kwargs: object,
) -> None:
    """Tell every socket opened with this login to close (each also re-checks the login on every frame)."""
    session_key = getattr(getattr(request, "session", None), "session_key", None)
    if not session_key:
        return
    try:
        async_to_sync(get_channel_layer().group_send)(login_group(session_key), {"type": "login.ended"})
    except Exception:  # the channel layer is down: each socket sees the logout at its next frame
        logger.warning("channel layer unavailable: open sockets of a logged-out session not told")
