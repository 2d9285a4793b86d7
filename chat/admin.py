"""Admin of the demo shop: policy articles are edited here (embedded on save); orders, shipments and refunds
change only through the shop's own functions (``chat.fulfilment``): ship, deliver, record a return, decide a
refund. What the shop promised (commitments) is listed with its events."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from django import forms
from django.contrib import admin, messages
from django.db.models import Model, QuerySet
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import get_object_or_404, redirect
from django.template.response import TemplateResponse
from django.urls import URLPattern, path

from chat import fulfilment
from chat.models import (
    Commitment,
    CommitmentEvent,
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
from memory.keys import InvalidValue, normalise

M = TypeVar("M", bound=Model)


@admin.register(PolicyArticle)
class PolicyArticleAdmin(admin.ModelAdmin[PolicyArticle]):
    list_display = ("id", "title", "slug", "language", "updated_at")
    list_filter = ("language",)
    search_fields = ("title", "body", "slug")
    fields = ("slug", "language", "title", "body", "updated_at")
    readonly_fields = ("updated_at",)


class ReadOnly(admin.ModelAdmin[M]):
    def has_add_permission(self, request: HttpRequest, obj: M | None = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: M | None = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: M | None = None) -> bool:
        return False


class ItemInline(admin.TabularInline[OrderItem, Order]):
    model = OrderItem
    extra = 0
    can_delete = False

    # obj: the order (Django passes an inline the parent's row; BaseModelAdmin's types say the inline's own).
    def has_change_permission(self, request: HttpRequest, obj: Model | None = None) -> bool:
        return False

    def has_add_permission(self, request: HttpRequest, obj: Order | None = None) -> bool:
        return False


def _actor(request: HttpRequest) -> str:
    return f"staff:{request.user.get_username()}"


def _each(
    modeladmin: admin.ModelAdmin[M], request: HttpRequest, queryset: QuerySet[M], act: Callable[[M], object], done: str
) -> None:
    """Run ``act`` on each selected row; say what was done and what was refused, row by row."""
    changed = 0
    for row in queryset:
        try:
            act(row)
        except fulfilment.FulfilmentError as exc:
            modeladmin.message_user(request, str(exc), messages.ERROR)
        else:
            changed += 1
    if changed:
        modeladmin.message_user(request, f"{changed} {done}")


class ShipForm(forms.Form):
    carrier = forms.CharField(max_length=40, help_text="顺丰速运, 京东物流, UPS, DHL …")
    tracking_number = forms.CharField(max_length=40)


@admin.register(Order)
class OrderAdmin(ReadOnly[Order]):
    list_display = ("number", "customer", "status", "placed_at", "total", "currency")
    list_filter = ("status", ("customer", admin.RelatedOnlyFieldListFilter))
    search_fields = ("number", "customer__username")
    inlines = (ItemInline,)
    actions = ("ship", "deliver")

    def has_change_permission(self, request: HttpRequest, obj: Order | None = None) -> bool:
        # The model's change permission allows the actions below; the fields stay read-only.
        return admin.ModelAdmin.has_change_permission(self, request, obj)

    def get_readonly_fields(self, request: HttpRequest, obj: Order | None = None) -> list[str]:
        return [field.name for field in self.model._meta.fields]

    @admin.action(description="Ship the selected order (carrier and tracking number)…")
    def ship(self, request: HttpRequest, queryset: QuerySet[Order]) -> HttpResponseRedirect | None:
        if queryset.count() != 1:
            self.message_user(request, "ship one order at a time: each has its own tracking number", messages.ERROR)
            return None
        return redirect("admin:chat_order_ship", order_id=queryset.get().pk)

    @admin.action(description="Mark the selected orders delivered")
    def deliver(self, request: HttpRequest, queryset: QuerySet[Order]) -> None:
        _each(self, request, queryset, lambda order: fulfilment.deliver(order, _actor(request)), "delivered")

    def get_urls(self) -> list[URLPattern]:
        ship = path("<int:order_id>/ship/", self.admin_site.admin_view(self.ship_view), name="chat_order_ship")
        return [ship, *super().get_urls()]

    def ship_view(self, request: HttpRequest, order_id: int) -> HttpResponse:
        order = get_object_or_404(Order, pk=order_id)
        form = ShipForm(request.POST or None)
        if request.method == "POST" and form.is_valid():
            carrier, tracking = form.cleaned_data["carrier"], form.cleaned_data["tracking_number"]
            try:
                fulfilment.ship(order, carrier, tracking, _actor(request))
            except fulfilment.FulfilmentError as exc:
                form.add_error(None, str(exc))
            else:
                self.message_user(request, f"{order.number} shipped")
                return redirect("admin:chat_order_changelist")
        context = {
            **self.admin_site.each_context(request),
            "form": form,
            "order": order,
            "title": f"Ship {order.number}",
            "opts": self.model._meta,
        }
        return TemplateResponse(request, "admin/chat/ship.html", context)


@admin.register(Shipment)
class ShipmentAdmin(ReadOnly[Shipment]):
    list_display = ("order", "carrier", "tracking_number", "status", "eta")


@admin.register(TrackingEvent)
class TrackingEventAdmin(ReadOnly[TrackingEvent]):
    list_display = ("shipment", "time", "location", "description")


@admin.register(Refund)
class RefundAdmin(ReadOnly[Refund]):
    list_display = ("order", "amount", "status", "requested_at", "return_received_at", "decided_at", "reason")
    list_filter = ("status",)
    actions = ("record_return", "approve", "refuse")

    def has_change_permission(self, request: HttpRequest, obj: Refund | None = None) -> bool:
        # The model's change permission allows the actions below; the fields stay read-only.
        return admin.ModelAdmin.has_change_permission(self, request, obj)

    def get_readonly_fields(self, request: HttpRequest, obj: Refund | None = None) -> list[str]:
        return [field.name for field in self.model._meta.fields]

    @admin.action(description="Record the return of the selected refunds as received")
    def record_return(self, request: HttpRequest, queryset: QuerySet[Refund]) -> None:
        _each(self, request, queryset, lambda r: fulfilment.record_return(r, _actor(request)), "returns recorded")

    @admin.action(description="Approve the selected refunds")
    def approve(self, request: HttpRequest, queryset: QuerySet[Refund]) -> None:
        _each(self, request, queryset, lambda r: fulfilment.decide_refund(r, True, _actor(request)), "approved")

    @admin.action(description="Refuse the selected refunds")
    def refuse(self, request: HttpRequest, queryset: QuerySet[Refund]) -> None:
        _each(self, request, queryset, lambda r: fulfilment.decide_refund(r, False, _actor(request)), "refused")


class CommitmentEventInline(admin.TabularInline[CommitmentEvent, Commitment]):
    model = CommitmentEvent
    extra = 0
    can_delete = False
    readonly_fields = ("at", "kind", "actor", "detail")

    def has_add_permission(self, request: HttpRequest, obj: Commitment | None = None) -> bool:
        return False


@admin.register(Commitment)
class CommitmentAdmin(ReadOnly[Commitment]):
    """What the shop promised; staff keep or extend promises in the staff console."""

    list_display = ("created_at", "customer", "kind", "order", "status", "due_at", "outcome", "closed_by")
    list_filter = ("status", "kind")
    search_fields = ("customer__username", "order__number")
    inlines = (CommitmentEventInline,)


class CustomerProfileForm(forms.ModelForm[CustomerProfile]):
    class Meta:
        model = CustomerProfile
        fields = ("phone",)

    def clean_phone(self) -> str:
        """The number as the shop keeps it (digits, a leading +), or blank: the shop then cannot call or text."""
        value: str = self.cleaned_data["phone"].strip()
        if not value:
            return ""
        try:
            return normalise("phone_number", value)
        except InvalidValue as exc:
            raise forms.ValidationError("Enter a phone number of 6 to 15 digits (a leading + is kept).") from exc


@admin.register(CustomerProfile)
class CustomerProfileAdmin(ReadOnly[CustomerProfile]):
    """Read only, but for the account's phone number: the address, notifications and contact channel change
    through the shop, on the customer's yes (and write through to memory); no change of the agent's sets the
    phone number, so staff keep it here."""

    form = CustomerProfileForm
    list_display = (
        "user",
        "display_name",
        "language",
        "notification_preference",
        "contact_channel",
        "phone",
        "default_address",
    )
    fields = list_display
    readonly_fields = tuple(name for name in list_display if name != "phone")

    def has_change_permission(self, request: HttpRequest, obj: CustomerProfile | None = None) -> bool:
        return admin.ModelAdmin.has_change_permission(self, request, obj)


@admin.register(PendingAction)
class PendingActionAdmin(ReadOnly[PendingAction]):
    list_display = ("created_at", "tool", "status", "customer", "summary")
    list_filter = ("status", "tool")


@admin.register(OutboxMessage)
class OutboxMessageAdmin(ReadOnly[OutboxMessage]):
    """What the shop told customers: notices of a changed address or contact channel (the demo sends nothing)."""

    list_display = ("created_at", "customer", "channel", "destination", "subject")
    list_filter = ("channel", ("customer", admin.RelatedOnlyFieldListFilter))
    search_fields = ("customer__username", "destination", "subject")
