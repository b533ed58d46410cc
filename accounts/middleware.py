from collections.abc import Callable

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import SESSION_KEY, logout
from django.contrib.messages.storage import default_storage
from django.core.exceptions import ValidationError
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect, JsonResponse
from django.shortcuts import resolve_url
from django.urls import NoReverseMatch, reverse
from django.utils import translation
from django.utils.translation import gettext as _

from . import bot_accounts
from .forms import ban_message
from .models import User


class BearerTokenMiddleware:
    """A request with `Authorization: Bearer` is a bot's (docs/bot-api.md): refused (403) on any
    page but the bot API's, and on the API read without cookies, so that no session signs it
    in or is made for it; the API's views sign it in by its token."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        scheme = request.headers.get("Authorization", "").strip().partition(" ")[0]
        if scheme.lower() != "bearer":
            return self.get_response(request)
        if not request.path_info.startswith(bot_accounts.API_PATH):
            return JsonResponse(
                {
                    "error": "token_not_here",
                    "message": _("Los tokens de bot solo sirven para la API de bots."),
                },
                status=403,
            )
        request.META.pop("HTTP_COOKIE", None)
        request.COOKIES = {}
        return self.get_response(request)


class ActiveAccountMiddleware:
    """Log out a player whose account was banned or deactivated while signed in.

    `ActiveAccountBackend` already refuses such accounts when the session is read, so they show
    up here as anonymous requests whose session still names a user. Left alone, the session would
    come back to life when a temporary ban ends; instead it is ended now and the player is sent to
    the log-in page, which tells them why.
    """

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        account = self._suspended_account(request)
        if account is not None:
            logout(request)
            return self._goodbye(request, account)
        return self.get_response(request)

    @staticmethod
    def _suspended_account(request: HttpRequest) -> User | None:
        user = request.user
        if user.is_authenticated:
            return None if user.may_play else user
        if not hasattr(request, "session") or SESSION_KEY not in request.session:
            return None
        try:
            user_id = User._meta.pk.to_python(request.session[SESSION_KEY])
        except ValidationError:
            return None
        account = User.objects.filter(pk=user_id).first()
        if account is None:
            logout(request)  # the account is gone: just drop the stale session
            return None
        return None if account.may_play else account

    @staticmethod
    def _goodbye(request: HttpRequest, account: User) -> HttpResponse:
        if account.is_banned:
            text = _("Tu cuenta está suspendida. Se ha cerrado tu sesión.")
            text += " " + ban_message(account)
        else:
            text = _("Tu cuenta está desactivada. Se ha cerrado tu sesión.")
        login_url = resolve_url(settings.LOGIN_URL)
        if request.headers.get("HX-Request"):
            response = HttpResponse(status=204)
            response["HX-Redirect"] = login_url
        else:
            response = HttpResponseRedirect(login_url)
        # MessageMiddleware runs after this one and never sees this request, so the message is
        # stored directly for the log-in page to show.
        storage = default_storage(request)
        storage.add(messages.ERROR, text)
        storage.update(response)
        return response


class UserLanguageMiddleware:
    """A signed-in player's chosen language wins over the browser's.

    Switching language with the site header (Django's `set_language`) also saves the choice on
    the account, so it sticks.
    """

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        user = getattr(request, "user", None)
        if user is not None and user.is_authenticated and user.language:
            translation.activate(user.language)
            request.LANGUAGE_CODE = translation.get_language()
        response = self.get_response(request)
        if user is not None and user.is_authenticated and self._is_set_language(request):
            self._save_switched_language(user, response)
        return response

    @staticmethod
    def _is_set_language(request: HttpRequest) -> bool:
        if request.method != "POST":
            return False
        try:
            return request.path_info == reverse("set_language")
        except NoReverseMatch:
            return False

    @staticmethod
    def _save_switched_language(user: User, response: HttpResponse) -> None:
        cookie = response.cookies.get(settings.LANGUAGE_COOKIE_NAME)
        if cookie is None:
            return
        language = cookie.value
        if language in dict(settings.LANGUAGES) and language != user.language:
            user.language = language
            user.save(update_fields=["language"])
