"""Read-only admin views: transcripts, state transitions, long-term memories and their events.

Conversations flagged by loop detection come first. Both lists filter by customer (and the
transitions by conversation: follow the link from a conversation, or pass
``?conversation__id__exact=<uuid>``).
"""

from __future__ import annotations

from django.contrib import admin
from django.urls import reverse
from django.utils.html import format_html, format_html_join

from memory.models import (
    CompressionSummary,
    Conversation,
    ConversationMessage,
    LongTermMemory,
    MemoryEvent,
    StateTransition,
)


class ReadOnlyMixin:
    def has_add_permission(self, request, obj=None) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False


class MessageInline(ReadOnlyMixin, admin.TabularInline):
    model = ConversationMessage
    fields = ("seq", "role", "content", "token_count", "created_at", "metadata")
    readonly_fields = fields
    ordering = ("seq",)
    extra = 0
    can_delete = False


class SummaryInline(ReadOnlyMixin, admin.TabularInline):
    model = CompressionSummary
    fields = ("first_seq", "last_seq", "content", "tokens_before", "tokens_after", "created_at")
    readonly_fields = fields
    ordering = ("first_seq",)
    extra = 0
    can_delete = False


@admin.register(Conversation)
class ConversationAdmin(ReadOnlyMixin, admin.ModelAdmin):
    list_display = ("id", "customer", "state", "loop_flagged", "last_seq", "updated_at", "transitions_link")
    list_filter = ("loop_flagged", "state", ("customer", admin.RelatedOnlyFieldListFilter))
    list_select_related = ("customer",)
    search_fields = ("=id", "customer__username", "customer__email")
    ordering = ("-loop_flagged", "-updated_at")
    readonly_fields = (
        "id", "customer", "state", "collected_info", "created_at", "updated_at", "ended_at",
        "last_seq", "version", "consolidated_seq", "loop_flagged",
    )  # fmt: skip
    inlines = (SummaryInline, MessageInline)

    @admin.display(description="transitions")
    def transitions_link(self, obj: Conversation) -> str:
        url = reverse("admin:memory_statetransition_changelist") + f"?conversation__id__exact={obj.id}"
        return format_html('<a href="{}">transitions</a>', url)


@admin.register(StateTransition)
class StateTransitionAdmin(ReadOnlyMixin, admin.ModelAdmin):
    list_display = ("created_at", "conversation", "customer", "from_state", "to_state", "progress", "reason")
    list_filter = (
        "conversation__loop_flagged",
        "to_state",
        ("customer", admin.RelatedOnlyFieldListFilter),
    )
    list_select_related = ("customer", "conversation")
    search_fields = ("=conversation__id", "customer__username", "reason")
    ordering = ("-conversation__loop_flagged", "conversation", "id")

    def lookup_allowed(self, lookup: str, value: str, request=None) -> bool:
        # Filtering by one conversation comes from the link on the conversation's row.
        if lookup == "conversation__id__exact":
            return True
        return super().lookup_allowed(lookup, value, request)


class ConfidenceBand(admin.SimpleListFilter):
    title = "confidence"
    parameter_name = "band"
    BANDS = {"confirmed": (0.9, 1.01), "reference": (0.7, 0.9), "unconfirmed": (0.0, 0.7)}

    def lookups(self, request, model_admin):
        return [("confirmed", "> 0.9 confirmed"), ("reference", "0.7-0.9 reference"), ("unconfirmed", "< 0.7")]

    def queryset(self, request, queryset):
        if self.value() in self.BANDS:
            low, high = self.BANDS[self.value()]
            return queryset.filter(confidence__gte=low, confidence__lt=high)
        return queryset


class Validity(admin.SimpleListFilter):
    title = "validity"
    parameter_name = "validity"

    def lookups(self, request, model_admin):
        return [("valid", "valid"), ("invalidated", "invalidated"), ("archived", "archived")]

    def queryset(self, request, queryset):
        if self.value() == "valid":
            return queryset.filter(invalidated_at__isnull=True, archived_at__isnull=True)
        if self.value() == "invalidated":
            return queryset.filter(invalidated_at__isnull=False)
        if self.value() == "archived":
            return queryset.filter(archived_at__isnull=False)
        return queryset


@admin.register(LongTermMemory)
class LongTermMemoryAdmin(ReadOnlyMixin, admin.ModelAdmin):
    list_display = ("content", "customer", "type", "key", "value", "source", "confidence", "is_valid", "created_at")
    list_filter = (
        ("customer", admin.RelatedOnlyFieldListFilter), "type", "key", "source", Validity, ConfidenceBand,
    )  # fmt: skip
    list_select_related = ("customer",)
    search_fields = ("content", "value", "customer__username")
    ordering = ("-created_at",)
    exclude = ("embedding",)
    readonly_fields = (
        "customer", "type", "key", "value", "content", "embedding_model", "source", "source_conversation",
        "confidence", "created_at", "updated_at", "access_count", "last_accessed_at", "decay_steps", "expires_at",
        "archived_at", "metadata", "version", "content_hash", "valid_from", "invalidated_at", "superseded_by",
        "history",
    )  # fmt: skip

    @admin.display(boolean=True, description="valid")
    def is_valid(self, obj: LongTermMemory) -> bool:
        return obj.is_valid

    @admin.display(description="event history")
    def history(self, obj: LongTermMemory) -> str:
        events = MemoryEvent.objects.filter(customer_id=obj.customer_id, memory_id=obj.pk).order_by("created_at")
        rows = format_html_join(
            "", "<tr><td>{}</td><td>{}</td><td>{}</td><td>v{}</td><td>{}</td><td>{}</td></tr>",
            ((e.created_at, e.action, e.actor, e.version, e.old, e.new) for e in events),
        )  # fmt: skip
        return format_html("<table><tr><th>when</th><th>what</th><th>who</th><th>version</th>"
                           "<th>old</th><th>new</th></tr>{}</table>", rows)  # fmt: skip


@admin.register(MemoryEvent)
class MemoryEventAdmin(ReadOnlyMixin, admin.ModelAdmin):
    list_display = ("created_at", "action", "memory_id", "customer", "actor", "version")
    list_filter = ("action", ("customer", admin.RelatedOnlyFieldListFilter))
    list_select_related = ("customer",)
    search_fields = ("=memory_id", "actor", "customer__username")
    ordering = ("-created_at",)
