"""Following and blocking from a player's profile (`/jugadores/<username>/seguir/`…): plain form
posts that go back to the profile with a message."""

from __future__ import annotations

from collections.abc import Callable

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from . import names, relations
from .models import User


def _change(
    request: HttpRequest,
    username: str,
    call: Callable[[User, User], bool],
    done: str,
) -> HttpResponse:
    other = get_object_or_404(User, username=username, closed_at__isnull=True)
    try:
        call(request.user, other)
    except relations.RelationError as exc:
        messages.error(request, exc.message)
    else:
        messages.success(request, done % {"name": names.isolate(other.public_name)})
    return redirect("accounts:profile", other.username)


@login_required
@require_POST
def follow(request: HttpRequest, username: str) -> HttpResponse:
    return _change(request, username, relations.follow, _("Ahora sigues a %(name)s."))


@login_required
@require_POST
def unfollow(request: HttpRequest, username: str) -> HttpResponse:
    return _change(request, username, relations.unfollow, _("Ya no sigues a %(name)s."))


@login_required
@require_POST
def block(request: HttpRequest, username: str) -> HttpResponse:
    return _change(
        request,
        username,
        relations.block,
        _("Has bloqueado a %(name)s: no podrá invitarte y no verás lo que escriba."),
    )


@login_required
@require_POST
def unblock(request: HttpRequest, username: str) -> HttpResponse:
    return _change(request, username, relations.unblock, _("Has desbloqueado a %(name)s."))
