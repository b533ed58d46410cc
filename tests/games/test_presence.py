"""Sockets, the seat that waits for its player, and the budget of docs/rules.md §8.3."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta

import pytest
from django.test import override_settings
from django.utils import timezone

from accounts.models import User
from games import services
from games.models import Connection, Seat, ServerProcess, Table
from tests.factories import seat_all

pytestmark = pytest.mark.django_db


def seat_of(table: Table, user: User) -> Seat:
    return Seat.objects.get(table=table, user=user)


def connect_all(table: Table, players: list[User]) -> None:
    for i, player in enumerate(players):
        services.socket_opened(table.pk, player.pk, f"start-{table.pk}-{i}")


def playing(players: list[User]) -> Table:
    """A started game whose four players are connected (one socket each)."""
    table = seat_all(players)
    connect_all(table, players)
    services.start_game(players[0], table.pk)
    table.refresh_from_db()
    return table


def shift_away_start(table: Table, user: User, seconds: float) -> None:
    """Pretend the player left `seconds` earlier than they did."""
    seat = seat_of(table, user)
    Seat.objects.filter(pk=seat.pk).update(
        disconnected_at=seat.disconnected_at - timedelta(seconds=seconds),
        reconnect_deadline=seat.reconnect_deadline - timedelta(seconds=seconds),
    )


def test_a_second_socket_keeps_the_player_here_until_the_last_one_closes(
    four_players: list[User],
) -> None:
    table = playing(four_players)
    player = four_players[1]
    services.socket_opened(table.pk, player.pk, "extra")
    assert seat_of(table, player).connections == 2
    services.socket_closed("extra")
    seat = seat_of(table, player)
    assert seat.connections == 1 and seat.reconnect_deadline is None
    services.socket_closed(f"start-{table.pk}-1")
    seat = seat_of(table, player)
    assert seat.connections == 0
    assert seat.reconnect_deadline is not None and seat.disconnected_at is not None
    # Coming back closes the window; a socket closed twice is counted once.
    services.socket_opened(table.pk, player.pk, "back")
    seat = seat_of(table, player)
    assert seat.connections == 1 and seat.reconnect_deadline is None
    assert seat.disconnected_at is None
    services.socket_closed("back")
    services.socket_closed("back")
    assert seat_of(table, player).connections == 0


def test_leaving_a_table_that_is_not_in_play_opens_no_window(four_players: list[User]) -> None:
    table = seat_all(four_players)  # seated, not started
    services.socket_opened(table.pk, four_players[3].pk, "s")
    services.socket_closed("s")
    seat = seat_of(table, four_players[3])
    assert seat.connections == 0 and seat.reconnect_deadline is None


def test_an_onlookers_sockets_change_no_seat(
    four_players: list[User], make_user: Callable[..., User]
) -> None:
    table = playing(four_players)
    onlooker = make_user("mirón")
    services.socket_opened(table.pk, onlooker.pk, "watch")
    services.socket_closed("watch")
    assert list(Seat.objects.filter(table=table).values_list("connections", flat=True)) == [1] * 4
    assert not Seat.objects.filter(table=table).exclude(reconnect_deadline=None).exists()


def test_a_player_not_connected_when_the_site_starts_the_game_is_waited_for_from_then(
    four_players: list[User],
) -> None:
    table = seat_all(four_players)
    connect_all(table, four_players[:3])
    services.start_game(four_players[0], table.pk, by_hand=False)  # as a rematch starts
    late = seat_of(table, four_players[3])
    assert late.connections == 0 and late.disconnected_at is not None
    assert late.reconnect_deadline is not None
    for player in four_players[:3]:
        assert seat_of(table, player).reconnect_deadline is None


@override_settings(MUS_RECONNECT_SECONDS=12)
def test_the_wait_is_a_budget_for_the_game_not_a_fresh_window_each_time(
    four_players: list[User],
) -> None:
    """A player who drops, comes back just before the window ends and drops again gets only
    what is left of their budget: they cannot hold the table hostage."""
    table = playing(four_players)
    staller = four_players[2]
    services.socket_closed(f"start-{table.pk}-2")
    shift_away_start(table, staller, 10)  # away 10 of their 12 s
    services.socket_opened(table.pk, staller.pk, "again")
    assert seat_of(table, staller).away_seconds == pytest.approx(10, abs=0.5)
    services.socket_closed("again")
    seat = seat_of(table, staller)
    left = (seat.reconnect_deadline - timezone.now()).total_seconds()
    assert 1 <= left <= 2.5
    # Once it is spent, the seat is abandoned and the game cancelled at once.
    shift_away_start(table, staller, 3)
    assert services.cancel_if_abandoned(table.pk)
    table.refresh_from_db()
    assert table.status == Table.Status.CANCELLED
    assert (table.cancel_reason, table.abandoned_seat) == ("abandono", 2)
    assert table.record["ended"] == {"reason": "abandono", "abandoned_seat": 2}


@override_settings(MUS_TURN_SECONDS=30)
def test_the_turn_clock_stops_while_its_player_is_away_and_resumes_with_what_was_left(
    four_players: list[User],
) -> None:
    table = playing(four_players)
    mano = services.game_of(table).mano
    Table.objects.filter(pk=table.pk).update(deadline=timezone.now() + timedelta(seconds=18))
    services.socket_closed(f"start-{table.pk}-{mano}")
    seat = seat_of(table, four_players[mano])
    assert seat.clock_left == pytest.approx(18, abs=1)
    # Away for longer than the clock had: no fresh 30 s on coming back, the 18 s it had.
    shift_away_start(table, four_players[mano], 25)
    Table.objects.filter(pk=table.pk).update(deadline=timezone.now() - timedelta(seconds=7))
    assert services.play_defaults(table.pk) == 0  # stopped: nothing is played for them
    services.socket_opened(table.pk, four_players[mano].pk, "back")
    table.refresh_from_db()
    left = (table.deadline - timezone.now()).total_seconds()
    assert 16 <= left <= 18.5


@override_settings(MUS_TURN_SECONDS=30)
def test_a_turn_that_comes_while_the_player_is_away_waits_with_its_clock_stopped(
    four_players: list[User],
) -> None:
    table = playing(four_players)
    mano = services.game_of(table).mano
    nxt = (mano + 1) % 4
    services.socket_closed(f"start-{table.pk}-{nxt}")
    services.act(four_players[mano], table.pk, table.version, {"act": "mus"})
    table.refresh_from_db()
    assert services.game_of(table).to_act() == [nxt]
    assert table.deadline is None  # nobody present to act: no clock runs
    services.socket_opened(table.pk, four_players[nxt].pk, "back")
    table.refresh_from_db()
    left = (table.deadline - timezone.now()).total_seconds()
    assert 28 <= left <= 30.5  # the whole turn: it never ran


@override_settings(MUS_PROCESS_TIMEOUT_SECONDS=15)
def test_the_sockets_of_a_server_process_that_went_silent_are_dropped(
    four_players: list[User],
) -> None:
    table = seat_all(four_players)
    for i, player in enumerate(four_players):
        services.socket_opened(table.pk, player.pk, f"dead-{i}", process="muerto")
    services.start_game(four_players[0], table.pk)
    ServerProcess.objects.create(name="muerto", beat_at=timezone.now() - timedelta(seconds=16))
    assert services.reap_silent_processes() == 4
    assert not Connection.objects.filter(process="muerto").exists()
    assert not ServerProcess.objects.filter(name="muerto").exists()
    for player in four_players:
        seat = seat_of(table, player)
        assert seat.connections == 0 and seat.reconnect_deadline is not None


def test_a_live_process_that_was_given_up_for_dead_counts_its_sockets_again(
    four_players: list[User],
) -> None:
    from games.services import connections

    table = playing(four_players)
    assert services.beat()  # new: registered now
    assert not services.beat()
    ServerProcess.objects.filter(name=connections.PROCESS).update(
        beat_at=timezone.now() - timedelta(hours=1)
    )
    services.reap_silent_processes()  # a stall, not a death
    assert seat_of(table, four_players[0]).connections == 0
    assert services.beat()  # it notices, and puts its sockets back
    assert [seat_of(table, p).connections for p in four_players] == [1, 1, 1, 1]
    assert not Seat.objects.filter(table=table).exclude(reconnect_deadline=None).exists()


@override_settings(MUS_TURN_SECONDS=30, MUS_RECONNECT_SECONDS=60)
def test_browsers_count_down_no_clock_while_the_seat_to_act_is_away(
    four_players: list[User],
) -> None:
    table = playing(four_players)
    mano = services.game_of(table).mano
    watcher = four_players[(mano + 1) % 4]
    state = services.state_for(table, watcher)
    assert state["deadline"] is not None and state["clock_seconds"] == 30
    services.socket_closed(f"start-{table.pk}-{mano}")
    table.refresh_from_db()
    assert table.deadline is not None  # stored still: whoever acts first when they are back
    state = services.state_for(table, watcher)
    assert state["deadline"] is None  # stopped (docs/rules.md §8.3)
    assert state["seats"][mano]["away_budget"] == 60
