"""Counting a seated player's sockets (services.player_connected / player_disconnected)."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from accounts.models import User
from games import services
from games.models import Seat, Table
from tests.factories import seat_all, started_table

pytestmark = pytest.mark.django_db


def seat_of(table: Table, user: User) -> Seat:
    return Seat.objects.get(table=table, user=user)


def test_a_second_socket_keeps_the_player_here_until_the_last_one_closes(
    four_players: list[User],
) -> None:
    table = started_table(four_players)
    player = four_players[1]
    services.player_connected(table.pk, player)
    services.player_connected(table.pk, player)
    assert seat_of(table, player).connections == 2
    services.player_disconnected(table.pk, player)
    seat = seat_of(table, player)
    assert seat.connections == 1 and seat.reconnect_deadline is None
    services.player_disconnected(table.pk, player)
    seat = seat_of(table, player)
    assert seat.connections == 0
    assert seat.reconnect_deadline is not None and seat.disconnected_at is not None
    # Coming back closes the window; an extra close never makes the count negative.
    services.player_connected(table.pk, player)
    seat = seat_of(table, player)
    assert seat.connections == 1 and seat.reconnect_deadline is None
    assert seat.disconnected_at is None
    services.player_disconnected(table.pk, player)
    services.player_disconnected(table.pk, player)
    assert seat_of(table, player).connections == 0


def test_a_window_already_open_is_not_moved_by_another_close(four_players: list[User]) -> None:
    table = started_table(four_players)
    player = four_players[2]
    services.player_connected(table.pk, player)
    services.player_disconnected(table.pk, player)
    first = seat_of(table, player).reconnect_deadline
    Seat.objects.filter(table=table, user=player).update(connections=1)  # a stray count
    services.player_disconnected(table.pk, player)
    assert seat_of(table, player).reconnect_deadline == first


def test_leaving_a_table_that_is_not_in_play_opens_no_window(
    four_players: list[User],
) -> None:
    table = seat_all(four_players)  # seated, not started
    services.player_connected(table.pk, four_players[3])
    services.player_disconnected(table.pk, four_players[3])
    seat = seat_of(table, four_players[3])
    assert seat.connections == 0 and seat.reconnect_deadline is None


def test_an_onlookers_sockets_change_no_seat(
    four_players: list[User], make_user: Callable[..., User]
) -> None:
    table = started_table(four_players)
    onlooker = make_user("mirón")
    services.player_connected(table.pk, onlooker)
    services.player_disconnected(table.pk, onlooker)
    assert list(Seat.objects.filter(table=table).values_list("connections", flat=True)) == [0] * 4
    assert not Seat.objects.filter(table=table).exclude(reconnect_deadline=None).exists()
