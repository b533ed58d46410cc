from collections.abc import Callable

from django.contrib import messages
from django.contrib.auth import logout
from django.http import HttpRequest, HttpResponse
from django.utils import translation
from django.utils.translation import gettext as _


class ActiveAccountMiddleware:
    """Log out a player whose account was banned or deactivated while signed in."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        user = request.user
        if user.is_authenticated and (not user.is_active or user.is_banned):
            logout(request)
            messages.error(request, _("Tu cuenta está suspendida. Se ha cerrado tu sesión."))
        return self.get_response(request)


class UserLanguageMiddleware:
    """A signed-in player's chosen language wins over the browser's."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        user = getattr(request, "user", None)
        if user is not None and user.is_authenticated and user.language:
            translation.activate(user.language)
            request.LANGUAGE_CODE = translation.get_language()
        return self.get_response(request)
