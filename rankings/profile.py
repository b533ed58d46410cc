"""The rankings' part of the public profile (`/jugadores/<username>/`).

``profile_context(user, viewer)`` gathers everything (a fixed number of queries);
``profile_provider`` plugs it into the accounts profile page through
``accounts.profile.register_profile_context`` (registered in ``RankingsConfig.ready``), with
the include templates ``rankings/_profile_ratings.html`` and ``rankings/_profile_games.html``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any
from urllib.parse import urlencode

from django.db import connection
from django.http import HttpRequest
from django.urls import reverse

from accounts import names
from accounts.models import User
from games import services
from games.models import Table

from . import charts, elo
from .models import Ladder, PlayerRating, is_bots_ladder
from .queries import can_see_private, player_games, profile_url

CHART_POINTS = 120
RECENT_GAMES = 10


def _chart_values(user: User) -> dict[str, list[float]]:
    """Per mode, the ratings after each of the last CHART_POINTS games (oldest first)."""
    sql = """
        SELECT mode, before, after FROM (
            SELECT mode, before, after, id,
                   row_number() OVER (PARTITION BY mode ORDER BY id DESC) AS n
              FROM rankings_ratingchange WHERE user_id = %s
        ) latest
         WHERE n <= %s
         ORDER BY mode, id
    """
    values: dict[str, list[float]] = {}
    with connection.cursor() as cursor:
        cursor.execute(sql, [user.pk, CHART_POINTS])
        for mode, before, after in cursor.fetchall():
            series = values.setdefault(mode, [])
            if not series:
                series.append(before)
            series.append(after)
    return values


def _totals_and_partner(user: User, include_private: bool) -> tuple[dict[str, Any], dict | None]:
    """Games, wins, cancellations, órdagos and the most frequent partner: one query. Practice
    games against bots are left out: unrated, they are not the player's record (and a bot is
    nobody's partner). Private games count in the figures for everybody, as they count in the
    ratings beside them (a number shows no game); only the partner shown comes from the games
    the viewer may see."""
    sql = f"""
        WITH mine AS (
            SELECT me.table_id, me.seat, t.status, t.winner_team, t.ended_by, t.private
              FROM games_seat me JOIN games_table t ON t.id = me.table_id
             WHERE me.user_id = %(user)s AND t.status IN (%(finished)s, %(cancelled)s)
                   AND NOT t.practice
        ),
        totals AS (
            SELECT count(*) FILTER (WHERE status = %(finished)s) AS games,
                   count(*) FILTER (WHERE status = %(finished)s
                                      AND winner_team = seat %% 2) AS wins,
                   count(*) FILTER (WHERE status = %(cancelled)s) AS cancelled,
                   count(*) FILTER (WHERE status = %(finished)s AND ended_by = 'ordago'
                                      AND winner_team = seat %% 2) AS ordagos_won,
                   count(*) FILTER (WHERE status = %(finished)s AND ended_by = 'ordago'
                                      AND winner_team <> seat %% 2) AS ordagos_lost
              FROM mine
        ),
        partner AS (
            SELECT p.user_id, count(*) AS games,
                   count(*) FILTER (WHERE m.winner_team = m.seat %% 2) AS wins
              FROM mine m
              JOIN games_seat p ON p.table_id = m.table_id AND p.seat = (m.seat + 2) %% 4
             WHERE m.status = %(finished)s {"" if include_private else "AND NOT m.private"}
             GROUP BY p.user_id
             ORDER BY games DESC, wins DESC, p.user_id
             LIMIT 1
        )
        SELECT totals.*, u.username, u.display_name, partner.games, partner.wins
          FROM totals
          LEFT JOIN partner ON TRUE
          LEFT JOIN accounts_user u ON u.id = partner.user_id
    """
    params = {
        "user": user.pk,
        "finished": Table.Status.FINISHED,
        "cancelled": Table.Status.CANCELLED,
    }
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        games, wins, cancelled, won, lost, username, display, with_games, with_wins = (
            cursor.fetchone()
        )
    totals = {
        "games": games,
        "wins": wins,
        "cancelled": cancelled,
        "ordagos_won": won,
        "ordagos_lost": lost,
        "win_rate": wins / games if games else None,
    }
    partner = None
    if username is not None:
        partner = {
            "username": username,
            "public_name": names.shown(username, display),
            "url": profile_url(username),
            "games": with_games,
            "wins": with_wins,
        }
    return totals, partner


def _ladders_shown(user: User, stored: dict[str, PlayerRating]) -> list[tuple[str, str]]:
    """A bot account's bots ladders (it has no other); a person's ladders of the modes, and the
    bots ladders they have played on (docs/bot-api.md, «Ratings»)."""
    if user.is_bot_account:
        return [(m, label) for m, label in Ladder.choices if is_bots_ladder(m)]
    return [
        (m, label)
        for m, label in Ladder.choices
        if not is_bots_ladder(m) or (m in stored and stored[m].games > 0)
    ]


def profile_context(
    user: User, viewer: Any = None, held: Mapping[int, str] | None = None
) -> dict[str, Any]:
    """Ratings per ladder (with charts), totals, best partner and the latest games of ``user``
    that ``viewer`` (holding the invitations ``held``) may open."""
    include_private = can_see_private(viewer, user)
    stored = {r.mode: r for r in PlayerRating.objects.filter(user=user)}
    series = _chart_values(user)
    modes = []
    for mode, label in _ladders_shown(user, stored):
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
    totals, partner = _totals_and_partner(user, include_private)
    recent = player_games(user, viewer, held=held, page=1, per_page=RECENT_GAMES)
    return {
        "rankings_player": user,
        "rankings_modes": modes,
        "rankings_provisional": any(m["provisional"] for m in modes),
        "rankings_totals": totals,
        "rankings_partner": partner,
        "rankings_recent": recent.rows,
        "rankings_more_games": recent.has_next,
        "rankings_history_url": reverse("game_history")
        + "?"
        + urlencode({"jugador": user.username}),
    }


def profile_provider(request: HttpRequest, player: User) -> dict[str, Any]:
    """accounts' profile page hook: our context and our two include templates."""
    context = profile_context(player, request.user, services.invitations_held(request.session))
    context["ratings_template"] = "rankings/_profile_ratings.html"
    context["history_template"] = "rankings/_profile_games.html"
    # The accounts page's own keys, for any template that still reads them.
    context["ratings"] = [
        {"mode_label": m["mode_label"], "rating": m["rating"], "games": m["games"]}
        for m in context["rankings_modes"]
    ]
    return context
