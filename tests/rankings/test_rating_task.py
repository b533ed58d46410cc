"""Finished games are applied to the ladder exactly once, by the rankings.rate_game task."""

from __future__ import annotations

import threading
from collections.abc import Callable
from unittest import mock

import pytest
from django.db import connection

from accounts.models import User
from games.models import Table
from rankings import elo
from rankings.models import PlayerRating, RatedGame, RatingChange
from rankings.recompute import bucket_differences
from rankings.tasks import rate_game
from tests.factories import (
    establish,
    finished_game,
    play_out,
    seat_all,
    start_seated,
    started_table,
)
from tests.live import celery_worker, wait_until


def ladder(mode: str = "4-reyes") -> dict[int, tuple[float, int, int]]:
    return {r.user_id: (r.rating, r.games, r.wins) for r in PlayerRating.objects.filter(mode=mode)}


@pytest.mark.django_db
def test_a_finished_game_moves_the_four_ratings(players: Callable[[int], list[User]]) -> None:
    four = players(4)
    establish(four)
    table = finished_game(four, winner=1)
    assert rate_game(table.pk) is True
    assert ladder() == {
        four[0].pk: (1490, 31, 0),
        four[1].pk: (1510, 31, 1),
        four[2].pk: (1490, 31, 0),
        four[3].pk: (1510, 31, 1),
    }
    changes = {c.user_id: c for c in RatingChange.objects.filter(table=table)}
    assert [
        (changes[p.pk].before, changes[p.pk].after, changes[p.pk].k, changes[p.pk].weight)
        for p in four
    ] == [
        (1500, 1490, 20, 1.0),
        (1500, 1510, 20, 1.0),
        (1500, 1490, 20, 1.0),
        (1500, 1510, 20, 1.0),
    ]
    assert changes[four[1].pk].won and not changes[four[0].pk].won
    assert changes[four[0].pk].played_at == table.finished_at
    assert RatedGame.objects.get(table=table).winner_team == 1


@pytest.mark.django_db
def test_a_game_among_four_new_accounts_counts_as_played_but_moves_nobody(
    players: Callable[[int], list[User]],
) -> None:
    four = players(4)
    table = finished_game(four, winner=0)
    assert rate_game(table.pk) is True
    assert ladder() == {p.pk: (1500, 1, int(i % 2 == 0)) for i, p in enumerate(four)}
    assert {(c.k, c.weight) for c in RatingChange.objects.filter(table=table)} == {(40, 0.0)}
    # Their next game does not count either: the four have met only each other (a closed group).
    rate_game(finished_game(four, winner=0).pk)
    assert ladder()[four[0].pk][0] == 1500


@pytest.mark.django_db
def test_running_the_task_again_changes_nothing_more(players: Callable[[int], list[User]]) -> None:
    four = players(4)
    table = finished_game(four, winner=0)
    assert rate_game(table.pk) is True
    before = ladder()
    assert rate_game(table.pk) is False
    assert rate_game(table.pk) is False
    assert ladder() == before
    assert RatingChange.objects.filter(table=table).count() == 4


@pytest.mark.django_db
def test_cancelled_unrated_and_practice_games_are_not_rated(
    players: Callable[[int], list[User]],
) -> None:
    four = players(4)
    cancelled = finished_game(four, status=Table.Status.CANCELLED)
    private_unrated = finished_game(four, private=True, rated=False)
    practice = finished_game(four, practice=True)
    for table in (cancelled, private_unrated, practice):
        assert rate_game(table.pk) is False
    assert not PlayerRating.objects.exists()
    assert not RatingChange.objects.exists()
    private_rated = finished_game(four, private=True, rated=True)
    assert rate_game(private_rated.pk) is True


@pytest.mark.django_db
def test_a_game_still_in_play_or_missing_is_not_rated(four_players: list[User]) -> None:
    table = started_table(four_players)
    assert rate_game(table.pk) is False
    assert rate_game(999_999) is False
    assert not RatedGame.objects.exists()


@pytest.mark.django_db
def test_provisional_players_move_twice_as_much_as_established_ones(
    players: Callable[[int], list[User]],
) -> None:
    four = players(4)
    establish([four[1], four[3]], games=100)  # rivals the ladder trusts: the result counts
    PlayerRating.objects.create(user=four[0], mode="4-reyes", games=30, met=50)
    PlayerRating.objects.create(user=four[2], mode="4-reyes", games=29, met=50)
    table = finished_game(four, winner=0)
    rate_game(table.pk)
    rows = ladder()
    # K 20 against K 40; four[0]'s gain, settled, also weighs their partner's 29 games of 30.
    assert rows[four[0].pk] == (pytest.approx(1500 + 10 * 29 / 30), 31, 1)
    assert rows[four[2].pk] == (1520, 30, 1)
    assert not PlayerRating.objects.get(user=four[0]).provisional
    assert not PlayerRating.objects.get(user=four[2]).provisional  # 30 games now


@pytest.mark.django_db
def test_the_ladders_of_the_two_modes_are_separate(players: Callable[[int], list[User]]) -> None:
    four = players(4)
    establish(four, "4-reyes")
    establish(four, "8-reyes", games=100)
    finished_game(four, mode="4-reyes", winner=0, rate=True)
    finished_game(four, mode="8-reyes", winner=1, rate=True)
    assert ladder("4-reyes")[four[0].pk] == (1510, 31, 1)
    assert ladder("8-reyes")[four[0].pk] == (1490, 101, 0)


@pytest.mark.django_db(transaction=True)
def test_concurrent_runs_of_the_task_rate_a_game_once(players: Callable[[int], list[User]]) -> None:
    four = players(4)
    establish(four)
    table = finished_game(four, winner=0)
    barrier = threading.Barrier(8)
    results: list[bool] = []
    errors: list[BaseException] = []

    def run() -> None:
        try:
            barrier.wait()
            results.append(rate_game(table.pk))
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=run) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert sorted(results) == [False] * 7 + [True]
    assert RatingChange.objects.filter(table=table).count() == 4
    assert ladder()[four[0].pk] == (1510, 31, 1)


@pytest.mark.django_db(transaction=True)
def test_concurrent_games_sharing_players_apply_in_one_consistent_order(
    players: Callable[[int], list[User]],
) -> None:
    """Games rated at the same time queue on their shared players: nothing is lost."""
    pool = players(6)
    tables = [
        finished_game(
            [pool[i % 6], pool[(i + 1) % 6], pool[(i + 2) % 6], pool[(i + 3) % 6]], winner=i % 2
        )
        for i in range(12)
    ]
    barrier = threading.Barrier(len(tables))

    def run(table_id: int) -> None:
        try:
            barrier.wait()
            rate_game(table_id)
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=(t.pk,)) for t in tables]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert RatedGame.objects.count() == 12
    assert sum(games for _r, games, _w in ladder().values()) == 48
    # Each player's changes chain: every change starts where their previous one ended.
    for player in pool:
        changes = list(RatingChange.objects.filter(user=player).order_by("id"))
        rating = elo.INITIAL_RATING
        for change in changes:
            assert change.before == rating
            rating = change.after
        assert PlayerRating.objects.get(user=player).rating == rating
    # The ladder places' buckets add up: every concurrent game moved them exactly.
    assert bucket_differences() == []


@pytest.mark.django_db
def test_finishing_a_game_enqueues_its_rating(
    four_players: list[User], django_capture_on_commit_callbacks: Callable[..., object]
) -> None:
    table = started_table(four_players)
    with (
        mock.patch("rankings.tasks.rate_game.delay") as delay,
        django_capture_on_commit_callbacks(execute=True),
    ):
        play_out(table)
    table.refresh_from_db()
    assert table.status == Table.Status.FINISHED
    delay.assert_called_once_with(table.pk)


@pytest.mark.django_db
def test_a_broker_outage_does_not_break_the_move_that_ends_the_game(
    four_players: list[User], django_capture_on_commit_callbacks: Callable[..., object]
) -> None:
    table = started_table(four_players)
    with (
        mock.patch("rankings.tasks.rate_game.delay", side_effect=ConnectionError("down")),
        django_capture_on_commit_callbacks(execute=True),
    ):
        play_out(table)
    table.refresh_from_db()
    assert table.status == Table.Status.FINISHED
    from rankings.services import pending_table_ids

    assert pending_table_ids() == [table.pk]


@pytest.mark.django_db
def test_a_cancelled_game_never_enqueues_a_rating(
    four_players: list[User], django_capture_on_commit_callbacks: Callable[..., object]
) -> None:
    from games import services

    table = started_table(four_players)
    with (
        mock.patch("rankings.tasks.rate_game.delay") as delay,
        django_capture_on_commit_callbacks(execute=True),
    ):
        services.cancel_game(table.pk, Table.CancelReason.ABANDONED)
    delay.assert_not_called()


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_a_real_worker_rates_a_finished_game_once_even_when_enqueued_again(
    four_players: list[User],
) -> None:
    table = seat_all(four_players)
    import random

    start_seated(four_players[0], table, random.Random(3))
    with celery_worker() as worker:
        play_out(Table.objects.get(pk=table.pk), seed=11)  # the game_ended signal enqueues
        for _ in range(3):
            rate_game.delay(table.pk)
        # That one and the three extra messages have all run.
        wait_until(lambda: worker.finished("rankings.rate_game") >= 4, timeout=30, every=0.2)
    assert RatedGame.objects.filter(table_id=table.pk).count() == 1
    assert RatingChange.objects.filter(table_id=table.pk).count() == 4
    assert sorted(games for _r, games, _w in ladder().values()) == [1, 1, 1, 1]
