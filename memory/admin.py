"""Staff pages over both memory tiers' PostgreSQL rows: read-only transcripts, state transitions, long-term
memories and their events, and the queue of conflicts staff resolve. They show the rows as stored, for as long
as the rows live; loop-flagged conversations come first. See docs/session.md and docs/longterm.md ("Admin").
"""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import cast

from django import forms
from django.contrib import admin
from django.db.models import Case, IntegerField, Model, QuerySet, When
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect
from django.template.response import TemplateResponse
from django.urls import URLPattern, path, reverse
from django.utils.html import format_html, format_html_join

from memory import provenance
from memory.longterm import CannotResolve, ConflictAction, resolve_conflict
from memory.models import (
    CompressionSummary,
    Conversation,
    ConversationMessage,
    LongTermMemory,
    LongTermMemoryQuerySet,
    MemoryConflict,
    MemoryEvent,
    StateTransition,
    Tag,
)


class ReadOnlyMixin:
    def has_add_permission(self, request: HttpRequest, obj: Model | None = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Model | None = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Model | None = None) -> bool:
        return False


class MessageInline(ReadOnlyMixin, admin.TabularInline[ConversationMessage, Conversation]):
    model = ConversationMessage
    fields = ("seq", "role", "content", "token_count", "created_at", "metadata")
    readonly_fields = fields
    ordering = ("seq",)
    extra = 0
    can_delete = False


class SummaryInline(ReadOnlyMixin, admin.TabularInline[CompressionSummary, Conversation]):
    model = CompressionSummary
    fields = ("first_seq", "last_seq", "content", "tokens_before", "tokens_after", "created_at")
    readonly_fields = fields
    ordering = ("first_seq",)
    extra = 0
    can_delete = False


@admin.register(Conversation)
class ConversationAdmin(ReadOnlyMixin, admin.ModelAdmin[Conversation]):
    list_display = ("id", "customer", "state", "loop_flagged", "last_seq", "updated_at", "transitions_link")
    list_filter = ("loop_flagged", "state", ("customer", admin.RelatedOnlyFieldListFilter))
    list_select_related = ("customer",)
    search_fields = ("=id", "customer__username", "customer__email")
    ordering = ("-loop_flagged", "-updated_at")
    readonly_fields = (
        "id",
        "customer",
        "state",
        "collected_info",
        "created_at",
        "updated_at",
        "ended_at",
        "last_seq",
        "version",
        "consolidated_seq",
        "loop_flagged",
    )
    inlines = (SummaryInline, MessageInline)

    @admin.display(description="transitions")
    def transitions_link(self, obj: Conversation) -> str:
        url = reverse("admin:memory_statetransition_changelist") + f"?conversation__id__exact={obj.id}"
        return format_html('<a href="{}">transitions</a>', url)


@admin.register(StateTransition)
class StateTransitionAdmin(ReadOnlyMixin, admin.ModelAdmin[StateTransition]):
    list_display = ("created_at", "conversation", "customer", "from_state", "to_state", "progress", "reason")
    list_filter = (
        "conversation__loop_flagged",
        "to_state",
        ("customer", admin.RelatedOnlyFieldListFilter),
    )
    list_select_related = ("customer", "conversation")
    search_fields = ("=conversation__id", "customer__username", "reason")
    ordering = ("-conversation__loop_flagged", "conversation", "id")

    def lookup_allowed(self, lookup: str, value: str, request: HttpRequest | None = None) -> bool:
        # Filtering by one conversation comes from the link on the conversation's row.
        if lookup == "conversation__id__exact":
            return True
        return super().lookup_allowed(lookup, value, request)


class ConfidenceBand(admin.SimpleListFilter):
    """The tags the prompt shows, by the one definition (``memory.models.Tag``)."""

    title = "tag"
    parameter_name = "band"

    def lookups(self, request: HttpRequest, model_admin: admin.ModelAdmin[LongTermMemory]) -> list[tuple[str, str]]:
        return [
            (Tag.CONFIRMED, "confirmed (shop record)"),
            (Tag.REQUESTED, "requested (a shop-owned value the customer asked for)"),
            (Tag.REFERENCE, "reference (stated or inferred)"),
            (Tag.UNCONFIRMED, "unconfirmed (low confidence)"),
        ]

    def queryset(self, request: HttpRequest, queryset: QuerySet[LongTermMemory]) -> QuerySet[LongTermMemory]:
        band = self.value()
        if band in (Tag.CONFIRMED, Tag.REQUESTED, Tag.REFERENCE, Tag.UNCONFIRMED):
            # The changelist's rows come from LongTermMemory.objects, whose QuerySet is this one.
            return cast(LongTermMemoryQuerySet, queryset).tagged(band)
        return queryset


class Validity(admin.SimpleListFilter):
    title = "validity"
    parameter_name = "validity"

    def lookups(self, request: HttpRequest, model_admin: admin.ModelAdmin[LongTermMemory]) -> list[tuple[str, str]]:
        return [("valid", "valid"), ("invalidated", "invalidated"), ("archived", "archived")]

    def queryset(self, request: HttpRequest, queryset: QuerySet[LongTermMemory]) -> QuerySet[LongTermMemory]:
        if self.value() == "valid":
            return queryset.filter(invalidated_at__isnull=True, archived_at__isnull=True)
        if self.value() == "invalidated":
            return queryset.filter(invalidated_at__isnull=False)
        if self.value() == "archived":
            return queryset.filter(archived_at__isnull=False)
        return queryset


@admin.register(LongTermMemory)
class LongTermMemoryAdmin(ReadOnlyMixin, admin.ModelAdmin[LongTermMemory]):
    list_display = ("content", "customer", "type", "key", "value", "source", "confidence", "is_valid", "created_at")
    list_filter = (
        ("customer", admin.RelatedOnlyFieldListFilter),
        "type",
        "key",
        "source",
        Validity,
        ConfidenceBand,
    )
    list_select_related = ("customer",)
    search_fields = ("content", "value", "customer__username")
    ordering = ("-created_at",)
    exclude = ("embedding",)
    readonly_fields = (
        "customer",
        "type",
        "key",
        "value",
        "content",
        "embedding_model",
        "source",
        "source_conversation",
        "said",
        "confidence",
        "created_at",
        "updated_at",
        "access_count",
        "last_accessed_at",
        "decay_steps",
        "expires_at",
        "archived_at",
        "metadata",
        "version",
        "content_hash",
        "valid_from",
        "invalidated_at",
        "superseded_by",
        "history",
    )

    @admin.display(boolean=True, description="valid")
    def is_valid(self, obj: LongTermMemory) -> bool:
        return obj.is_valid

    @admin.display(description="taken from")
    def said(self, obj: LongTermMemory) -> str:
        return _quote_of(obj) or "—"

    @admin.display(description="event history")
    def history(self, obj: LongTermMemory) -> str:
        events = MemoryEvent.objects.filter(customer_id=obj.customer_id, memory_id=obj.pk).order_by("created_at")
        rows = format_html_join(
            "",
            "<tr><td>{}</td><td>{}</td><td>{}</td><td>v{}</td><td>{}</td><td>{}</td></tr>",
            ((e.created_at, e.action, e.actor, e.version, e.old, e.new) for e in events),
        )
        return format_html(
            "<table><tr><th>when</th><th>what</th><th>who</th><th>version</th><th>old</th><th>new</th></tr>{}</table>",
            rows,
        )


@admin.register(MemoryEvent)
class MemoryEventAdmin(ReadOnlyMixin, admin.ModelAdmin[MemoryEvent]):
    list_display = ("created_at", "action", "memory_id", "customer", "actor", "version")
    list_filter = ("action", ("customer", admin.RelatedOnlyFieldListFilter))
    list_select_related = ("customer",)
    search_fields = ("=memory_id", "actor", "customer__username")
    ordering = ("-created_at",)


def _conversation_link(conversation_id: uuid.UUID | None) -> str:
    if not conversation_id:
        return "—"
    url = reverse("admin:memory_conversation_change", args=[conversation_id])
    return format_html('<a href="{}">transcript</a>', url)


def _quote_of(memory: LongTermMemory | None) -> str:
    """The customer's message the memory was taken from, as the customer's page shows it (``memory.provenance``)."""
    quote = provenance.quotes([memory]).get(memory.pk) if memory is not None else None
    if quote is None:
        return ""
    return format_html("from the chat on {} (message {}): «{}»", f"{quote.said_at:%Y-%m-%d}", quote.seq, quote.text)


def _side(
    content: str,
    source: str,
    confidence: float,
    when: datetime,
    conversation_id: uuid.UUID | None,
    memory: LongTermMemory | None = None,
) -> str:
    quote = _quote_of(memory)
    return format_html(
        "{}<br><small>{} · {} · {} · {}</small>{}",
        content,
        source,
        f"{confidence:.2f}",
        when,
        _conversation_link(conversation_id),
        format_html("<br><small>{}</small>", quote) if quote else "",
    )


def _resolve_each(
    modeladmin: MemoryConflictAdmin, request: HttpRequest, queryset: QuerySet[MemoryConflict], action: str
) -> None:
    done = 0
    for conflict in queryset:
        try:
            resolve_conflict(conflict.pk, action, actor=f"staff:{request.user.get_username()}")
            done += 1
        except CannotResolve as exc:
            modeladmin.message_user(request, f"conflict {conflict.pk}: {exc}", level="warning")
    if done:
        modeladmin.message_user(request, f"{done} conflict(s): {action.replace('_', ' ')}")


@admin.register(MemoryConflict)
class MemoryConflictAdmin(admin.ModelAdmin[MemoryConflict]):
    """The review queue: open conflicts first, both versions side by side, actions that resolve them."""

    list_display = ("created_at", "customer", "key", "current_version", "incoming_version", "status", "resolution")
    list_filter = ("status", "reason", ("customer", admin.RelatedOnlyFieldListFilter))
    list_select_related = ("customer", "existing", "incoming")
    search_fields = ("customer__username", "key", "incoming_content")
    actions = ("keep_current", "accept_incoming", "restore_replaced", "dismiss")
    readonly_fields = [f.name for f in MemoryConflict._meta.fields]

    def get_queryset(self, request: HttpRequest) -> QuerySet[MemoryConflict]:
        open_first = Case(When(status=MemoryConflict.Status.OPEN, then=0), default=1, output_field=IntegerField())
        return super().get_queryset(request).annotate(open_first=open_first).order_by("open_first", "-created_at")

    def has_add_permission(self, request: HttpRequest, obj: Model | None = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: MemoryConflict | None = None) -> bool:
        return False

    @admin.display(description="current / replaced")
    def current_version(self, obj: MemoryConflict) -> str:
        memory = obj.existing
        if memory is None:
            return "(deleted)"
        return _side(
            memory.content,
            memory.get_source_display(),
            memory.confidence,
            memory.created_at,
            memory.source_conversation_id,
            memory,
        )

    @admin.display(description="incoming")
    def incoming_version(self, obj: MemoryConflict) -> str:
        return _side(
            obj.incoming_content,
            obj.get_incoming_source_display(),
            obj.incoming_confidence,
            obj.created_at,
            obj.incoming_conversation_id,
            obj.incoming,
        )

    @admin.action(description="Keep the current value")
    def keep_current(self, request: HttpRequest, queryset: QuerySet[MemoryConflict]) -> None:
        _resolve_each(self, request, queryset, ConflictAction.KEEP_CURRENT)

    @admin.action(description="Accept the incoming value")
    def accept_incoming(self, request: HttpRequest, queryset: QuerySet[MemoryConflict]) -> None:
        _resolve_each(self, request, queryset, ConflictAction.ACCEPT_INCOMING)

    @admin.action(description="Restore the replaced value (revert)")
    def restore_replaced(self, request: HttpRequest, queryset: QuerySet[MemoryConflict]) -> None:
        _resolve_each(self, request, queryset, ConflictAction.RESTORE)

    @admin.action(description="Dismiss without change")
    def dismiss(self, request: HttpRequest, queryset: QuerySet[MemoryConflict]) -> None:
        _resolve_each(self, request, queryset, ConflictAction.DISMISS)

    def get_urls(self) -> list[URLPattern]:
        urls = super().get_urls()
        edit = path(
            "<int:conflict_id>/edit-merge/",
            self.admin_site.admin_view(self.edit_and_merge_view),
            name="memory_memoryconflict_edit_merge",
        )
        return [edit, *urls]

    def edit_and_merge_view(self, request: HttpRequest, conflict_id: int) -> HttpResponse:
        """Staff write the value themselves; it supersedes the current memory as a system record."""
        conflict = get_object_or_404(MemoryConflict, pk=conflict_id)
        if request.method == "POST":
            form = EditMergeForm(request.POST)
            if form.is_valid():
                try:
                    resolve_conflict(
                        conflict_id,
                        ConflictAction.EDIT_AND_MERGE,
                        actor=f"staff:{request.user.get_username()}",
                        content=form.cleaned_data["content"],
                        value=form.cleaned_data["value"],
                    )
                except CannotResolve as exc:
                    form.add_error(None, str(exc))
                else:
                    self.message_user(request, f"conflict {conflict_id}: edited and merged")
                    return redirect("admin:memory_memoryconflict_changelist")
        else:
            form = EditMergeForm(initial={"content": conflict.incoming_content, "value": conflict.incoming_value})
        context = {
            **self.admin_site.each_context(request),
            "form": form,
            "conflict": conflict,
            "title": f"Edit and merge conflict {conflict_id}",
            "opts": self.model._meta,
        }
        return TemplateResponse(request, "admin/memory/edit_merge.html", context)


class EditMergeForm(forms.Form):
    content = forms.CharField(widget=forms.Textarea, max_length=500)
    value = forms.CharField(max_length=300, required=False, help_text="the normalised value, for keyed memories")
