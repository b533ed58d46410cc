"""The same two pairs count for the ladder 3 times in 24 hours; later games are unrated, and the
table says so before the start (issue #13)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from accounts.models import User
from games import services
from games.models import Table
from games.services import fairplay
from rankings.models import RatedGame
from tests.factories import finished_game, login, lose_on_purpose, seat_all, start_seated

pytestmark = pytest.mark.django_db

NOTICE = 'id="pair-limit"'
REASON = "límite de partidas puntuadas"


def play(seated: list[User], winners: int = 0, **kwargs: object) -> Table:
    """A rated game of these four (seats 0–3 in this order) through the services, to its end."""
    table = seat_all(seated, **kwargs)
    start_seated(seated[0], table)
    return lose_on_purpose(table, winners)


def waiting_room(table: Table, user: User) -> str:
    response = login(user).get(f"/mesas/{table.pk}/espera/", headers={"HX-Request": "true"})
    assert response.status_code == 200
    return response.content.decode()


@pytest.fixture
def a_b_c_d(make_user: Callable[..., User]) -> list[User]:
    """Pairs a+c and b+d (seats 0+2 against 1+3)."""
    return [make_user(name) for name in ("ana", "bea", "carla", "dora")]


def test_the_fourth_game_of_the_same_pairs_is_unrated_and_the_table_says_so_first(
    a_b_c_d: list[User],
) -> None:
    a, b, c, d = a_b_c_d
    # Partners in either seat order and either pair on either side: the same two pairs.
    for seated in ([a, b, c, d], [c, d, a, b], [b, a, d, c]):
        game = play(seated)
        assert game.rated and not game.unrated_reason
    assert fairplay.rated_games_between([a.pk, b.pk, c.pk, d.pk]) == 3
    table = services.create_table(d, "4-reyes")
    for user, seat in ((c, 1), (b, 2)):
        services.take_seat(user, table.pk, seat)
    assert NOTICE not in waiting_room(table, d)  # three seated: nothing to say yet
    services.take_seat(a, table.pk, 3)
    page = waiting_room(table, b)
    assert NOTICE in page and "no contará para el ranking" in page and "3 partidas" in page
    assert "no puntuará" in page
    assert NOTICE in login(a).get(f"/mesas/{table.pk}/").content.decode()  # the full page too
    start_seated(d, table)
    table.refresh_from_db()
    assert not table.rated and table.unrated_reason == Table.UnratedReason.PAIR_LIMIT
    live = login(c).get(f"/mesas/{table.pk}/").content.decode()
    assert 'id="unrated-reason"' in live and REASON in live
    table = lose_on_purpose(table, winners=0)
    assert table.status == Table.Status.FINISHED
    assert not RatedGame.objects.filter(table=table).exists()
    game_page = login(a).get(reverse("game_detail", args=[table.pk])).content.decode()
    assert 'id="unrated-reason"' in game_page and REASON in game_page


def test_other_pairings_of_the_same_four_still_count(a_b_c_d: list[User]) -> None:
    a, b, c, d = a_b_c_d
    for _ in range(3):
        play([a, b, c, d])
    swapped = seat_all([a, c, b, d])  # a+b against c+d: two other pairs
    assert NOTICE not in waiting_room(swapped, a)
    start_seated(a, swapped)
    swapped.refresh_from_db()
    assert swapped.rated and not swapped.unrated_reason


def test_old_cancelled_and_friendly_games_do_not_count(a_b_c_d: list[User]) -> None:
    a, b, c, d = a_b_c_d
    long_ago = timezone.now() - fairplay.PAIR_WINDOW + timedelta(minutes=10)  # started before
    for _ in range(3):
        finished_game([a, b, c, d], finished_at=long_ago)
        finished_game([a, b, c, d], status=Table.Status.CANCELLED, finished_at=timezone.now())
        finished_game([a, b, c, d], private=True, rated=False, finished_at=timezone.now())
    assert fairplay.rated_games_between([a.pk, b.pk, c.pk, d.pk]) == 0
    table = seat_all([a, b, c, d])
    assert NOTICE not in waiting_room(table, a)
    start_seated(a, table)
    table.refresh_from_db()
    assert table.rated


def test_a_friendly_table_past_the_limit_says_nothing_and_stays_friendly(
    a_b_c_d: list[User],
) -> None:
    for _ in range(3):
        play(a_b_c_d)
    table = seat_all(a_b_c_d, private=True, rated=False)
    page = waiting_room(table, a_b_c_d[0])
    assert NOTICE not in page and "amistosa" in page
    start_seated(a_b_c_d[0], table)
    table.refresh_from_db()
    assert not table.rated and not table.unrated_reason


def test_a_rematch_past_the_limit_is_meant_rated_and_checked_again_at_its_start(
    a_b_c_d: list[User],
) -> None:
    for _ in range(3):
        last = play(a_b_c_d, private=True, rated=True)
    over = play(a_b_c_d, private=True, rated=True)
    assert over.unrated_reason == Table.UnratedReason.PAIR_LIMIT
    for user in a_b_c_d[:3]:
        rematch = services.rematch(user, over.pk)
    rematch.refresh_from_db()
    assert rematch.rated  # the host chose a rated table; the limit is not copied
    # A day after the first three games, the pairs may count again.
    Table.objects.filter(pk__lte=last.pk).update(started_at=timezone.now() - timedelta(days=1))
    started = services.rematch(a_b_c_d[3], over.pk)
    started.refresh_from_db()
    assert started.status == Table.Status.PLAYING and started.rated
