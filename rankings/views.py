"""Leaderboards, game history and the game page. HTMX requests get the fragment they swap."""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import urlencode

from django.contrib import messages
from django.contrib.auth.views import redirect_to_login
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.vary import vary_on_headers

from accounts.models import User
from accounts.names import isolate
from games import engine, labels, services
from games.models import ENDED_STATUSES, Mode, Seat, Table

from . import analysis, analysis_pages, elo, queries, replay
from .models import Ladder, RatingChange, is_bots_ladder
from .services import ladder_of

RESULT_CHOICES = [
    ("", gettext_lazy("Todas")),
    ("ganadas", gettext_lazy("Ganadas")),
    ("perdidas", gettext_lazy("Perdidas")),
    ("canceladas", gettext_lazy("Canceladas")),
]


def _fragment(request: HttpRequest) -> bool:
    """An HTMX swap gets the fragment; a history restore needs the whole page."""
    return bool(request.htmx) and not request.htmx.history_restore_request


def _query(**params: Any) -> str:
    return "?" + urlencode({k: v for k, v in params.items() if v not in (None, "", False)})


@vary_on_headers("HX-Request")
def leaderboard(request: HttpRequest) -> HttpResponse:
    mode = queries.parse_ladder(request.GET.get("modo") or queries.opening_mode(request.user))
    search = request.GET.get("q", "")
    established = request.GET.get("definitivos") == "1"
    page, search = queries.leaderboard(
        mode,
        query=search,
        page=queries.parse_page(request.GET.get("pagina")),
        established=established,
    )
    base = {"modo": mode, "q": search, "definitivos": "1" if established else ""}
    context = {
        "mode": mode,
        "modes": Ladder.choices,
        "mode_label": Ladder(mode).label,
        "bots_ladder": is_bots_ladder(mode),
        "search": search,
        "established": established,
        "page": page,
        "previous_url": _query(**base, pagina=page.previous_number) if page.has_previous else None,
        "next_url": _query(**base, pagina=page.next_number) if page.has_next else None,
        "mode_urls": [
            (m, label, _query(modo=m, q=search, definitivos=base["definitivos"]))
            for m, label in Ladder.choices
        ],
    }
    if _fragment(request):
        return render(request, "rankings/_leaderboard_results.html", context)
    return render(request, "rankings/leaderboard.html", context)


@vary_on_headers("HX-Request")
def history(request: HttpRequest) -> HttpResponse:
    username = request.GET.get("jugador", "").strip()
    mode = queries.parse_mode(request.GET.get("modo"), allow_all=True)
    result = request.GET.get("resultado", "")
    if result not in queries.RESULTS:
        result = ""
    number = queries.parse_page(request.GET.get("pagina"))
    player: User | None = None
    if username:
        player = get_object_or_404(User, username=username)
    elif request.user.is_authenticated:
        player = request.user
    held = services.invitations_held(request.session)
    if player is not None:
        page = queries.player_games(
            player, request.user, held=held, mode=mode, result=result, page=number
        )
    else:
        result = ""
        page = queries.recent_games(request.user, held=held, mode=mode, page=number)
    base = {"jugador": username, "modo": mode, "resultado": result}
    context = {
        "player": player,
        "username": username,
        "mode": mode,
        "result": result,
        "modes": Mode.choices,
        "results": RESULT_CHOICES,
        "page": page,
        "previous_url": _query(**base, pagina=page.previous_number) if page.has_previous else None,
        "next_url": _query(**base, pagina=page.next_number) if page.has_next else None,
    }
    if _fragment(request):
        return render(request, "rankings/_history_results.html", context)
    return render(request, "rankings/history.html", context)


def _int(value: str | None, default: int) -> int:
    try:
        return int(value) if value not in (None, "") else default
    except ValueError:
        return default


def _visible_game(request: HttpRequest, table_id: int) -> Table:
    # With its hand analysis, if it has one (rankings.analysis): no query of its own.
    table = get_object_or_404(Table.objects.select_related("host", "analysis"), pk=table_id)
    if not services.can_view_in(table, request.user, request.session):
        raise Http404(_("Esa partida no existe o es privada."))
    return table


@vary_on_headers("HX-Request")
def game_detail(request: HttpRequest, table_id: int) -> HttpResponse:
    table = _visible_game(request, table_id)
    seats = list(Seat.objects.filter(table=table).select_related("user").order_by("seat"))
    if table.status not in ENDED_STATUSES:
        if table.status == Table.Status.CLOSED:
            raise Http404(_("En esa mesa no se llegó a jugar."))
        return redirect("games:table", table.pk)  # a game in progress has no page yet
    by_seat: list[Seat | None] = [None] * 4
    for seat in seats:
        by_seat[seat.seat] = seat
    changes = {c.seat: c for c in RatingChange.objects.filter(table=table)}
    players = [
        {
            "seat": n,
            "team": n % 2,
            "user": s.user if s else None,
            # A bot with its level: «Bot Nerea (fuerte)».
            "name": labels.seat_label(s) if s else "",
            "change": changes.get(n),
        }
        for n, s in enumerate(by_seat)
    ]
    context: dict[str, Any] = {
        "table": table,
        "players": players,
        "teams": [[players[0], players[2]], [players[1], players[3]]],
        # docs/rules.md §8.4: who left, if a player abandoned it (not one who never came: §8.3).
        "abandoner": None
        if table.abandoned_seat is None or table.cancel_reason != Table.CancelReason.ABANDONED
        else players[table.abandoned_seat]["user"],
        "on_ladder": ladder_of(table) is not None,
        "damped": any(c.weight < 1 for c in changes.values()),
        "circle_min": elo.CIRCLE_MIN,
        "circle_full": elo.CIRCLE_FULL,
        "scores": table.scores or [0, 0],
        "winner": table.winner_team,
        "record_url": None,
        "replay_error": None,
        "hands": [],
        "step": None,
    }
    # The hand analysis (rankings.analysis): its panel, and in the replay the decision at the
    # step shown. The names as the page shows them (plain: the templates isolate them).
    shown_names = [p["name"] if p["user"] else "—" for p in players]
    # (A reverse one-to-one that is missing raises an AttributeError.)
    item = getattr(table, "analysis", None) if analysis.analysable(table) else None
    context["analysis"] = _analysis_panel(table, item, shown_names)
    record = table.record
    if record:
        context["record_url"] = reverse("game_record", args=[table.pk])
        # Isolated: the names go into sentences («duples de Maite»).
        names = [isolate(p["name"]) if p["user"] else "—" for p in players]
        try:
            context["hands"] = replay.hand_results(record)
            hand_no = _int(request.GET.get("mano"), 1)
            # A replay opens at the deal: stepping through it should not give the hand away.
            step = replay.step_at(record, hand_no, _int(request.GET.get("paso"), 0), names)
        except (engine.RecordError, IndexError, KeyError, TypeError, ValueError) as exc:
            context["replay_error"] = str(exc)
        else:
            for hand in context["hands"]:
                hand["mano_user"] = players[hand["mano"]]["user"]
                hand["mano_name"] = players[hand["mano"]]["name"]
            for said in step.said:
                said["user"] = players[said["seat"]]["user"]
                said["name"] = players[said["seat"]]["name"]
            context["step"] = step
            context["step_analysis"] = analysis_pages.at_step(
                item, step.hand_no, step.step, shown_names
            )
            # Seats as at the live table: the viewer's own (or the first) at the bottom, the
            # partner at the top, the rivals at the sides.
            base = next(
                (p["seat"] for p in players if p["user"] and p["user"].pk == request.user.pk), 0
            )
            context["step_players"] = [
                {**players[s], "pos": pos, "cards": step.hands[s]}
                for pos, s in zip(
                    ("bottom", "right", "top", "left"),
                    [(base + i) % 4 for i in range(4)],
                    strict=True,
                )
            ]
            # The cards as the page first shows them, before (or without) its script.
            context["felt_cards"] = {p["pos"]: p["cards"] for p in context["step_players"]}
            # What the live table's renderer draws: the step, the players' names (plain: it
            # isolates them) and whose seat goes at the bottom.
            context["replay_state"] = {
                **step.state,
                "seats": [
                    {"seat": p["seat"], "name": p["name"] if p["user"] else "—"} for p in players
                ],
                "view_from": base,
            }
            context["replay_state_json"] = json.dumps(context["replay_state"])
            context["current_hand"] = context["hands"][step.hand_no - 1]
            if table.ended_by == "ordago":
                context["ordago_end"] = replay.ordago_end(record, names)
            context["nav"] = _nav(step, [len(h.get("actions") or []) for h in record["hands"]])
    if _fragment(request):
        return render(request, "rankings/_replay.html", context)
    return render(request, "rankings/game_detail.html", context)


def _analysis_panel(table: Table, item: Any, names: list[str]) -> dict[str, Any]:
    return {
        **analysis_pages.panel(item, names),
        "table": table,
        "analysable": analysis.analysable(table),
    }


@vary_on_headers("HX-Request")
def game_analysis(request: HttpRequest, table_id: int) -> HttpResponse:
    """`/partidas/<id>/analisis/`: POST asks for the hand analysis of a finished game; GET (with
    HX-Request) is the panel, polled every second while the analysis runs. Without HTMX both
    go back to the game page. Seen by whoever may see the game page; asked for by a player."""
    table = _visible_game(request, table_id)
    page = reverse("game_detail", args=[table.pk]) + "#analysis"
    error = None
    if request.method == "POST":
        if not request.user.is_authenticated:
            return redirect_to_login(page)
        try:
            analysis.request_analysis(request.user, table)
        except services.ServiceError as exc:
            error = exc.message
            if not request.htmx:
                messages.error(request, exc.message)
    elif not analysis.analysable(table):
        raise Http404(_("Solo se analizan partidas terminadas."))
    if not request.htmx:
        return redirect(page)
    players = list(Seat.objects.filter(table=table).select_related("user").order_by("seat"))
    names = ["—"] * 4
    for seat in players:
        names[seat.seat] = labels.seat_label(seat)
    item = analysis.analysis_of(table)
    context = {**_analysis_panel(table, item, names), "error": error}
    response = render(request, "rankings/_analysis.html", context)
    if context["ready"]:
        # The replay shows each step's decision from now on: it reloads itself on this event.
        response["HX-Trigger"] = "analysis-ready"
    return response


def game_record(request: HttpRequest, table_id: int) -> HttpResponse:
    """The game's `mus-record/1` (docs/game-record.md), once it has ended."""
    table = _visible_game(request, table_id)
    if not table.is_over or not table.record:
        raise Http404(_("El registro está disponible cuando la partida termina."))
    response = JsonResponse(table.record, json_dumps_params={"ensure_ascii": False, "indent": 1})
    response["Content-Disposition"] = f'inline; filename="partida-{table.pk}.json"'
    return response


def _nav(step: replay.Step, lengths: list[int]) -> dict[str, Any]:
    def url(hand: int, k: int) -> str:
        return _query(mano=hand, paso=str(k))

    n, k = step.hand_no, step.step
    hand_total = len(lengths)
    return {
        "first": url(n, 0) if k > 0 else None,
        "previous": url(n, k - 1) if k > 0 else (url(n - 1, lengths[n - 2]) if n > 1 else None),
        "next": url(n, k + 1)
        if k < step.steps_in_hand
        else (url(n + 1, 0) if n < hand_total else None),
        "last": url(n, step.steps_in_hand) if k < step.steps_in_hand else None,
        "hands": [(h, url(h, 0)) for h in range(1, hand_total + 1)],
        "steps": [(i, url(n, i)) for i in range(step.steps_in_hand + 1)],
    }
