"""Recomputing the ladders from the games gives exactly the numbers applied game by game."""

from __future__ import annotations

import random
from collections.abc import Callable

import pytest
from django.core.management import CommandError, call_command

from accounts.models import User
from games.models import Table
from rankings import recompute, services, tasks
from rankings.models import PlayerRating, RatedGame, RatingChange
from tests.factories import finished_game

pytestmark = pytest.mark.django_db


def snapshot() -> tuple[list[tuple], list[tuple]]:
    ratings = sorted(
        PlayerRating.objects.values_list(
            "user_id", "mode", "rating", "games", "wins", "best_rating", "last_played_at"
        )
    )
    changes = sorted(
        RatingChange.objects.values_list("user_id", "table_id", "before", "after", "k", "won")
    )
    return ratings, changes


def play_season(pool: list[User], games: int, seed: int = 1) -> None:
    rng = random.Random(seed)
    for _ in range(games):
        four = rng.sample(pool, 4)
        mode = rng.choice(["4-reyes", "8-reyes"])
        kind = rng.random()
        if kind < 0.1:
            finished_game(four, mode, status=Table.Status.CANCELLED)
        elif kind < 0.15:
            finished_game(four, mode, private=True, rated=False)
        else:
            finished_game(four, mode, winner=rng.randrange(2), rate=True)


def test_recompute_equals_the_incremental_ladder(players: Callable[[int], list[User]]) -> None:
    play_season(players(6), 130)
    incremental = snapshot()
    assert max(games for _u, _m, _r, games, *_ in incremental[0]) > 30  # past provisional K
    ladder, differences = recompute.recompute(write=False)
    assert differences == []
    assert len(ladder.changes) == len(incremental[1])
    # Wipe everything and rebuild from the games alone: the same numbers, to the last bit.
    PlayerRating.objects.all().delete()
    RatingChange.objects.all().delete()
    RatedGame.objects.all().delete()
    call_command("recompute_ratings")
    assert snapshot() == incremental
    call_command("recompute_ratings", "--check")


def test_the_check_reports_a_tampered_ladder_and_recompute_repairs_it(
    players: Callable[[int], list[User]],
) -> None:
    play_season(players(6), 12, seed=2)
    honest = snapshot()
    PlayerRating.objects.filter(pk=PlayerRating.objects.first().pk).update(rating=3000)
    with pytest.raises(CommandError):
        call_command("recompute_ratings", "--check")
    call_command("recompute_ratings")
    assert snapshot() == honest


def test_the_recompute_task_repairs_a_tampered_ladder_and_sums_up_what_it_did(
    players: Callable[[int], list[User]], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(tasks, "DIFFERENCES_SHOWN", 3)
    play_season(players(6), 12, seed=2)
    honest = snapshot()
    summary = tasks.recompute_ratings_task()
    assert summary["differences"] == 0
    assert summary["output"].endswith("The stored ladders equal the recomputed ones.")
    PlayerRating.objects.update(rating=3000)
    summary = tasks.recompute_ratings_task()
    assert snapshot() == honest
    assert summary["games"] == RatedGame.objects.count() and summary["changes"] > 0
    assert summary["differences"] > 3
    lines = summary["output"].splitlines()
    assert lines[0].startswith(f"{summary['games']} rated games, {summary['ladders']} player")
    assert len(lines) == 1 + 3 + 2  # the first three differences, «… and n more», the end
    assert lines[-2] == f"  … and {summary['differences'] - 3} more"
    assert lines[-1] == "The stored ladders were replaced."


def test_games_whose_task_was_lost_are_rated_by_rate_pending(
    players: Callable[[int], list[User]],
) -> None:
    four = players(4)
    rated = finished_game(four, rate=True)
    lost = finished_game(four, winner=1)
    assert services.pending_table_ids() == [lost.pk]
    call_command("rate_pending")
    assert services.pending_table_ids() == []
    assert set(RatedGame.objects.values_list("table_id", flat=True)) == {rated.pk, lost.pk}
    assert recompute.recompute(write=False)[1] == []


def test_the_beat_task_rates_games_whose_task_was_lost(
    players: Callable[[int], list[User]],
) -> None:
    from musweb.celery import app
    from rankings.tasks import rate_pending

    four = players(4)
    lost = finished_game(four, winner=0)
    assert rate_pending() == 1
    assert services.pending_table_ids() == []
    assert RatedGame.objects.filter(table_id=lost.pk).exists()
    app.loader.import_default_modules()
    scheduled = {entry["task"] for entry in app.conf.beat_schedule.values()}
    assert {"rankings.rate_pending", "games.sweep_deadlines"} <= scheduled
