"""Admin of the demo shop: policy articles are edited here (embedded on save); orders are read-only."""

from django.contrib import admin

from chat.models import (
    CustomerProfile,
    Order,
    OrderItem,
    OutboxMessage,
    PendingAction,
    PolicyArticle,
    Refund,
    Shipment,
    TrackingEvent,
)


@admin.register(PolicyArticle)
class PolicyArticleAdmin(admin.ModelAdmin):
    list_display = ("id", "title", "slug", "language", "updated_at")
    list_filter = ("language",)
    search_fields = ("title", "body", "slug")
    fields = ("slug", "language", "title", "body", "updated_at")
    readonly_fields = ("updated_at",)


class ReadOnly(admin.ModelAdmin):
    def has_add_permission(self, request, obj=None) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False


class ItemInline(admin.TabularInline):
    model = OrderItem
    extra = 0
    can_delete = False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_add_permission(self, request, obj=None) -> bool:
        return False


@admin.register(Order)
class OrderAdmin(ReadOnly):
    list_display = ("number", "customer", "status", "placed_at", "total", "currency")
    list_filter = ("status", ("customer", admin.RelatedOnlyFieldListFilter))
    search_fields = ("number", "customer__username")
    inlines = (ItemInline,)


@admin.register(Shipment)
class ShipmentAdmin(ReadOnly):
    list_display = ("order", "carrier", "tracking_number", "status", "eta")


@admin.register(TrackingEvent)
class TrackingEventAdmin(ReadOnly):
    list_display = ("shipment", "time", "location", "description")


@admin.register(Refund)
class RefundAdmin(ReadOnly):
    list_display = ("order", "amount", "status", "requested_at", "reason")
    list_filter = ("status",)


@admin.register(CustomerProfile)
class CustomerProfileAdmin(ReadOnly):
    list_display = (
        "user",
        "display_name",
        "language",
        "notification_preference",
        "contact_channel",
        "default_address",
    )


@admin.register(PendingAction)
class PendingActionAdmin(ReadOnly):
    list_display = ("created_at", "tool", "status", "customer", "summary")
    list_filter = ("status", "tool")


@admin.register(OutboxMessage)
class OutboxMessageAdmin(ReadOnly):
    """What the shop told customers: notices of a changed address or contact channel (the demo sends nothing)."""

    list_display = ("created_at", "customer", "channel", "destination", "subject")
    list_filter = ("channel", ("customer", admin.RelatedOnlyFieldListFilter))
    search_fields = ("customer__username", "destination", "subject")
