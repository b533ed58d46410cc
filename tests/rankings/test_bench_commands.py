"""seed_bench_data fills consistent data quickly; bench_pages times the pages on it."""

from __future__ import annotations

import io

import pytest
from django.core.management import CommandError, call_command
from django.test import Client
from django.urls import reverse

from accounts.models import User
from games import engine
from games.models import Seat, Table
from rankings import recompute
from rankings.models import PlayerRating, RatedGame, RatingChange

pytestmark = pytest.mark.django_db


def test_seeded_games_replay_and_their_ladders_equal_a_recompute(client: Client) -> None:
    out = io.StringIO()
    call_command("seed_bench_data", "--players", "60", "--games", "400", stdout=out)
    assert User.objects.filter(is_bot=False).count() == 60
    assert Table.objects.count() == 400
    assert Seat.objects.count() == 1600
    rated = RatedGame.objects.count()
    assert 300 < rated < 400  # cancelled and private unrated games are not rated
    assert RatingChange.objects.count() == 4 * rated
    assert PlayerRating.objects.filter(games__gt=0).count() > 60
    # The seeded ladders are exactly what rating the games one by one gives.
    assert recompute.recompute(write=False)[1] == []
    # Every kind of seeded game is a real record whose replay is the stored result.
    for table in (
        Table.objects.filter(status=Table.Status.FINISHED)
        .order_by("mode", "winner_team", "ended_by")
        .distinct("mode", "winner_team", "ended_by")
    ):
        result = engine.replay_result(table.record)
        assert (result["scores"], result["winner"], result["ended_by"]) == (
            table.scores,
            table.winner_team,
            table.ended_by,
        )
        assert client.get(reverse("game_detail", args=[table.pk])).status_code in (200, 404)
    assert client.get(reverse("rankings:leaderboard")).status_code == 200


def test_seeding_a_million_games_is_refused_outside_a_bench_database() -> None:
    with pytest.raises(CommandError, match="_bench"):
        call_command("seed_bench_data", "--players", "10", "--games", "1000000")


def test_bench_pages_prints_a_median_and_the_queries_of_each_page() -> None:
    call_command("seed_bench_data", "--players", "30", "--games", "120", stdout=io.StringIO())
    out = io.StringIO()
    call_command("bench_pages", "--runs", "2", "--warmup", "0", stdout=out)
    text = out.getvalue()
    for page in ("leaderboard 4 reyes", "profile, typical player", "history, busiest player"):
        assert page in text
    assert "median ms" in text
