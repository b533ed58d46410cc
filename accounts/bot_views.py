"""«Mis bots» (`/cuentas/bots/`): a player's bot accounts and their API tokens
(`accounts.bot_accounts`, docs/bot-api.md)."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from . import bot_accounts
from .models import BotToken, User

#: How long a new token lasts when its owner chooses (days); empty: until revoked.
TOKEN_DAYS = (30, 90, 365)


def _page(
    request: HttpRequest, new_token: str | None = None, for_bot: User | None = None
) -> HttpResponse:
    bots = list(
        User.objects.filter(bot_owner=request.user).prefetch_related("bot_tokens").order_by("pk")
    )
    return render(
        request,
        "accounts/bots.html",
        {"bots": bots, "new_token": new_token, "for_bot": for_bot, "token_days": TOKEN_DAYS},
    )


@login_required
def bot_list(request: HttpRequest) -> HttpResponse:
    return _page(request)


@login_required
@require_POST
def create_bot(request: HttpRequest) -> HttpResponse:
    try:
        bot = bot_accounts.create_bot_account(request.user, request.POST.get("username", ""))
    except bot_accounts.Refused as exc:
        messages.error(request, str(exc.message))
    else:
        messages.success(request, _("Cuenta de bot «%(name)s» creada.") % {"name": bot.username})
    return redirect("accounts:bots")


@login_required
@require_POST
def create_token(request: HttpRequest, username: str) -> HttpResponse:
    """A new token, shown on this one answer and never again."""
    bot = get_object_or_404(User, bot_owner=request.user, username=username)
    days = request.POST.get("days", "")
    try:
        _token, raw = bot_accounts.issue_token(
            bot,
            request.POST.get("name", "").strip(),
            int(days) if days.isdigit() and int(days) in TOKEN_DAYS else None,
        )
    except bot_accounts.Refused as exc:
        messages.error(request, str(exc.message))
        return redirect("accounts:bots")
    response = _page(request, raw, bot)
    response["Cache-Control"] = "no-store"
    return response


@login_required
@require_POST
def revoke_token(request: HttpRequest, token_id: int) -> HttpResponse:
    tokens = BotToken.objects.filter(pk=token_id, user__bot_owner=request.user)
    if bot_accounts.revoke(tokens):
        messages.success(request, _("Token revocado: ya no sirve para nada."))
    return redirect("accounts:bots")
