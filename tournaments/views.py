"""The tournament pages (`/torneos/`). Every change goes through `tournaments.services`."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST
from django.views.decorators.vary import vary_on_headers

from games.services import ServiceError

from . import queries, services
from .models import Tournament

#: Seconds between the polls of a page that is still live.
LIST_POLL_SECONDS = 5
DETAIL_POLL_SECONDS = 3


@vary_on_headers("HX-Request")
def tournament_list(request: HttpRequest) -> HttpResponse:
    context = {**queries.lists(), "poll": LIST_POLL_SECONDS}
    template = "tournaments/_list_live.html" if request.htmx else "tournaments/list.html"
    return render(request, template, context)


@vary_on_headers("HX-Request")
def detail(request: HttpRequest, tournament_id: int) -> HttpResponse:
    """The tournament's page; with HX-Request, its live part, polled by the page. A player whose
    tournament table has just been set up (not the one the page was showing, `mesa`) is sent
    there."""
    tournament = get_object_or_404(
        Tournament.objects.select_related("winner__first", "winner__second"), pk=tournament_id
    )
    context = {**queries.detail(tournament, request.user), "poll": DETAIL_POLL_SECONDS}
    table = context["me"].table
    if request.htmx:
        if table is not None and request.GET.get("mesa") != str(table.pk):
            response = HttpResponse(status=204)
            response["HX-Redirect"] = reverse("games:table", args=[table.pk])
            return response
        return render(request, "tournaments/_detail_live.html", context)
    return render(request, "tournaments/detail.html", context)


def _act(
    request: HttpRequest, tournament_id: int, change: Callable[..., Any], done: str, *args: Any
) -> HttpResponse:
    try:
        change(request.user, tournament_id, *args)
    except ServiceError as exc:
        messages.error(request, exc.message)
    else:
        messages.success(request, done)
    return redirect("tournaments:detail", tournament_id)


@login_required
@require_POST
def register(request: HttpRequest, tournament_id: int) -> HttpResponse:
    return _act(
        request,
        tournament_id,
        services.invite,
        _("Invitación enviada: la inscripción se completa cuando tu pareja la acepte."),
        request.POST.get("companero", ""),
    )


@login_required
@require_POST
def accept(request: HttpRequest, tournament_id: int) -> HttpResponse:
    return _act(request, tournament_id, services.accept, _("Estáis inscritos."))


@login_required
@require_POST
def decline(request: HttpRequest, tournament_id: int) -> HttpResponse:
    return _act(request, tournament_id, services.decline, _("Has rechazado la invitación."))


@login_required
@require_POST
def withdraw(request: HttpRequest, tournament_id: int) -> HttpResponse:
    return _act(request, tournament_id, services.withdraw, _("Os habéis retirado del torneo."))


@login_required
@require_POST
def check_in(request: HttpRequest, tournament_id: int) -> HttpResponse:
    return _act(
        request,
        tournament_id,
        services.check_in,
        _("Confirmado: estás en el torneo."),
        request.POST.get("jugador"),
    )
