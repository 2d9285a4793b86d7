"""The staff console: escalated conversations waiting (oldest first), take over, reply, close, hand back."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.admin.views.decorators import staff_member_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_POST, require_safe

from chat import handoff
from chat.models import Handoff


@staff_member_required
@require_safe
def console(request: HttpRequest) -> HttpResponse:
    mine = Handoff.objects.filter(closed_at__isnull=True, taken_by=request.user).order_by("taken_at")
    return render(request, "staff/console.html", {"waiting": handoff.waiting(), "mine": mine})


@staff_member_required
@require_safe
def conversation(request: HttpRequest, conversation_id) -> HttpResponse:
    item = get_object_or_404(Handoff, conversation_id=conversation_id)
    lines, state = handoff.transcript(conversation_id)
    return render(request, "staff/conversation.html", {"handoff": item, "transcript": lines, "state": state})


@staff_member_required
@require_POST
def act(request: HttpRequest, conversation_id, action: str) -> HttpResponse:
    actions = {
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
