"""Read-only admin views of short-term memory's durable copy: transcripts and state transitions.

Conversations flagged by loop detection come first. Both lists filter by customer (and the
transitions by conversation: follow the link from a conversation, or pass
``?conversation__id__exact=<uuid>``).
"""

from __future__ import annotations

from django.contrib import admin
from django.urls import reverse
from django.utils.html import format_html

from memory.models import CompressionSummary, Conversation, ConversationMessage, StateTransition


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
