"""The staff console: escalated conversations waiting (oldest first), take over, reply, close, hand back; and the
shop's promises due or overdue (oldest first): done, extend, message the customer. See docs/promises.md.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from uuid import UUID

from django.contrib import messages
from django.contrib.admin.views.decorators import staff_member_required
from django.http import HttpRequest, HttpResponse, HttpResponseBadRequest
from django.shortcuts import get_object_or_404, redirect, render
from django.utils import timezone
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST, require_safe

from chat import charts, commitments, dashboard, handoff
from chat.models import Commitment, Handoff
from chat.views import AuthenticatedRequest


@staff_member_required
@require_safe
def console(request: AuthenticatedRequest) -> HttpResponse:
    mine = Handoff.objects.filter(closed_at__isnull=True, taken_by=request.user).order_by("taken_at")
    taken = Handoff.objects.filter(closed_at__isnull=True, taken_by__isnull=False).order_by("taken_at")
    context = {
        "waiting": handoff.waiting(),
        "mine": mine,
        "taken": taken,
        "promises": commitments.due_list(),
        "staff_strings": _staff_strings(),
    }
    return render(request, "staff/console.html", context)


@staff_member_required
@require_safe
def conversation(request: HttpRequest, conversation_id: UUID) -> HttpResponse:
    item = get_object_or_404(Handoff, conversation_id=conversation_id)
    lines, state = handoff.transcript(conversation_id)
    context = {"handoff": item, "transcript": lines, "state": state, "staff_strings": _staff_strings()}
    return render(request, "staff/conversation.html", context)


@staff_member_required
@require_safe
def dashboard_page(request: HttpRequest) -> HttpResponse:
    """The memory system at a glance: charts over the last 7, 30 or 90 days (``?days=``), each with its numbers."""
    days = {str(period): period for period in dashboard.PERIODS}.get(request.GET.get("days", "30"))
    if days is None:
        return HttpResponseBadRequest(_("days must be one of 7, 30 or 90"))
    board = dashboard.build(days)
    drawn = [(chart, charts.svg(chart)) for chart in board.charts]
    return render(request, "staff/dashboard.html", {"board": board, "charts": drawn, "periods": dashboard.PERIODS})


def _staff_strings() -> dict[str, str]:
    """The live console's words in the staff member's language (staff.js)."""
    return {
        "waiting": _("waiting %(minutes)s min"),
        "held_by": _("held by %(name)s"),
        "nobody_waiting": _("nobody is waiting"),
        "none": _("none"),
    }


@staff_member_required
@require_POST
def act(request: AuthenticatedRequest, conversation_id: UUID, action: str) -> HttpResponse:
    actions: dict[str, Callable[[], object]] = {
        "take": lambda: handoff.take(conversation_id, request.user),
        "reply": lambda: handoff.reply(conversation_id, request.user, request.POST.get("text", "")),
        "close": lambda: handoff.close(conversation_id, request.user, request.POST.get("resolution", "")),
        "hand-back": lambda: handoff.hand_back(conversation_id, request.user),
    }
    if action not in actions:
        return HttpResponse(status=404)
    try:
        actions[action]()
    except (handoff.HandoffError, Handoff.DoesNotExist) as exc:
        messages.error(request, str(exc) or "no open handoff")
    if action in ("close", "hand-back"):
        return redirect("staff-console")
    return redirect("staff-conversation", conversation_id=conversation_id)


@staff_member_required
@require_POST
def promise(request: AuthenticatedRequest, commitment_id: int, action: str) -> HttpResponse:
    """Keep (done), extend (a new due time, the customer hears of it next visit) or message the customer."""
    item = get_object_or_404(Commitment, pk=commitment_id)
    actor = f"staff:{request.user.get_username()}"
    try:
        if action == "done":
            if not commitments.happen(item, "done", actor=actor, status=Commitment.Status.DONE):
                messages.error(request, "that promise is already closed")
        elif action == "extend":
            commitments.extend(item, _due(request.POST.get("due_at", "")), actor)
        elif action == "message":
            commitments.message_customer(item, request.user, request.POST.get("text", ""))
        else:
            return HttpResponse(status=404)
    except ValueError as exc:
        messages.error(request, str(exc))
    return redirect("staff-console")


def _due(text: str) -> datetime:
    """A due time from the console's ``datetime-local`` field, in the site's time zone."""
    try:
        value = datetime.fromisoformat(text.strip())
    except ValueError:
        raise ValueError("a new due time looks like 2026-12-24T18:00") from None
    return timezone.make_aware(value) if timezone.is_naive(value) else value
