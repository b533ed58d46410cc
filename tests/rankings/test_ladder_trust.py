"""Issue #29: a ladder that moves from the first day and still cannot be farmed.

Games are applied by the rating task as on the site (`rankings.tasks.rate_game`, or the task run
on commit after a game played through games.services); the figures beside the thresholds are
the ones `manage.py ladder_farming` prints for the same situations (docs/ratings.md).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from itertools import combinations

import pytest
from django.core.management import call_command

from accounts.models import User
from games.models import Table
from rankings import elo
from rankings.models import PlayerRating, RatingChange
from rankings.tasks import rate_game
from tests.factories import establish, farm_game, finished_game

pytestmark = pytest.mark.django_db

#: The most a farm may move the booster over what honest play among equals gives (0).
TARGET = 5
#: A launch cohort as in the simulation (a table's others can meet `elo.CIRCLE_FULL` players
#: besides the four at it within a few rounds).
COHORT = 40


def rating(user: User) -> PlayerRating:
    return PlayerRating.objects.get(user=user, mode="4-reyes")


def play_cohort(cohort: list[User], rounds: int, seed: int = 29) -> list[list[Table]]:
    """``rounds`` rounds of random fours; the pair with more hidden skill (the earlier players
    in ``cohort``) wins with Elo's odds for the gap, as Mus's luck allows."""
    rng = random.Random(seed)
    skill = {u.pk: 120 - 10 * i for i, u in enumerate(cohort)}
    played = []
    for _ in range(rounds):
        order = cohort[:]
        rng.shuffle(order)
        tables = []
        for g in range(len(order) // 4):
            four = order[4 * g : 4 * g + 4]
            edge = (
                skill[four[0].pk] + skill[four[2].pk] - skill[four[1].pk] - skill[four[3].pk]
            ) / 2
            winner = 0 if rng.random() < elo.expected_score(edge, 0) else 1
            table = finished_game(four, winner=winner)
            assert rate_game(table.pk) is True
            tables.append(table)
        played.append(tables)
    return played


def weights(tables: list[Table]) -> list[float]:
    return list(RatingChange.objects.filter(table__in=tables).values_list("weight", flat=True))


def test_a_launch_cohort_moves_from_its_first_games(players: Callable[[int], list[User]]) -> None:
    cohort = players(COHORT)
    rounds = play_cohort(cohort, rounds=5)
    # The first round is among brand-new accounts: it counts for nobody.
    assert set(weights(rounds[0])) == {0}
    # Then it counts more with every round, as the players at a table widen their circles.
    means = [sum(w) / len(w) for w in map(weights, rounds)]
    # Nothing in the first two rounds (brand-new accounts, circles of a table or two), a good
    # part in the third and most from the fourth.
    assert means == sorted(means) and means[1] == 0 and means[2] > 0.3 and means[3] > 0.75
    ratings = sorted(rating(u).rating for u in cohort)
    assert ratings[-1] - ratings[0] > 80  # not «±0»
    best, worst = cohort[: COHORT // 4], cohort[-COHORT // 4 :]
    assert sum(rating(u).rating for u in best) > sum(rating(u).rating for u in worst)
    call_command("recompute_ratings", "--check")


def test_a_booster_with_three_throwaways_gains_nothing(
    make_user: Callable[..., User],
    players: Callable[[int], list[User]],
    django_capture_on_commit_callbacks: Callable[..., object],
    rated_on_finish: None,
) -> None:
    booster, throwaways = make_user("booster"), players(3)
    # Each throwaway in turn partners the booster; the pairs' limit allows three a day each.
    for game in range(9):
        partner = throwaways[game % 3]
        rivals = [t for t in throwaways if t != partner]
        with django_capture_on_commit_callbacks(execute=True):
            table = farm_game(booster, partner, rivals, seed=game)
        assert table.winner_team == 0 and table.rated
    stored = rating(booster)
    assert stored.games == 9 and stored.wins == 9
    assert stored.rating - elo.INITIAL_RATING <= TARGET
    call_command("recompute_ratings", "--check")


def test_an_aged_ring_feeding_a_booster_gains_nothing(
    make_user: Callable[..., User],
    players: Callable[[int], list[User]],
    django_capture_on_commit_callbacks: Callable[..., object],
    rated_on_finish: None,
) -> None:
    """Issue #29's ring: five donors play 39 thrown games among themselves (each two-against-two
    split at most three times), so each has 30 rated games or more, then feed a booster for 30
    games, one of them its partner and two others its rivals, rotating."""
    donors = players(5)
    splits = [
        ((four[0], four[i]), [x for x in four[1:] if x is not four[i]])
        for four in combinations(donors, 4)
        for i in (1, 2, 3)
    ]
    for game in range(39):
        (a, b), (c, d) = splits[game % len(splits)]
        assert rate_game(finished_game([a, c, b, d], winner=game % 2).pk)
    assert min(rating(d).games for d in donors) >= elo.PROVISIONAL_GAMES
    booster = make_user("booster")
    feeds = [
        (partner, list(rivals))
        for partner in donors
        for rivals in combinations([d for d in donors if d != partner], 2)
    ]
    for game, (partner, rivals) in enumerate(feeds):
        with django_capture_on_commit_callbacks(execute=True):
            table = farm_game(booster, partner, rivals, seed=game)
        assert table.winner_team == 0 and table.rated
    stored = rating(booster)
    assert stored.games == 30 and stored.wins == 30
    assert stored.rating - elo.INITIAL_RATING <= TARGET
    limits = set(RatingChange.objects.filter(user=booster).values_list("limit", flat=True))
    # The booster's own first games, then: the donors have met nobody but each other.
    assert limits == {elo.Limit.NEW, elo.Limit.RIVALS}
    call_command("recompute_ratings", "--check")


def test_an_established_player_barely_moves_in_games_with_a_launch_cohort(
    make_user: Callable[..., User], players: Callable[[int], list[User]]
) -> None:
    cohort = players(COHORT)
    play_cohort(cohort, rounds=5)
    veteran = make_user("veterano")
    establish([veteran], games=200)
    rng = random.Random(1)
    for _ in range(5):
        partner, a, b = rng.sample(cohort, 3)
        before = {u.pk: rating(u).rating for u in (partner, a, b)}
        table = finished_game([veteran, a, partner, b], winner=0)
        assert rate_game(table.pk)
        changes = {c.user_id: c for c in RatingChange.objects.filter(table=table)}
        # The newcomers have five games of 30: a sixth of K 20 at most.
        assert 0 < changes[veteran.pk].delta < elo.K_ESTABLISHED * 5 / 30
        assert changes[veteran.pk].limit == elo.Limit.SETTLED
        # The newcomers move fully: the veteran's circle is wide, their own ratings are guesses.
        assert changes[partner.pk].delta > 10 and changes[a.pk].delta < -5
        assert rating(partner).rating > before[partner.pk]


def age_ring(ring: list[User], games_each: int) -> None:
    """The ring plays among itself, every two-against-two split in turn, alternate results,
    until each account has ``games_each`` rated games."""
    splits = [
        ([four[0], four[i]], [x for x in four[1:] if x is not four[i]])
        for four in combinations(ring, 4)
        for i in (1, 2, 3)
    ]
    played = dict.fromkeys(ring, 0)
    turn = 0
    while min(played.values()) < games_each:
        (a, b), (c, d) = splits[turn % len(splits)]
        assert rate_game(finished_game([a, c, b, d], winner=turn % 2).pk)
        for user in (a, b, c, d):
            played[user] += 1
        turn += 1


def feed(booster: User, ring: list[User], games: int) -> None:
    """The ring feeds the booster: one of it partners the booster, two others lose, rotating."""
    feeds = [
        (partner, rivals)
        for partner in ring
        for rivals in combinations([d for d in ring if d != partner], 2)
    ]
    random.Random(len(ring)).shuffle(feeds)
    for partner, (a, b) in feeds[:games]:
        assert rate_game(finished_game([booster, a, partner, b], winner=0).pk)


def test_a_ring_whose_donors_played_with_strangers_first_gains_nothing(
    make_user: Callable[..., User], players: Callable[[int], list[User]]
) -> None:
    """Eight throwaways each play one honest game with three established strangers (their
    circles are then as wide as a newcomer's), then feed a booster 30 games: the rivals have
    played most of their games with the booster, and have met few people the booster has not."""
    ring = players(8)
    for game, donor in enumerate(ring):
        strangers = players(3)
        establish(strangers, games=200)
        assert rate_game(finished_game([donor, *strangers], winner=game % 2).pk)
    booster = make_user("booster")
    feed(booster, ring, 30)
    stored = rating(booster)
    assert stored.games == 30 and stored.wins == 30
    assert stored.rating - elo.INITIAL_RATING <= TARGET


def test_a_large_aged_ring_feeding_a_booster_gains_little(
    make_user: Callable[..., User], players: Callable[[int], list[User]]
) -> None:
    """Sixteen throwaways play 10 games each among themselves (their circles fill), then feed a
    booster 30 games: the booster soon knows everybody its rivals have met."""
    ring = players(16)
    age_ring(ring, 10)
    booster = make_user("booster")
    feed(booster, ring, 30)
    stored = rating(booster)
    assert stored.games == 30 and stored.wins == 30
    assert stored.rating - elo.INITIAL_RATING <= 20  # plain Elo: about +400
    call_command("recompute_ratings", "--check")


def test_an_established_accomplice_does_not_lend_his_circle_to_a_ring(
    make_user: Callable[..., User], players: Callable[[int], list[User]]
) -> None:
    """An established accomplice partners the booster against a ring of eight that played four
    games each among themselves: the ring's circle beyond the booster is the accomplice."""
    accomplice, booster, ring = make_user("complice"), make_user("booster"), players(8)
    establish([accomplice], games=200)
    age_ring(ring, 4)
    for game, (a, b) in enumerate(list(combinations(ring, 2))[:30]):
        assert rate_game(finished_game([booster, a, accomplice, b], winner=0).pk), game
    assert rating(booster).rating - elo.INITIAL_RATING <= TARGET
