"""The project's admin site: Django's, with admin actions that refuse a selection of ids that cannot exist.
Django filters an action's queryset by the posted ids as they came, so a forged form with ids of the wrong
kind (``_selected_action=abc``) would raise a ValueError, a 500, in every model's admin; every admin
registered on this site gets the check.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.contrib import admin
from django.contrib.admin import helpers
from django.core.exceptions import BadRequest, ValidationError
from django.db.models import Model, QuerySet
from django.http import HttpRequest, HttpResponse


class CheckedSelection(admin.ModelAdmin[Any]):
    """Mixed into a ModelAdmin: an action posted with ids that are not ids of its model is a bad request (400)."""

    def response_action(self, request: HttpRequest, queryset: QuerySet[Any]) -> HttpResponse | None:
        pk = self.model._meta.pk
        try:
            for value in request.POST.getlist(helpers.ACTION_CHECKBOX_NAME):
                pk.to_python(value)
        except ValidationError:
            raise BadRequest("the selection holds something that is not an id of this model") from None
        return super().response_action(request, queryset)


class AgentAdminSite(admin.AdminSite):
    def register(
        self,
        model_or_iterable: type[Model] | Iterable[type[Model]],
        admin_class: type[admin.ModelAdmin[Any]] | None = None,
        **options: Any,
    ) -> None:
        admin_class = admin_class or admin.ModelAdmin
        checked = type(admin_class.__name__, (CheckedSelection, admin_class), {"__module__": admin_class.__module__})
        super().register(model_or_iterable, checked, **options)
