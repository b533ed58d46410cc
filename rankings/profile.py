"""The rankings' part of the public profile (`/jugadores/<username>/`).

``profile_context(user, viewer)`` gathers everything (a fixed number of queries);
``profile_provider`` plugs it into the accounts profile page through
``accounts.profile.register_profile_context`` (registered in ``RankingsConfig.ready``), with
the include templates ``rankings/_profile_ratings.html`` and ``rankings/_profile_games.html``.
"""

from __future__ import annotations

from typing import Any

from django.db import connection
from django.db.models import Count, F, Q, Window
from django.db.models.functions import RowNumber
from django.http import HttpRequest
from django.urls import reverse

from accounts.models import User
from games.models import MODE_CHOICES, Seat, Table

from . import charts, elo
from .models import PlayerRating, RatingChange
from .queries import can_see_private, player_games

CHART_POINTS = 120
RECENT_GAMES = 10


def _chart_values(user: User) -> dict[str, list[float]]:
    """Per mode, the ratings after each of the last CHART_POINTS games (oldest first)."""
    ranked = (
        RatingChange.objects.filter(user=user)
        .annotate(n=Window(RowNumber(), partition_by=F("mode"), order_by=F("id").desc()))
        .filter(n__lte=CHART_POINTS)
        .values_list("mode", "before", "after", "n")
        .order_by("mode", "-n")
    )
    values: dict[str, list[float]] = {}
    for mode, before, after, _n in ranked:
        series = values.setdefault(mode, [])
        if not series:
            series.append(before)
        series.append(after)
    return values


def _totals(user: User, include_private: bool) -> dict[str, int]:
    qs = Seat.objects.filter(user=user).annotate(seat_team=F("seat") % 2)
    if not include_private:
        qs = qs.filter(table__private=False)
    finished = Q(table__status=Table.Status.FINISHED)
    won = finished & Q(table__winner_team=F("seat_team"))
    lost = finished & ~Q(table__winner_team=F("seat_team"))
    ordago = Q(table__ended_by="ordago")
    return qs.aggregate(
        games=Count("pk", filter=finished),
        wins=Count("pk", filter=won),
        cancelled=Count("pk", filter=Q(table__status=Table.Status.CANCELLED)),
        ordagos_won=Count("pk", filter=won & ordago),
        ordagos_lost=Count("pk", filter=lost & ordago),
    )


def _partner(user: User, include_private: bool) -> dict[str, Any] | None:
    sql = f"""
        SELECT u.username, u.display_name, count(*) AS games,
               count(*) FILTER (WHERE t.winner_team = me.seat %% 2) AS wins
          FROM games_seat me
          JOIN games_table t ON t.id = me.table_id
          JOIN games_seat p ON p.table_id = me.table_id AND p.seat = (me.seat + 2) %% 4
          JOIN accounts_user u ON u.id = p.user_id
         WHERE me.user_id = %s AND t.status = %s {"" if include_private else "AND NOT t.private"}
         GROUP BY u.id
         ORDER BY games DESC, wins DESC, u.id
         LIMIT 1
    """
    with connection.cursor() as cursor:
        cursor.execute(sql, [user.pk, Table.Status.FINISHED])
        row = cursor.fetchone()
    if row is None:
        return None
    username, display_name, games, wins = row
    return {
        "username": username,
        "public_name": display_name or username,
        "url": reverse("accounts:profile", args=[username]),
        "games": games,
        "wins": wins,
    }


def profile_context(user: User, viewer: Any = None) -> dict[str, Any]:
    """Ratings per mode (with charts), totals, best partner and the latest games of ``user``."""
    include_private = can_see_private(viewer, user)
    stored = {r.mode: r for r in PlayerRating.objects.filter(user=user)}
    series = _chart_values(user)
    modes = []
    for mode, label in MODE_CHOICES:
        rating = stored.get(mode)
        games = rating.games if rating else 0
        modes.append(
            {
                "mode": mode,
                "mode_label": label,
                "rating": round(rating.rating) if rating else round(elo.INITIAL_RATING),
                "provisional": elo.is_provisional(games),
                "games": games,
                "wins": rating.wins if rating else 0,
                "win_rate": rating.win_rate if rating else None,
                "best_rating": round(rating.best_rating) if rating else None,
                "last_played_at": rating.last_played_at if rating else None,
                "chart": charts.rating_chart(series.get(mode, [])),
                "ladder_url": reverse("rankings:leaderboard") + f"?modo={mode}",
            }
        )
    totals = _totals(user, include_private)
    totals["win_rate"] = totals["wins"] / totals["games"] if totals["games"] else None
    recent = player_games(user, viewer, page=1, per_page=RECENT_GAMES)
    return {
        "rankings_player": user,
        "rankings_modes": modes,
        "rankings_totals": totals,
        "rankings_partner": _partner(user, include_private),
        "rankings_recent": recent.rows,
        "rankings_more_games": recent.has_next,
        "rankings_history_url": reverse("game_history") + f"?jugador={user.username}",
    }


def profile_provider(request: HttpRequest, player: User) -> dict[str, Any]:
    """accounts' profile page hook: our context and our two include templates."""
    context = profile_context(player, request.user)
    context["ratings_template"] = "rankings/_profile_ratings.html"
    context["history_template"] = "rankings/_profile_games.html"
    # The accounts page's own keys, for any template that still reads them.
    context["ratings"] = [
        {"mode_label": m["mode_label"], "rating": m["rating"], "games": m["games"]}
        for m in context["rankings_modes"]
    ]
    return context
