"""Closing a customer's open chat sockets the moment their login ends over HTTP, and setting aside the changes an
earlier login left waiting for a yes."""

from __future__ import annotations

import logging

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.contrib.auth.base_user import AbstractBaseUser
from django.contrib.auth.models import AnonymousUser
from django.contrib.auth.signals import user_logged_in, user_logged_out
from django.dispatch import receiver
from django.http import HttpRequest

from chat.conversations import login_group
from chat.tools import interrupt_for_a_new_login

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


@receiver(user_logged_in, dispatch_uid="chat.set_aside_proposals_of_earlier_logins")
def set_aside_proposals_of_earlier_logins(
    sender: type[AbstractBaseUser], request: HttpRequest | None, user: AbstractBaseUser, **kwargs: object
) -> None:
    """A change proposed before this login is no longer confirmable: whoever logs in answers only what they saw
    proposed (the next message says it lapsed)."""
    if user.pk is not None:
        interrupt_for_a_new_login(user.pk)
