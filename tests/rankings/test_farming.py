"""Ladder farming with throwaway accounts (issue #13) pays nothing; normal play still counts.

The farming script: a booster and a fresh partner against two fresh rivals who lose on purpose
(«envido 40», «órdago», «no quiero»), at a private rated table, through the same services the
table's sockets call; the finished game is rated by the rankings task as on the site.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from accounts.models import User
from games.models import Table
from rankings import elo, queries, recompute
from rankings.models import PlayerRating, RatingChange
from tests.factories import (
    establish,
    farm_game,
    finished_game,
    lose_on_purpose,
    seat_all,
    start_seated,
)

pytestmark = pytest.mark.django_db

FARM_GAMES = 5
#: The most a booster's shown rating may move over the five farming games.
TARGET = 5


def shown(user: User) -> int:
    return queries.rating_labels([(user.pk, "4-reyes")])[(user.pk, "4-reyes")].rating


def farm(
    booster: User,
    players: Callable[[int], list[User]],
    capture: Callable[..., object],
) -> list[Table]:
    tables = []
    for game in range(FARM_GAMES):
        partner, *rivals = players(3)  # fresh accounts each time
        with capture(execute=True):
            table = farm_game(booster, partner, rivals, seed=game)
        assert table.status == Table.Status.FINISHED and table.winner_team == 0
        assert len(table.record["hands"][0]["actions"]) <= 7
        assert RatingChange.objects.filter(table=table).count() == 4  # it was rated
        tables.append(table)
    return tables


@pytest.mark.parametrize(
    ("rating", "games"), [(elo.INITIAL_RATING, 0), (1650.0, 200)], ids=["new", "established"]
)
def test_farming_with_fresh_accounts_moves_the_booster_five_points_at_most(
    players: Callable[[int], list[User]],
    make_user: Callable[..., User],
    django_capture_on_commit_callbacks: Callable[..., object],
    rated_on_finish: None,
    rating: float,
    games: int,
) -> None:
    booster = make_user("booster")
    if games:
        establish([booster], rating=rating, games=games)
    before = shown(booster)
    farm(booster, players, django_capture_on_commit_callbacks)
    stored = PlayerRating.objects.get(user=booster, mode="4-reyes")
    assert stored.games == games + FARM_GAMES and stored.wins == FARM_GAMES
    assert abs(shown(booster) - before) <= TARGET
    assert abs(stored.rating - rating) <= TARGET


def test_the_farm_ladder_is_rebuilt_exactly_by_the_recompute(
    players: Callable[[int], list[User]],
    make_user: Callable[..., User],
    django_capture_on_commit_callbacks: Callable[..., object],
    rated_on_finish: None,
) -> None:
    farm(make_user("booster"), players, django_capture_on_commit_callbacks)
    _ladder, differences = recompute.recompute(write=False)
    assert differences == []


def test_established_players_move_as_plain_elo_against_each_other(
    players: Callable[[int], list[User]],
    django_capture_on_commit_callbacks: Callable[..., object],
    rated_on_finish: None,
) -> None:
    four = players(4)
    establish(four[:2], rating=1600, games=80)
    establish(four[2:], rating=1400, games=30)
    table = seat_all(four, private=True, rated=True)
    with django_capture_on_commit_callbacks(execute=True):
        start_seated(four[0], table)
        lose_on_purpose(table, winners=1)
    # Pairs of 1500 and 1500 (1600 + 1400 each): an even game, K 20 each, counted in full.
    after = {r.user_id: r.rating for r in PlayerRating.objects.filter(mode="4-reyes")}
    assert after == {
        four[0].pk: 1590,
        four[1].pk: 1610,
        four[2].pk: 1390,
        four[3].pk: 1410,
    }
    weights = set(RatingChange.objects.filter(table=table).values_list("weight", flat=True))
    assert weights == {1.0}


def test_a_newcomer_among_established_players_moves_fully_from_the_fourth_game(
    players: Callable[[int], list[User]],
    django_capture_on_commit_callbacks: Callable[..., object],
    rated_on_finish: None,
) -> None:
    newcomer, mate, a, b = players(4)
    establish([mate, a, b], games=60)
    table = seat_all([newcomer, a, mate, b], private=True, rated=True)
    with django_capture_on_commit_callbacks(execute=True):
        start_seated(newcomer, table)
        lose_on_purpose(table, winners=0)
    changes = {c.user_id: c for c in RatingChange.objects.filter(table=table)}
    # A brand-new account decides nothing, not even for itself: its first win is worth nothing
    # to a booster, and the table's three others learn nothing about themselves from it.
    assert changes[newcomer.pk].delta == changes[mate.pk].delta == 0
    assert changes[a.pk].delta == changes[b.pk].delta == 0
    assert {c.limit for c in changes.values()} == {elo.Limit.NEW}
    weights = []
    for game in range(1, elo.FIRST_GAMES + 1):
        later = finished_game([newcomer, a, mate, b], winner=game % 2, rate=True)
        weights.append(RatingChange.objects.get(table=later, user=newcomer).weight)
    # A third, two thirds, then in full: the others' circles are wide.
    assert weights == pytest.approx([1 / 3, 2 / 3, 1])
    last = {c.user_id: c for c in RatingChange.objects.filter(table=later)}
    assert last[newcomer.pk].k == elo.K_PROVISIONAL and last[newcomer.pk].limit == ""
    # The established rivals move little: one of the pair they lost to is three games old.
    assert last[a.pk].limit == elo.Limit.SETTLED and last[a.pk].weight < 0.6
