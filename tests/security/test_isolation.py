"""Isolation: many customers with near-identical facts; random operations never show one customer another's data.

Each customer has a memory ("The customer's birthday is 1990-03-1N; zzNmarker"), a transcript, an
order, a conflict, a rating, a handoff, a refund and a pending change, all carrying their own
marker. Hypothesis picks who acts, against whose data, and how: recall, every read tool, the
websocket (resuming another's conversation), "what we remember", staff pages as a non-staff
user, and corrections, deletions and ratings aimed at another's rows.
"""

from __future__ import annotations

import json

import pytest
from django.test import Client
from django.urls import reverse
from hypothesis import HealthCheck, example, given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st

from chat.models import ConversationRating
from chat.tools import ToolContext, run_tool
from memory.models import LongTermMemory
from memory.recall import recall
from memory.session import SessionStore
from tests.chat.wsclient import ChatSocket, run
from tests.security.footprint import leave_footprint

pytestmark = pytest.mark.django_db(transaction=True)

CUSTOMERS = 5
OPERATIONS = ["recall", "tool", "websocket", "memories_page", "staff_page", "correct", "delete", "rate"]
TOOLS = ["lookup_order", "track_shipment", "request_refund", "list_my_orders", "recall_memory"]


def marker(index: int) -> str:
    return f"zz{index}marker"


def birthday(index: int) -> str:
    """A whole date: a bare "03-12" is found by chance in a UUID's text ("…ab03-12cd…", about once in 30,000
    ids), and a conversation's id then "showed" another customer's birthday."""
    return f"1990-03-1{index}"


@pytest.fixture
def world(make_customer) -> list:
    footprints = []
    for index in range(CUSTOMERS):
        user, order = make_customer()
        footprints.append(leave_footprint(user, order, marker(index), birthday=birthday(index)))
    return footprints


def test_no_customer_ever_sees_another_customers_data(world, settings):
    # Hypothesis opens a socket per "websocket" step, dozens a minute per customer: isolation is the point here,
    # not the budget for opening sockets (tests/security/test_socket_after_logout.py has that).
    settings.AGENT_SOCKETS_PER_MINUTE = 10_000
    store = SessionStore()
    clients = []
    for footprint in world:
        client = Client()
        client.force_login(footprint.user)
        clients.append(client)
    conversations = [store.start(f.user.pk).id for f in world]
    seen_own = set()

    def secrets_of(index: int) -> set[str]:
        f = world[index]
        return {marker(index), f.order.number, birthday(index), f.conversation_id}

    def act(actor: int, target: int, operation: str, variant: int) -> str:
        me, them = world[actor], world[target]
        if operation == "recall":
            query = ["When is my birthday?", marker(target), them.order.number, "what do you remember"][variant]
            found = recall(me.user.pk, query, touch=False)
            assert {m.id for m in found} <= set(
                LongTermMemory.objects.filter(customer=me.user).values_list("id", flat=True)
            )
            return json.dumps([m.content + m.value for m in found])
        if operation == "tool":
            ctx = ToolContext(me.user.pk, conversations[actor], "en", store)
            name = TOOLS[(variant + target) % len(TOOLS)]
            arguments = {
                "lookup_order": {"order_number": them.order.number},
                "track_shipment": {"order_number": them.order.number},
                "request_refund": {"order_number": them.order.number, "reason": marker(target)},
                "list_my_orders": {},
                "recall_memory": {"query": f"{marker(target)} birthday {them.order.number}"},
            }[name]
            result = run_tool(ctx, name, arguments)
            if name in ("lookup_order", "track_shipment", "request_refund") and target != actor:
                # Another's order is "not found", like a missing one; the error names the number the actor
                # typed, which tells them nothing they did not send: only that echo is taken out.
                assert set(result) <= {"error", "error_code", "experience"}, result
                result = {k: v.replace(them.order.number, "<the number typed>") for k, v in result.items()}
            return json.dumps(result, default=str)
        if operation == "websocket":

            async def resume() -> dict:
                socket = ChatSocket(me.user, conversation=them.conversation_id)
                assert await socket.connect()
                await socket.close()
                return socket.history

            history = run(resume())
            assert target == actor or history["conversation_id"] != them.conversation_id
            return json.dumps(history, ensure_ascii=False)
        client = clients[actor]
        if operation == "memories_page":
            return client.get(reverse("memories")).content.decode()
        if operation == "staff_page":
            url = [
                reverse("staff-console"),
                reverse("staff-conversation", args=[them.handoff.conversation_id]),
                reverse("admin:memory_longtermmemory_changelist"),
                reverse("admin:memory_memoryconflict_change", args=[them.conflict.pk]),
            ][variant]
            response = client.get(url)
            assert response.status_code == 302
            return response.content.decode()
        if target == actor:
            return ""
        if operation in ("correct", "delete"):
            url = reverse(f"memory-{operation}", args=[them.memory.pk])
            response = client.post(url, {"text": f"1990-03-2{actor}"})
            assert response.status_code == 404
            assert LongTermMemory.objects.valid().filter(pk=them.memory.pk, value=birthday(target)).exists()
            return response.content.decode()
        body = json.dumps({"conversation_id": them.conversation_id, "score": 5, "comment": marker(actor)})
        response = client.post(reverse("rating"), body, content_type="application/json")
        assert response.status_code == 404
        assert ConversationRating.objects.get(conversation_id=them.conversation_id).score == 2
        return response.content.decode()

    @hypothesis_settings(deadline=None, database=None, max_examples=30, suppress_health_check=[HealthCheck.too_slow])
    @given(
        st.lists(
            st.tuples(
                st.integers(0, CUSTOMERS - 1),
                st.integers(0, CUSTOMERS - 1),
                st.sampled_from(OPERATIONS),
                st.integers(0, 3),
            ),
            min_size=1,
            max_size=6,
        )
    )
    # Every tool aimed at another customer's order, always (random examples may miss some); and the
    # operations that show a customer their own data, which the non-vacuity check below needs: hypothesis
    # draws operations in clumps (4 to 30 "memories_page" steps in eight seeded runs), so a run may draw none.
    @example(steps=[(0, 1, "tool", variant) for variant in range(4)] + [(0, 4, "tool", 1)])
    @example(steps=[(2, 2, "recall", 0), (2, 2, "memories_page", 0)])
    def check(steps) -> None:
        for actor, target, operation, variant in steps:
            output = act(actor, target, operation, variant)
            for other in range(CUSTOMERS):
                if other != actor:
                    leaked = [s for s in secrets_of(other) if s in output]
                    assert not leaked, (actor, operation, other, leaked)
            if marker(actor) in output:
                seen_own.add(operation)

    check()

    # The operations that should show a customer their own data did: the checks above were not vacuous.
    assert {"recall", "memories_page"} <= seen_own
