"""A demo customer in a new conversation, for tests that chat as the red team did."""

from __future__ import annotations

import uuid
from typing import Any

from django.contrib.auth import get_user_model
from django.core.management import call_command

from memory import session as short_term


def demo_customer(username: str) -> tuple[Any, uuid.UUID]:
    """The demo shop seeded afresh, and ``username``'s user with a conversation just started."""
    call_command("seed_demo", stdout=open("/dev/null", "w"))  # noqa: SIM115
    user = get_user_model().objects.get(username=username)
    return user, short_term.store().start(user.pk).id
