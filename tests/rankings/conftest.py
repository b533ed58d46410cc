"""Factories for the rankings tests: finished games with real records, and ladders."""

from __future__ import annotations

import random
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

import pytest
from django.utils import timezone

from accounts.models import User
from games import engine, services
from games.models import Seat, Table
from rankings import services as rating_services
from tests.games.conftest import four_players, make_user, seat_all, started_table
from tools.engine_bench import play_random_game, random_action

__all__ = ["four_players", "make_user", "seat_all", "started_table"]

_RECORDS: dict[tuple[str, int, str], dict[str, Any]] = {}


def record_for(
    mode: str = "4-reyes", winner: int = 0, ended_by: str | None = None
) -> dict[str, Any]:
    """A real, complete record of a random game of ``mode`` won by ``winner`` (cached)."""
    key = (mode, winner, ended_by)
    if key not in _RECORDS:
        seed = 0
        while True:
            seed += 1
            game, _n = play_random_game(mode, random.Random(seed))
            if game.winner == winner and game.ended_by == ended_by:
                _RECORDS[key] = engine.export_record(game)
                break
    return _RECORDS[key]


_clock = iter(range(1, 10_000_000))


def finished_game(
    players: list[User],
    mode: str = "4-reyes",
    winner: int = 0,
    *,
    ended_by: str = "puntos",
    rated: bool = True,
    private: bool = False,
    practice: bool = False,
    status: str = Table.Status.FINISHED,
    finished_at: datetime | None = None,
    rate: bool = False,
) -> Table:
    """A table whose game has ended, stored as games.services leaves it (record, scores…).

    Seats 0–3 get ``players`` in order. ``rate=True`` also applies it to the ladder.
    """
    record = record_for(mode, winner, ended_by)
    result = engine.replay_result(record)
    finished_at = finished_at or timezone.now() - timedelta(days=1) + timedelta(
        seconds=next(_clock)
    )
    cancelled = status == Table.Status.CANCELLED
    table = Table.objects.create(
        mode=mode,
        host=players[0],
        private=private,
        rated=rated and not practice,
        practice=practice,
        status=status,
        phase="cancelada" if cancelled else "terminada",
        record=record,
        scores=result["scores"],
        winner_team=None if cancelled else result["winner"],
        ended_by="" if cancelled else result["ended_by"],
        started_at=finished_at - timedelta(minutes=20),
        finished_at=finished_at,
    )
    Seat.objects.bulk_create(
        [Seat(table=table, seat=i, user=p, active=False) for i, p in enumerate(players)]
    )
    if rate:
        rating_services.rate_table(table.pk)
    return table


def play_out(table: Table, seed: int = 7, max_actions: int = 20_000) -> Table:
    """Play a started table to its end through games.services (random legal moves)."""
    rng = random.Random(seed)
    for _ in range(max_actions):
        table.refresh_from_db()
        if table.status != Table.Status.PLAYING:
            return table
        game = services.game_of(table)
        services.apply_action(table, random_action(game, rng))
    raise AssertionError("the game did not end")


@pytest.fixture
def players(make_user: Callable[..., User]) -> Callable[[int], list[User]]:
    """``players(n)``: n fresh players."""
    counter = iter(range(100_000))

    def make(n: int = 4) -> list[User]:
        return [make_user(f"jug{next(counter)}") for _ in range(n)]

    return make
