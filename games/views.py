"""Lobby and table pages. Every change goes through `games.services`."""

from __future__ import annotations

import json
from typing import Any

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.db.models import Prefetch
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from . import bots, chat, presence, services
from .models import MODE_CHOICES, Seat, Table


def _tables(status: str) -> Any:
    return (
        Table.objects.filter(status=status, private=False)
        .select_related("host")
        .prefetch_related(Prefetch("seats", queryset=Seat.objects.select_related("user")))
        .order_by("-created_at")
    )


def lobby(request: HttpRequest) -> HttpResponse:
    if request.user.is_authenticated:
        presence.touch(request.user.pk)
    open_tables = list(_tables(Table.Status.OPEN)[:50])
    playing = list(_tables(Table.Status.PLAYING)[:50])
    my_seat = services.live_seat_of(request.user) if request.user.is_authenticated else None
    ratings = _ratings_of_seated([*open_tables, *playing])
    context = {
        "open_tables": [_table_card(t, ratings) for t in open_tables],
        "playing_tables": [_table_card(t, ratings) for t in playing],
        "online": presence.online_players(limit=40),
        "online_count": presence.online_count(),
        "my_seat": my_seat,
        "modes": MODE_CHOICES,
    }
    template = "games/lobby_live.html" if request.htmx else "games/lobby.html"
    return render(request, template, context)


Ratings = dict[tuple[int, str], tuple[float, int]]


def _ratings_of(user_ids: Any) -> Ratings:
    """(rating, rated games) per (player, mode), in one query."""
    from rankings.models import PlayerRating

    rows = PlayerRating.objects.filter(user_id__in=set(user_ids)).values_list(
        "user_id", "mode", "rating", "games"
    )
    return {(user_id, mode): (rating, games) for user_id, mode, rating, games in rows}


def _rating_for(ratings: Ratings, user_id: int, mode: str) -> tuple[int, bool]:
    """A player's rating in ``mode`` as shown, and whether it is still provisional; nobody rated
    yet in it starts where everybody starts."""
    from rankings import elo

    rating, games = ratings.get((user_id, mode), (elo.INITIAL_RATING, 0))
    return round(rating), elo.is_provisional(games)


def _ratings_of_seated(tables: list[Table]) -> Ratings:
    """Everybody's rating in the mode of the table they sit at: players choose a table by the
    level of who is there."""
    return _ratings_of(seat.user_id for table in tables for seat in table.seats.all())


def _seat_ratings(table: Table) -> dict[int, str]:
    """Each seated person's rating in the table's mode, as the ladder shows it («1523?» while
    provisional), for the names on the felt: ratings do not change during a game."""
    people = {row["seat"]: row["user_id"] for row in services.seat_rows(table) if not row["is_bot"]}
    ratings = _ratings_of(people.values())
    out = {}
    for number, user_id in people.items():
        rating, provisional = _rating_for(ratings, user_id, table.mode)
        out[number] = f"{rating}?" if provisional else str(rating)
    return out


def _table_card(table: Table, ratings: Ratings) -> dict[str, Any]:
    seats: list[Seat | None] = [None, None, None, None]
    for seat in table.seats.all():
        seats[seat.seat] = seat
        if not seat.user.is_bot:
            seat.rating, seat.provisional = _rating_for(ratings, seat.user_id, table.mode)
    return {"table": table, "seats": seats, "taken": sum(1 for s in seats if s)}


@login_required
@require_POST
def create_table(request: HttpRequest) -> HttpResponse:
    mode = request.POST.get("mode", "")
    private = request.POST.get("private") == "on"
    rated = request.POST.get("rated", "on" if not private else "") == "on"
    try:
        table = services.create_table(request.user, mode, private=private, rated=rated)
    except services.ServiceError as exc:
        messages.error(request, exc.message)
        return redirect("lobby")
    if table.private:
        request.session[f"invite-{table.pk}"] = table.invite_token
    return redirect(table)


def _visible_table(request: HttpRequest, table_id: int) -> Table:
    table = get_object_or_404(Table.objects.select_related("host"), pk=table_id)
    token = request.session.get(f"invite-{table.pk}")
    if not services.can_see(table, request.user, token):
        # Private tables do not reveal that they exist.
        raise Http404(_("Esa mesa no existe o es privada."))
    return table


def invite(request: HttpRequest, token: str) -> HttpResponse:
    table = Table.objects.filter(invite_token=token).first()
    if table is None:
        raise Http404(_("Esa invitación no es válida."))
    request.session[f"invite-{table.pk}"] = table.invite_token
    return redirect(table)


def table_page(request: HttpRequest, table_id: int) -> HttpResponse:
    table = _visible_table(request, table_id)
    if request.user.is_authenticated:
        presence.touch(request.user.pk)
    state = services.state_for(table, request.user)
    my_seat = state["you"]["seat"] if state.get("you") else None
    context = {
        "table": table,
        "state": state,
        "state_json": json.dumps(state),
        "my_seat": my_seat,
        "is_host": request.user.is_authenticated and table.host_id == request.user.pk,
        "invite_url": request.build_absolute_uri(reverse("games:invite", args=[table.invite_token]))
        if table.private
        else None,
        "ws_path": f"/ws/mesas/{table.pk}/",
        "turn_seconds": settings.MUS_TURN_SECONDS,
        "quick_phrases": [str(p) for p in chat.QUICK_PHRASES],
    }
    if table.status != Table.Status.OPEN:
        context["seat_ratings"] = _seat_ratings(table)
        # The live table draws cards in JavaScript: give it every card's image and name (in the
        # active language) so no text or URL is built there.
        from django.templatetags.static import static

        try:
            from .templatetags.cards import CARD_CODES, card_name
        except ImportError:  # pragma: no cover - the deck's template library is optional
            CARD_CODES, card_name = (), None
        context["card_data"] = {
            "back": static("cards/back.svg"),
            "cards": {
                code: {"src": static(f"cards/{code}.svg"), "name": card_name(code)}
                for code in CARD_CODES
            },
        }
    template = (
        "games/table_waiting.html" if table.status == Table.Status.OPEN else "games/table.html"
    )
    if request.htmx:
        if table.status not in (Table.Status.OPEN, Table.Status.CLOSED):
            # The game started while this page was polling: load the live table.
            response = HttpResponse(status=204)
            response["HX-Refresh"] = "true"
            return response
        template = "games/_table_waiting_body.html"
    elif table.status == Table.Status.CLOSED:
        template = "games/table_waiting.html"
    return render(request, template, context)


def _service_post(request: HttpRequest, table_id: int, call: Any) -> HttpResponse:
    try:
        call()
    except services.ServiceError as exc:
        messages.error(request, exc.message)
        status = 404 if exc.code in ("no_table", "private") else 400
        if request.htmx:
            return HttpResponse(str(exc.message), status=status)
        if exc.code in ("no_table", "private"):
            return redirect("lobby")
    if request.htmx:
        response = HttpResponse(status=204)
        response["HX-Redirect"] = reverse("games:table", args=[table_id])
        return response
    table = Table.objects.filter(pk=table_id).only("status").first()
    if table is None or table.status == Table.Status.CLOSED:
        return redirect("lobby")
    return redirect("games:table", table_id)


def _seat_number(request: HttpRequest) -> int:
    try:
        return int(request.POST.get("seat", ""))
    except ValueError:
        return -1


@login_required
@require_POST
def sit(request: HttpRequest, table_id: int) -> HttpResponse:
    token = request.session.get(f"invite-{table_id}")
    seat = _seat_number(request)
    return _service_post(
        request, table_id, lambda: services.take_seat(request.user, table_id, seat, token)
    )


@login_required
@require_POST
def stand(request: HttpRequest, table_id: int) -> HttpResponse:
    response = _service_post(request, table_id, lambda: services.leave_seat(request.user, table_id))
    return response


@login_required
@require_POST
def start(request: HttpRequest, table_id: int) -> HttpResponse:
    return _service_post(request, table_id, lambda: services.start_game(request.user, table_id))


@login_required
@require_POST
def kick(request: HttpRequest, table_id: int) -> HttpResponse:
    seat = _seat_number(request)
    return _service_post(request, table_id, lambda: services.kick(request.user, table_id, seat))


@login_required
@require_POST
def fill_bots(request: HttpRequest, table_id: int) -> HttpResponse:
    return _service_post(request, table_id, lambda: bots.fill_with_bots(request.user, table_id))


@login_required
@require_POST
def practice(request: HttpRequest) -> HttpResponse:
    try:
        table = bots.start_practice(request.user, request.POST.get("mode", ""))
    except services.ServiceError as exc:
        messages.error(request, exc.message)
        return redirect("lobby")
    request.session[f"invite-{table.pk}"] = table.invite_token
    return redirect(table)


@login_required
@require_POST
def leave_practice(request: HttpRequest, table_id: int) -> HttpResponse:
    try:
        bots.leave_practice(request.user, table_id)
    except services.ServiceError as exc:
        messages.error(request, exc.message)
        return redirect("lobby")
    messages.success(request, _("Has dejado la práctica."))
    return redirect("lobby")


@login_required
def rematch(request: HttpRequest, table_id: int) -> HttpResponse:
    """GET: who has asked for a rematch of this finished game (the table page polls it for its
    players). POST: ask for it — open the new table or sit at it — and go there."""
    table = _visible_table(request, table_id)
    if request.method == "POST":
        try:
            new = services.rematch(request.user, table_id)
        except services.ServiceError as exc:
            messages.error(request, exc.message)
            return redirect(table)
        request.session[f"invite-{new.pk}"] = new.invite_token
        return redirect(new)
    if not request.htmx:
        return redirect(table)
    played = services.seat_number(table, request.user.pk) is not None
    if table.status != Table.Status.FINISHED or table.practice or not played:
        return HttpResponse(status=204)
    new = table.rematch
    if new is not None and new.status == Table.Status.CLOSED:
        new = None
    seats = list(new.seats.select_related("user").order_by("seat")) if new else []
    context = {
        "table": table,
        "new": new,
        "names": [s.user.public_name for s in seats if s.user_id != request.user.pk],
        "count": len(seats),
        "mine": any(s.user_id == request.user.pk for s in seats),
    }
    return render(request, "games/_rematch.html", context)


@login_required
@require_POST
def close(request: HttpRequest, table_id: int) -> HttpResponse:
    return _service_post(request, table_id, lambda: services.close_table(request.user, table_id))


def game_record(request: HttpRequest, table_id: int) -> HttpResponse:
    table = _visible_table(request, table_id)
    if table.status not in (Table.Status.FINISHED, Table.Status.CANCELLED) or not table.record:
        raise Http404(_("El registro está disponible cuando la partida termina."))
    response = JsonResponse(table.record, json_dumps_params={"ensure_ascii": False, "indent": 1})
    response["Content-Disposition"] = f'inline; filename="partida-{table.pk}.json"'
    return response


def profile_status(request: HttpRequest, player: Any) -> dict[str, Any]:
    """The profile's line on what the player is doing now: the table they sit at, if the viewer
    may see it (private tables, practice included, only for who may enter them)."""
    seat = services.live_seat_of(player)
    if seat is None or not services.can_see(
        seat.table, request.user, request.session.get(f"invite-{seat.table_id}")
    ):
        return {}
    return {"status_template": "games/_profile_status.html", "live_table": seat.table}
