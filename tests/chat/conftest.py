"""Fixtures for the shop: the seeded demo data and tool contexts for its customers."""

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command

from chat.tools import ToolContext
from memory.session import SessionStore


@pytest.fixture
def seeded(db):
    call_command("seed_demo", stdout=open("/dev/null", "w"))  # noqa: SIM115
    return {u.username: u for u in get_user_model().objects.filter(username__in=["wang", "li", "chen", "alice", "bob"])}


@pytest.fixture
def session_store():
    return SessionStore()


@pytest.fixture
def context_for(seeded, session_store):
    """A tool context in a fresh conversation of the named demo customer."""

    def make(username: str) -> ToolContext:
        user = seeded[username]
        session = session_store.start(user.pk)
        session_store.transition(session.id, "processing", "test starts in processing")
        language = "zh" if user.profile.language.startswith("zh") else "en"
        return ToolContext(customer_id=user.pk, conversation_id=session.id, language=language, store=session_store)

    return make
