"""The bot API's HTTP endpoints (`/api/bot/…`, docs/bot-api.md): JSON in and out, signed in by
`Authorization: Bearer <token>` only (no session, no CSRF token: a token is no ambient
credential a browser sends by itself). Playing is the table socket's (`games.consumers`).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from functools import wraps
from typing import Any

from django.http import HttpRequest, JsonResponse
from django.utils.translation import gettext_lazy as _
from django.utils.translation import override
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_GET, require_POST

from accounts import bot_accounts
from accounts.models import User

from .services import ServiceError, bot_api, bot_queue

STATUS = {"bad_token": 401, "rate_limited": 429, "no_table": 404, "unavailable": 503}

View = Callable[..., JsonResponse]


def _refusal(exc: ServiceError, language: str = "es") -> JsonResponse:
    with override(language):
        text = str(exc.message)
    response = JsonResponse({"error": exc.code, "message": text}, status=STATUS.get(exc.code, 400))
    if exc.code == "bad_token":
        response["WWW-Authenticate"] = 'Bearer realm="barajamos"'
    return response


def bot_endpoint(view: Callable[..., dict[str, Any] | list[Any]]) -> View:
    """The token's bot as the view's first argument; refusals as JSON with their code."""

    @csrf_exempt
    @wraps(view)
    def wrapped(request: HttpRequest, *args: Any, **kwargs: Any) -> JsonResponse:
        raw = bot_accounts.bearer(request.headers.get("Authorization"))
        if raw is None:
            return _refusal(bot_api.bad_token())
        try:
            bot = bot_api.admit_request(raw).user
        except ServiceError as exc:
            return _refusal(exc)
        try:
            result = view(request, bot, *args, **kwargs)
        except ServiceError as exc:
            return _refusal(exc, bot.language)
        return JsonResponse(result, safe=False)

    return wrapped


def _body(request: HttpRequest) -> dict[str, Any]:
    """The request's fields: a JSON object, or form fields."""
    if request.content_type == "application/json":
        try:
            data = json.loads(request.body or b"{}")
        except ValueError:
            data = None
        if not isinstance(data, dict):
            raise ServiceError("malformed", _("El cuerpo debe ser un objeto JSON."))
        return data
    return request.POST.dict()


@require_GET
@bot_endpoint
def account(request: HttpRequest, bot: User) -> dict[str, Any]:
    return bot_api.whoami(bot)


@require_GET
@bot_endpoint
def open_tables(request: HttpRequest, bot: User) -> list[dict[str, Any]]:
    return bot_api.open_tables()


@require_POST
@bot_endpoint
def sit(request: HttpRequest, bot: User, table_id: int) -> dict[str, Any]:
    data = _body(request)
    invitation = data.get("invitation")
    return bot_api.sit(
        bot, table_id, data.get("seat"), invitation if isinstance(invitation, str) else None
    )


@require_POST
@bot_endpoint
def stand(request: HttpRequest, bot: User, table_id: int) -> dict[str, Any]:
    bot_api.stand(bot, table_id)
    return {"ok": True}


@require_GET
@bot_endpoint
def challenges(request: HttpRequest, bot: User) -> list[dict[str, Any]]:
    return bot_api.pending_challenges(bot)


@require_POST
@bot_endpoint
def accept(request: HttpRequest, bot: User, invitation_id: int) -> dict[str, Any]:
    return bot_api.accept(bot, invitation_id)


@require_POST
@bot_endpoint
def decline(request: HttpRequest, bot: User, invitation_id: int) -> dict[str, Any]:
    bot_api.decline(bot, invitation_id)
    return {"ok": True}


@require_GET
@bot_endpoint
def quick_play(request: HttpRequest, bot: User) -> dict[str, Any]:
    return bot_api.quick_play(bot)


@require_POST
@bot_endpoint
def join_quick_play(request: HttpRequest, bot: User) -> dict[str, Any]:
    return bot_api.join_quick_play(bot, _body(request).get("mode"))


@require_POST
@bot_endpoint
def leave_quick_play(request: HttpRequest, bot: User) -> dict[str, Any]:
    """Leave the queue; once seated by it, before opening the table's socket: a dodge."""
    return {"ok": True, "left": bot_queue.leave(bot)}
