"""Lobby and table pages. Every change goes through `games.services`."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST
from django.views.decorators.vary import vary_on_headers

from accounts import names

from . import hooks, quick_views, services
from .models import DEFAULT_BOT_LEVEL, Abandonment, BotLevel, Mode, Seat, Table
from .services import chat, fairplay, kicks, player_live, presence
from .services import lobby as lobby_service
from .services.abandonment import suspension_message
from .templatetags.cards import card_data


@vary_on_headers("HX-Request")
def lobby(request: HttpRequest) -> HttpResponse:
    """The lobby. Its lists of tables and who is online are the same for everybody and pushed
    over `/ws/sala/` (`services.lobby`); with HTMX, `?parte=amigos` is the viewer's friends box
    alone (asked for again every 30 s), anything else the whole live part."""
    if request.user.is_authenticated:
        presence.touch(request.user.pk)
    my_seat = services.live_seat_of(request.user) if request.user.is_authenticated else None
    friends_only = request.htmx and request.GET.get("parte") == "amigos"
    if friends_only:
        if not request.user.is_authenticated:
            return HttpResponse(status=204)
        context = quick_views.lobby_context(request, my_seat)
        return render(request, "games/_lobby_friends.html", context)
    suspended = services.suspended_until(request.user)
    context = {
        **lobby_service.page_context(),
        "suspension": suspension_message(suspended) if suspended else None,
        "may_sit": suspended is None,
        "my_seat": my_seat,
        "modes": Mode.choices,
        "bot_levels": BotLevel.choices,
        "default_bot_level": DEFAULT_BOT_LEVEL,
        # Only the whole page has the forms (the live part does not ask).
        "default_mode": None if request.htmx else preferred_mode(request),
    }
    if request.user.is_authenticated:
        context.update(quick_views.lobby_context(request, my_seat))
    template = "games/lobby_live.html" if request.htmx else "games/lobby.html"
    return render(request, template, context)


#: The mode new tables and practice offer to a player who has not played yet: most games online
#: are played with 8 reyes.
USUAL_MODE = Mode.OCHO_REYES


#: Where the session keeps the mode of the last table the player created, joined or practised at.
LAST_MODE = "mus_last_mode"


def remember_mode(request: HttpRequest, table: Table) -> None:
    request.session[LAST_MODE] = table.mode


def preferred_mode(request: HttpRequest) -> str:
    """The mode the player chose last (this browser's last table, else the last table they sat
    at), so the lobby offers it again; USUAL_MODE for a newcomer."""
    user = request.user
    if request.session.get(LAST_MODE) in Mode.values:
        return str(request.session[LAST_MODE])
    if user.is_authenticated:
        last = (
            Seat.objects.filter(user=user)
            .order_by("-table__created_at", "-table_id")
            .values_list("table__mode", flat=True)
            .first()
        )
        if last in Mode.values:
            return str(last)
    return str(USUAL_MODE)


@login_required
@require_POST
def create_table(request: HttpRequest) -> HttpResponse:
    private = request.POST.get("private") == "on"
    rated = request.POST.get("rated", "on" if not private else "") == "on"
    try:
        table = services.create_table(
            request.user,
            request.POST.get("mode", ""),
            private=private,
            rated=rated,
            bots_allowed=request.POST.get("bots") == "on",
        )
    except services.ServiceError as exc:
        messages.error(request, exc.message)
        return redirect("lobby")
    services.remember_invitation(request.session, table)
    remember_mode(request, table)
    return redirect(table)


def visible_table(request: HttpRequest, table_id: int) -> Table:
    """The table, if the visitor may see it; private tables do not reveal that they exist."""
    table = get_object_or_404(Table.objects.select_related("host"), pk=table_id)
    if not services.can_view_in(table, request.user, request.session):
        raise Http404(_("Esa mesa no existe o es privada."))
    return table


def invite(request: HttpRequest, token: str) -> HttpResponse:
    table = Table.objects.filter(invite_token=token).first()
    if table is None:
        raise Http404(_("Esa invitación no es válida."))
    services.remember_invitation(request.session, table)
    return redirect(table)


def table_page(request: HttpRequest, table_id: int) -> HttpResponse:
    """`/mesas/<id>/`: the waiting room until the game starts, then the live table."""
    table = visible_table(request, table_id)
    if request.user.is_authenticated:
        presence.touch(request.user.pk)
    if table.status in (Table.Status.OPEN, Table.Status.CLOSED):
        return render(request, "games/table_waiting.html", _waiting_context(request, table))
    return _live_table(request, table)


@vary_on_headers("HX-Request")
def waiting_room(request: HttpRequest, table_id: int) -> HttpResponse:
    """The waiting room's body, asked for again when the table's socket says it changed; once
    the game starts the page reloads."""
    table = visible_table(request, table_id)
    if not request.htmx:
        return redirect(table)
    if table.status not in (Table.Status.OPEN, Table.Status.CLOSED):
        response = HttpResponse(status=204)
        response["HX-Refresh"] = "true"
        return response
    return render(request, "games/_table_waiting_body.html", _waiting_context(request, table))


def _waiting_context(request: HttpRequest, table: Table) -> dict[str, Any]:
    state = services.state_for(table, request.user)
    suspended = services.suspended_until(request.user)
    return {
        "suspension": suspension_message(suspended) if suspended else None,
        "table": table,
        "state": state,
        "kicked": kicks.was_kicked(table, request.user),
        "my_seat": state["you"]["seat"] if state.get("you") else None,
        "is_host": request.user.is_authenticated and table.host_id == request.user.pk,
        # Seated players without the table open: the host cannot start until they are here,
        # and after `away_seconds` away they lose the seat (docs/rules.md §8.3).
        "away": [info for info in state["seats"] if info and not info["connected"]],
        "away_seconds": settings.MUS_RECONNECT_SECONDS,
        "bot_levels": BotLevel.choices,
        "default_bot_level": DEFAULT_BOT_LEVEL,
        # Said before the start: these four, seated like this, would not count for the ladder.
        "pair_limit": table.status == Table.Status.OPEN and fairplay.pair_limit_reached(table),
        "pair_games_per_day": fairplay.PAIR_GAMES_PER_DAY,
        "invite_url": request.build_absolute_uri(reverse("games:invite", args=[table.invite_token]))
        if table.private
        else None,
    }


def _live_table(request: HttpRequest, table: Table) -> HttpResponse:
    state = player_live.table_page_state(table, request.user)
    people = {row["seat"]: row["user_id"] for row in services.seat_rows(table) if not row["is_bot"]}
    ladder = table.ratings_ladder  # (a game for the bots ladder shows its ratings)
    labels = hooks.ratings((user_id, ladder) for user_id in people.values())
    context = {
        "table": table,
        # Nobody but bots beside you (a practice, or a table filled with bots): nobody to
        # report and nobody to ask for a rematch.
        "only_bots_beside": len(people) <= 1,
        "state": state,
        "state_json": json.dumps(state),
        "my_seat": state["you"]["seat"] if state.get("you") else None,
        "ws_path": f"/ws/mesas/{table.pk}/",
        "turn_seconds": state["turn_seconds"],
        "table_links": hooks.table_links(table),
        "quick_phrases": [str(p) for p in chat.QUICK_PHRASES],
        # «Practicar otra vez» against bots of the level this practice had.
        "bot_level": next(
            (row["bot_level"] for row in services.seat_rows(table) if row["bot_level"]),
            DEFAULT_BOT_LEVEL,
        ),
        # The names on the felt show each person's rating (ratings do not change during a game).
        "seat_ratings": {
            seat: str(labels[(user_id, ladder)])
            for seat, user_id in people.items()
            if (user_id, ladder) in labels
        },
        # The live table draws cards in JavaScript: give it every card's image and name (in the
        # active language) so no text or URL is built there.
        "card_data": card_data(),
    }
    return render(request, "games/table.html", context)


def _service_post(request: HttpRequest, table_id: int, call: Callable[[], Any]) -> HttpResponse:
    """Run a table change asked for by a form, then back to the table (or the lobby)."""
    try:
        call()
    except services.ServiceError as exc:
        messages.error(request, exc.message)
        if exc.code in ("no_table", "private"):
            return redirect("lobby")
    table = Table.objects.filter(pk=table_id).only("status").first()
    if table is None or table.status == Table.Status.CLOSED:
        return redirect("lobby")
    return redirect("games:table", table_id)


def _posted_seat(request: HttpRequest) -> int:
    try:
        return int(request.POST.get("seat", ""))
    except ValueError:
        return -1


@login_required
@require_POST
def sit(request: HttpRequest, table_id: int) -> HttpResponse:
    token = services.invitation(request.session, table_id)
    seat = _posted_seat(request)

    def take() -> None:
        remember_mode(request, services.take_seat(request.user, table_id, seat, token))

    return _service_post(request, table_id, take)


@login_required
@require_POST
def stand(request: HttpRequest, table_id: int) -> HttpResponse:
    return _service_post(request, table_id, lambda: services.leave_seat(request.user, table_id))


@login_required
@require_POST
def start(request: HttpRequest, table_id: int) -> HttpResponse:
    return _service_post(request, table_id, lambda: services.start_game(request.user, table_id))


@login_required
@require_POST
def kick(request: HttpRequest, table_id: int) -> HttpResponse:
    seat = _posted_seat(request)
    return _service_post(request, table_id, lambda: services.kick(request.user, table_id, seat))


@login_required
@require_POST
def close(request: HttpRequest, table_id: int) -> HttpResponse:
    return _service_post(request, table_id, lambda: services.close_table(request.user, table_id))


@login_required
@require_POST
def fill_bots(request: HttpRequest, table_id: int) -> HttpResponse:
    level = request.POST.get("level")
    return _service_post(
        request, table_id, lambda: services.fill_with_bots(request.user, table_id, level)
    )


@login_required
@require_POST
def practice(request: HttpRequest) -> HttpResponse:
    try:
        table = services.start_practice(
            request.user, request.POST.get("mode", ""), level=request.POST.get("level")
        )
    except services.ServiceError as exc:
        messages.error(request, exc.message)
        return redirect("lobby")
    services.remember_invitation(request.session, table)
    remember_mode(request, table)
    return redirect(table)


@login_required
@require_POST
def leave_practice(request: HttpRequest, table_id: int) -> HttpResponse:
    try:
        services.leave_practice(request.user, table_id)
    except services.ServiceError as exc:
        messages.error(request, exc.message)
        return redirect("lobby")
    messages.success(request, _("Has dejado la práctica."))
    return redirect("lobby")


@login_required
@vary_on_headers("HX-Request")
def rematch(request: HttpRequest, table_id: int) -> HttpResponse:
    """GET: who has asked for a rematch of this finished game (the table page polls it for its
    players). POST: ask for it — open the new table or sit at it — and go there."""
    table = visible_table(request, table_id)
    if request.method == "POST":
        try:
            new = services.rematch(request.user, table_id)
        except services.ServiceError as exc:
            messages.error(request, exc.message)
            return redirect(table)
        services.remember_invitation(request.session, new)
        return redirect(new)
    if not request.htmx:
        return redirect(table)
    played = services.seat_number(table, request.user.pk) is not None
    if table.status != Table.Status.FINISHED or table.practice or not played:
        return HttpResponse(status=204)
    if table.seats.filter(user__is_bot=False).count() <= 1:  # bots ask for no rematch
        return HttpResponse(status=204)
    new = table.rematch
    if new is not None and new.status == Table.Status.CLOSED:
        new = None
    seats = list(new.seats.select_related("user").order_by("seat")) if new else []
    context = {
        "table": table,
        "new": new,
        "names": [names.bdi(s.user.public_name) for s in seats if s.user_id != request.user.pk],
        "count": len(seats),
        "mine": any(s.user_id == request.user.pk for s in seats),
    }
    started = new is not None and new.status != Table.Status.OPEN  # nothing left to wait for
    return render(request, "games/_rematch.html", context, status=286 if started else 200)


def profile_status(request: HttpRequest, player: Any) -> dict[str, Any]:
    """The profile's lines from the tables: where the player sits now, if the viewer may see
    that table (private ones, practice included, only for who may enter them), and how many
    rated games they abandoned (docs/rules.md §8.4: counted on the profile, for everybody to
    see)."""
    seat = services.live_seat_of(player)
    if seat is not None and not services.can_view_in(seat.table, request.user, request.session):
        seat = None
    return {
        "status_template": "games/_profile_status.html",
        "live_table": seat.table if seat else None,
        "abandonments": Abandonment.objects.filter(user=player).count(),
    }
