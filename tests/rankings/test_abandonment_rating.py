"""Abandoning a rated game costs the player who left, and only them (docs/rules.md §8.4)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta

import pytest
from django.core.management import call_command
from django.utils import timezone

from accounts.models import User
from games import services
from games.models import Seat, Table
from rankings import elo
from rankings import services as rating_services
from rankings.models import PlayerRating, RatedGame, RatingChange
from tests.factories import establish, login, started_table

pytestmark = pytest.mark.django_db


def abandon(table: Table, user: User) -> None:
    Seat.objects.filter(table=table, user=user).update(
        connections=0, reconnect_deadline=timezone.now() - timedelta(seconds=1)
    )
    assert services.cancel_if_abandoned(table.pk)


def ratings(users: list[User], mode: str = "4-reyes") -> list[tuple[float, int]]:
    rows = {r.user_id: r for r in PlayerRating.objects.filter(user__in=users, mode=mode)}
    return [(rows[u.pk].rating, rows[u.pk].games) if u.pk in rows else None for u in users]


def test_the_player_who_abandons_loses_as_if_their_pair_lost_and_nobody_else_moves(
    players: Callable[[int], list[User]],
) -> None:
    four = players(4)
    establish(four)
    PlayerRating.objects.filter(user=four[1]).update(rating=1600)  # the quitter's pair is ahead
    before = ratings(four)
    table = started_table(four)
    abandon(table, four[3])  # at 0-35 a player of the losing pair closes the tab
    assert rating_services.rate_table(table.pk)
    after = ratings(four)
    standings = [elo.Standing(r, g) for r, g in before]
    expected = elo.abandonment_change(standings, 3)
    assert after[3] == (pytest.approx(expected.after), before[3][1] + 1)
    assert after[3][0] < before[3][0]
    assert after[:3] == before[:3]  # partner and rivals: unchanged, no game counted
    [change] = RatingChange.objects.filter(table=table)
    assert (change.user_id, change.won, change.weight) == (four[3].pk, False, 1.0)
    assert RatedGame.objects.get(table=table).abandoned_seat == 3
    assert not rating_services.rate_table(table.pk)  # exactly once


def test_abandoning_a_table_of_new_accounts_still_costs_in_full(
    players: Callable[[int], list[User]],
) -> None:
    """The ladder's weight (how known the others are) does not apply: leaving never comes free."""
    four = players(4)
    establish(four[3:])
    table = started_table(four)
    abandon(table, four[3])
    rating_services.rate_table(table.pk)
    rating = PlayerRating.objects.get(user=four[3], mode="4-reyes").rating
    assert rating == pytest.approx(elo.INITIAL_RATING - elo.K_ESTABLISHED * 0.5)


def test_an_abandoned_practice_or_unrated_game_moves_nobody(
    players: Callable[[int], list[User]],
) -> None:
    four = players(4)
    table = started_table(four)
    Table.objects.filter(pk=table.pk).update(rated=False)
    abandon(table, four[0])
    assert not rating_services.rate_table(table.pk)
    assert not RatingChange.objects.exists()


def test_the_rating_task_is_queued_and_recompute_rebuilds_abandonments_too(
    players: Callable[[int], list[User]], django_capture_on_commit_callbacks: Callable
) -> None:
    four = players(4)
    table = started_table(four)
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        abandon(table, four[2])
    assert callbacks  # the ladder is told once the cancel is committed
    assert rating_services.pending_table_ids() == [table.pk]
    rating_services.rate_table(table.pk)
    stored = ratings(four)
    PlayerRating.objects.all().delete()
    RatingChange.objects.all().delete()
    RatedGame.objects.all().delete()
    call_command("recompute_ratings")
    assert ratings(four) == stored
    call_command("recompute_ratings", "--check")


def test_the_game_page_says_who_abandoned_it_and_what_it_cost(
    players: Callable[[int], list[User]],
) -> None:
    four = players(4)
    table = started_table(four)
    abandon(table, four[1])
    page = login(four[0]).get(f"/partidas/{table.pk}/").content.decode()
    assert f"<bdi>{four[1].public_name}</bdi> la abandonó y se le cuenta como derrota" in page
