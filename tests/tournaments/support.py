"""What the tournament tests build: tournaments, registered and checked-in pairs, and games
played to their end through the games services. Players come from tests.factories."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.utils import timezone

from accounts.models import User
from games import services as game_services
from games.models import Table
from tests.factories import make_user
from tournaments import services
from tournaments.models import Match, Pair, Tournament


def make_tournament(**fields: Any) -> Tournament:
    """A tournament open for registration, its check-in window open (it starts in 5 minutes)."""
    starts = timezone.now() + timedelta(minutes=5)
    defaults: dict[str, Any] = {
        "name": "Torneo de prueba",
        "mode": "4-reyes",
        "format": Tournament.Format.SWISS,
        "rounds": 3,
        "starts_at": starts,
        "registration_deadline": starts,
        "checkin_minutes": 15,
        "max_pairs": 16,
        "turn_seconds": 20,
    }
    defaults.update(fields)
    return Tournament.objects.create(**defaults)


def register_pairs(tournament: Tournament, n: int, prefix: str = "j") -> list[Pair]:
    """`n` pairs registered (invited and accepted), in order: players prefix0+prefix1, …"""
    pairs = []
    for i in range(n):
        a = make_user(f"{prefix}{2 * i}")
        b = make_user(f"{prefix}{2 * i + 1}")
        services.invite(a, tournament.pk, b.username)
        pairs.append(services.accept(b, tournament.pk))
    return pairs


def check_in_all(tournament: Tournament, pairs: list[Pair]) -> None:
    for pair in pairs:
        services.check_in(pair.first, tournament.pk)
        services.check_in(pair.second, tournament.pk)


def start_now(tournament: Tournament) -> Tournament:
    """The start time comes: the tournament starts as the beat sweep would start it."""
    Tournament.objects.filter(pk=tournament.pk).update(
        starts_at=timezone.now() - timedelta(seconds=1),
        registration_deadline=timezone.now() - timedelta(seconds=1),
    )
    services.sweep()
    tournament.refresh_from_db()
    return tournament


def ready_tournament(n: int, prefix: str = "j", **fields: Any) -> tuple[Tournament, list[Pair]]:
    """A started tournament of `n` checked-in pairs (players `prefix`0, `prefix`1…)."""
    tournament = make_tournament(**fields)
    pairs = register_pairs(tournament, n, prefix)
    check_in_all(tournament, pairs)
    return start_now(tournament), pairs


def current_matches(tournament: Tournament) -> list[Match]:
    tournament.refresh_from_db()
    return list(
        tournament.matches.filter(round=tournament.current_round)
        .select_related("table")
        .order_by("number")
    )


def finish_table(
    table: Table, winner_team: int, loser_tantos: int = 20, ended_by: str = "puntos"
) -> None:
    """End a tournament table's game as the services leave a finished one (seats no longer
    live, the table over): `winner_team` reached 40 (or won an órdago: `ended_by`), the other
    had `loser_tantos`."""
    scores = [loser_tantos, loser_tantos]
    scores[winner_team] = 40
    table.seats.update(active=False)
    Table.objects.filter(pk=table.pk).update(
        status=Table.Status.FINISHED,
        phase="terminada",
        winner_team=winner_team,
        scores=scores,
        ended_by=ended_by,
        finished_at=timezone.now(),
    )


def play_round(tournament: Tournament, winners: dict[int, int] | None = None) -> None:
    """Play every table of the current round to its end: match number -> winning team (0: pair
    a, 1: pair b; team 0 by default), then the tournament moves on as after a game's signal."""
    winners = winners or {}
    for match in current_matches(tournament):
        if match.status != Match.Status.PLAYING:
            continue
        finish_table(match.table, winners.get(match.number, 0))
    services.run(tournament.pk)
    tournament.refresh_from_db()


def players(pair: Pair) -> tuple[User, User]:
    return pair.first, pair.second


__all__ = [
    "check_in_all",
    "current_matches",
    "finish_table",
    "game_services",
    "make_tournament",
    "play_round",
    "players",
    "ready_tournament",
    "register_pairs",
    "start_now",
]
