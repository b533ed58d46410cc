"""Heavy work (hand analyses) runs on its own queue and worker: a flood of analyses never holds
up a turn clock (issue 30, item 2). Real workers as `make run` starts them, beat, PostgreSQL."""

from __future__ import annotations

import time
from typing import Any

import pytest

from games import health
from games.models import Table
from rankings.models import GameAnalysis
from tests.factories import UserFactory, finished_game, login, started_table
from tests.live import celery_worker, wait_until

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]

#: Accounts asking at once for the analysis of a finished game each (the issue's figure).
FLOOD = 14
#: How long the clock is watched, and the longest it may stand still meanwhile: its turns are
#: a second long and beat sweeps every second.
WATCH_SECONDS = 12.0
LONGEST_PAUSE = 4.0

CLOCK = {"MUS_TURN_SECONDS": "1", "MUS_RECUENTO_SECONDS": "1", "MUS_SWEEP_SECONDS": "1"}


def watch(table_id: int, seconds: float) -> list[float]:
    """The moments the table moved (its version changed) while watched."""
    moves = []
    version = Table.objects.get(pk=table_id).version
    started = time.monotonic()
    while (now := time.monotonic()) - started < seconds:
        current = Table.objects.get(pk=table_id).version
        if current != version:
            moves.append(now - started)
            version = current
        time.sleep(0.05)
    return moves


def test_a_flood_of_analyses_leaves_a_tables_clock_in_its_rhythm(settings: Any) -> None:
    settings.MUS_TURN_SECONDS = 1
    settings.MUS_RECUENTO_SECONDS = 1
    settings.MUS_ANALYSES_IN_FLIGHT = FLOOD  # all of them queued: the worst case for the site
    players = UserFactory("jugador").many(4)
    askers = UserFactory("curioso").many(FLOOD)
    games = [finished_game(players, ended_by="puntos") for _ in range(FLOOD)]
    with (
        celery_worker(beat=True, role="live", **CLOCK),
        celery_worker(role="heavy", nice=10, **CLOCK),
    ):
        # /salud/ asks a worker of each queue.
        wait_until(
            lambda: all(health.report()[name]["ok"] for name in ("worker", "heavy_worker")),
            timeout=30,
            message=f"/salud/ does not see both workers: {health.report()}",
        )
        table = started_table(players)
        for asker, game in zip(askers, games, strict=True):
            response = login(asker).post(f"/partidas/{game.pk}/analisis/", HTTP_HX_REQUEST="true")
            assert response.status_code == 200
        assert GameAnalysis.objects.count() == FLOOD
        moves = watch(table.pk, WATCH_SECONDS)
        # Still busy with them when the watch ended: the clock ran beside the analyses.
        assert GameAnalysis.objects.exclude(status=GameAnalysis.Status.DONE).exists()
    pauses = [b - a for a, b in zip([0.0, *moves], [*moves, WATCH_SECONDS], strict=True)]
    assert len(moves) >= WATCH_SECONDS / LONGEST_PAUSE, moves
    assert max(pauses) <= LONGEST_PAUSE, f"the clock stood still {max(pauses):.1f} s: {moves}"
