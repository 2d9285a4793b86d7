"""The customer's pages: log in, the chat page, what we remember about you, rating a conversation. Each view
checks who is asking and calls one function or form; the chat itself runs over the websocket. See
docs/protocol.md.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, TypedDict
from uuid import UUID

from django.conf import settings
from django.contrib import admin, messages
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_required
from django.contrib.auth.models import User
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseBase, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_GET, require_POST

from agentsite import clock, llm
from chat import demo_data
from chat.forms import KEY_LABELS, SOURCE_LABELS, TAG_LABELS, CorrectMemoryForm, RatingForm, not_correctable, shown
from chat.models import ConversationRating
from memory import longterm, provenance
from memory.models import Conversation, LongTermMemory, MemoryConflict, MemoryType, tag_of
from memory.provenance import Quote

if TYPE_CHECKING:
    from django_stubs_ext import StrOrPromise


class AuthenticatedRequest(HttpRequest):
    """A request to a view behind ``login_required`` or ``staff_member_required``: someone is logged in."""

    user: User


class MemoryRow(TypedDict):
    """One memory as the memory page shows it, with its correction form."""

    memory: LongTermMemory
    shown: str  # its text as the customer reads it (forms.shown)
    about: StrOrPromise
    source: StrOrPromise
    tag: StrOrPromise
    quote: Quote | None
    form: CorrectMemoryForm
    correctable: bool  # a recap or the shop's own record is deleted, never rewritten (forms.not_correctable)


class RecappedConversation(TypedDict):
    """A recapped conversation on the memory page: its recap's row and the memories learned in it."""

    recap: MemoryRow
    learned: list[MemoryRow]


class CustomerLoginView(auth_views.LoginView):
    template_name = "registration/login.html"
    redirect_authenticated_user = True

    def get_context_data(self, **kwargs: Any) -> dict[str, Any]:
        context = super().get_context_data(**kwargs)
        context["demo_mode"] = settings.DEMO_MODE
        if settings.DEMO_MODE:
            context["demo_customers"] = [(c.username, c.display_name, c.language) for c in demo_data.CUSTOMERS]
            context["demo_password"] = demo_data.customer_password()
        context["offline_model"] = llm.uses_offline_model()
        context["model_name"] = llm.main_model()
        return context


class CustomerLogoutView(auth_views.LogoutView):
    pass


def login_locked_out(request: HttpRequest, *args: object) -> HttpResponseBase:
    """django-axes' answer to a locked-out login (``AXES_LOCKOUT_CALLABLE``): the same login page, unfilled,
    saying why, with status 429 — the admin's login for the admin, the customers' for everyone else.

    Both templates show the lockout notice when axes has marked the request (``request.axes_locked_out``).
    The page is rendered as for a GET: the refused attempt is not processed again.
    """
    request.method = "GET"
    context = {"lockout_minutes": int(settings.AXES_COOLOFF_TIME.total_seconds() // 60)}
    response: HttpResponseBase
    if request.path == reverse("admin:login"):
        response = admin.site.login(request, extra_context=context)
    else:
        response = CustomerLoginView.as_view(extra_context=context)(request)
    if hasattr(response, "render"):
        response.render()
    response.status_code = 429
    return response


def _js_strings() -> dict[str, str]:
    """The chat page's strings for chat.js, in the request's language."""
    return {
        "you": _("You"),
        "agent": _("Assistant"),
        "staff": _("Staff"),
        "staff_named": _("%(name)s (a person from our team)"),
        "connecting": _("Connecting…"),
        "connected": _("Connected"),
        "reconnecting": _("Reconnecting…"),
        "logged_out": _("You have been logged out."),
        "escalated": _("Handed over to a person"),
        "notice": _("Note"),
        "error": _("Error"),
        "no_recalled": _("Nothing recalled for the last reply."),
        "no_learned": _("Nothing learned in this conversation yet."),
        "no_promises": _("No promises of the shop are open."),
        "no_transitions": _("No transitions yet."),
        "tokens": _("%(used)s of %(max)s tokens"),
        "rate_title": _("How did we do?"),
        "rate_thanks": _("Thank you for your rating."),
        "rate_failed": _("Your rating could not be saved."),
        "star": _("%(n)s of 5"),
        "empty": _("Ask us anything about your orders, deliveries or refunds."),
        "state.greeting": _("greeting"),
        "state.collecting_info": _("collecting information"),
        "state.processing": _("processing"),
        "state.confirming": _("waiting for your confirmation"),
        "state.resolved": _("resolved"),
        "state.escalated": _("escalated"),
        "state.human": _("with a person"),
    }


@login_required
@require_GET
def chat_page(request: HttpRequest) -> HttpResponse:
    return render(
        request,
        "chat/chat.html",
        {"js_strings": _js_strings(), "offline_model": llm.uses_offline_model(), "model_name": llm.main_model()},
    )


RECAP_LABEL = gettext_lazy("our recap of the conversation")


def _mine(request: AuthenticatedRequest, pk: int) -> LongTermMemory:
    memory: LongTermMemory = get_object_or_404(LongTermMemory.objects.valid(), pk=pk, customer=request.user)
    return memory


def _memory_rows(request: AuthenticatedRequest, failed: tuple[int, CorrectMemoryForm] | None = None) -> list[MemoryRow]:
    memories = list(LongTermMemory.objects.valid().filter(customer=request.user).order_by("key", "-created_at"))
    disputed = set(
        MemoryConflict.objects.filter(customer=request.user, status=MemoryConflict.Status.OPEN).values_list(
            "existing_id", flat=True
        )
    )
    said = provenance.quotes(memories)
    rows: list[MemoryRow] = []
    for memory in memories:
        form = failed[1] if failed and failed[0] == memory.pk else CorrectMemoryForm(memory=memory)
        tag = tag_of(memory.source, memory.confidence, memory.pk in disputed, memory.key)
        rows.append(
            {
                "memory": memory,
                "shown": shown(memory, tag),
                "about": KEY_LABELS.get(memory.key, ""),
                "source": RECAP_LABEL
                if memory.type == MemoryType.SUMMARY
                else SOURCE_LABELS.get(memory.source, memory.source),
                "tag": TAG_LABELS[tag],
                "quote": said.get(memory.pk),
                "form": form,
                "correctable": not_correctable(memory) is None,
            }
        )
    return rows


def _by_conversation(rows: list[MemoryRow]) -> tuple[list[MemoryRow], list[RecappedConversation]]:
    """The rows as the page shows them: memories that belong to no recapped conversation, then each recapped
    conversation ("our conversation on <date>"), newest first, with the memories learned in it."""
    recaps = [row for row in rows if row["memory"].type == MemoryType.SUMMARY]
    learned: dict[UUID | None, list[MemoryRow]] = {
        row["memory"].source_conversation_id: [] for row in recaps if row["memory"].source_conversation_id
    }
    loose: list[MemoryRow] = []
    for row in rows:
        memory = row["memory"]
        if memory.type == MemoryType.SUMMARY:
            continue
        learned.get(memory.source_conversation_id, loose).append(row)
    # Every recap is listed, one without a conversation too: the page shows everything the assistant may recall.
    conversations = [
        RecappedConversation(recap=recap, learned=learned.pop(recap["memory"].source_conversation_id, []))
        for recap in recaps
    ]
    conversations.sort(key=lambda c: c["recap"]["memory"].created_at, reverse=True)
    return loose, conversations


def _memories_context(
    request: AuthenticatedRequest, failed: tuple[int, CorrectMemoryForm] | None = None
) -> dict[str, object]:
    rows = _memory_rows(request, failed)
    loose, conversations = _by_conversation(rows)
    return {"rows": rows, "loose": loose, "conversations": conversations}


@login_required
@require_GET
def memories_page(request: AuthenticatedRequest) -> HttpResponse:
    return render(request, "chat/memories.html", _memories_context(request))


@login_required
@require_POST
def correct_memory(request: AuthenticatedRequest, pk: int) -> HttpResponse:
    memory = _mine(request, pk)
    form = CorrectMemoryForm(request.POST, memory=memory)
    if not form.is_valid():
        return render(request, "chat/memories.html", _memories_context(request, (pk, form)), status=400)
    try:
        form.save()
    except LongTermMemory.DoesNotExist:  # changed or deleted since the page was loaded
        raise Http404 from None
    if form.changes_the_shop:
        messages.success(
            request,
            _(
                "Your change is with our team. Until it is applied, our records stay as they are; "
                "you can also ask the assistant in chat to change it."
            ),
        )
    else:
        messages.success(request, _("Corrected. We will use the new version from now on."))
    return redirect("memories")


@login_required
@require_POST
def delete_memory(request: AuthenticatedRequest, pk: int) -> HttpResponse:
    memory = _mine(request, pk)
    longterm.delete_memory(memory, actor="customer", reason="customer deleted it")
    messages.success(request, _("Deleted. We no longer remember it."))
    return redirect("memories")


@login_required
@require_POST
def rate_conversation(request: AuthenticatedRequest) -> JsonResponse:
    """Store the customer's 1-5 rating of one of their own conversations (JSON body; CSRF header)."""
    try:
        payload = json.loads(request.body or b"{}")
    except (ValueError, RecursionError):  # json gives up on deeply nested input with a RecursionError
        return JsonResponse({"error": "bad_json"}, status=400)
    form = RatingForm(payload if isinstance(payload, dict) else {})
    if not form.is_valid():
        return JsonResponse({"error": "invalid", "fields": list(form.errors)}, status=400)
    conversation = Conversation.objects.filter(pk=form.cleaned_data["conversation_id"], customer=request.user).first()
    if conversation is None:
        return JsonResponse({"error": "not_found"}, status=404)
    rating, _created = ConversationRating.objects.update_or_create(
        conversation=conversation,
        defaults={
            "score": form.cleaned_data["score"],
            "comment": form.cleaned_data["comment"],
            "created_at": clock.now(),
        },
    )
    return JsonResponse({"score": rating.score})
