"""The language of the customer's pages when their browser names none: their profile's, the language the agent
speaks to them. A language cookie (the page's switcher) or an Accept-Language header still decides."""

from __future__ import annotations

from collections.abc import Callable

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.utils import translation

from chat.models import CustomerProfile


class ProfileLanguageMiddleware:
    """After ``LocaleMiddleware`` and authentication: a logged-in customer's pages in their profile's language
    when the request names no language of its own (LocaleMiddleware's fallback would be English)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        named = settings.LANGUAGE_COOKIE_NAME in request.COOKIES or request.META.get("HTTP_ACCEPT_LANGUAGE", "").strip()
        if not named and request.user.is_authenticated:
            profile = CustomerProfile.objects.filter(user_id=request.user.pk).values_list("language", flat=True).first()
            if profile and translation.check_for_language(profile):
                translation.activate(profile)
                request.LANGUAGE_CODE = translation.get_language()
        return self.get_response(request)
