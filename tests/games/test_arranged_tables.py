"""Tables set up for four players by somebody else (`services.start_arranged`, a tournament's
round), their own turn clock (`Table.turn_seconds`), and the sit checks higher apps add
(`games.hooks.provide_sit_check`)."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone

from accounts.models import User
from games import hooks, services
from games.models import Abandonment, Seat, Table
from games.services.moves import deadline_for
from tests.factories import seat_all, started_table

pytestmark = pytest.mark.django_db


@pytest.fixture
def players(make_user: Any) -> list[User]:
    return make_user.many(4)


def test_it_seats_the_four_and_deals_at_once_with_their_own_turn_clock(
    players: list[User],
) -> None:
    before = timezone.now()
    table = services.start_arranged(players, "8-reyes", turn_seconds=7)
    table.refresh_from_db()
    assert table.status == Table.Status.PLAYING and table.rated and not table.private
    assert table.mode == "8-reyes"
    assert [s.user_id for s in table.seats.order_by("seat")] == [p.pk for p in players]
    state = services.state_for(table, players[0])
    assert state["turn_seconds"] == 7
    # Nobody had a socket open: every seat waits for its player from now (docs/rules.md §8.3), and
    # the clock of the seats to act is stopped meanwhile.
    assert all(s.reconnect_deadline is not None for s in table.seats.all())
    assert table.deadline is None
    # Once they are here, their turns last the table's 7 seconds, not the site's 30.
    Seat.objects.filter(table=table).update(reconnect_deadline=None, disconnected_at=None)
    table = services.load_table(table.pk)
    deadline = deadline_for(table, services.game_of(table))
    assert deadline is not None
    assert timedelta(seconds=6) < deadline - before < timedelta(seconds=8)


def test_a_table_without_its_own_clock_uses_the_sites(players: list[User], settings: Any) -> None:
    settings.MUS_TURN_SECONDS = 13
    table = started_table(players)
    assert table.turn_seconds is None
    assert services.state_for(table, players[0])["turn_seconds"] == 13
    remaining = (table.deadline - timezone.now()).total_seconds()
    assert 11 < remaining <= 13


def test_it_refuses_every_seat_that_cannot_sit_and_changes_nothing(
    players: list[User], make_user: Any
) -> None:
    banned = players[1]
    banned.banned_at = timezone.now()
    banned.save(update_fields=["banned_at"])
    busy = started_table([players[3], *make_user.many(3)])
    with pytest.raises(services.SeatsRefused) as refused:
        services.start_arranged(players, "4-reyes")
    assert {seat: e.code for seat, e in refused.value.refused.items()} == {
        1: "banned",
        3: "already_seated",
    }
    assert not Table.objects.exclude(pk=busy.pk).exists()


def test_it_refuses_a_player_suspended_for_abandoning(players: list[User], make_user: Any) -> None:
    for _ in range(2):
        table = started_table([players[2], *make_user.many(3)])
        services.cancel_game(table.pk, Table.CancelReason.ABANDONED, abandoned_seat=0)
        Abandonment.objects.create(user=players[2], table=table, seat=0)
    with pytest.raises(services.SeatsRefused) as refused:
        services.start_arranged(players, "4-reyes")
    assert {s: e.code for s, e in refused.value.refused.items()} == {2: "suspended"}


def test_it_takes_a_player_from_a_table_not_started_and_ends_their_practice(
    players: list[User], make_user: Any
) -> None:
    waiting = seat_all([players[0], *make_user.many(3)])
    practice = services.start_practice(players[1], "4-reyes")
    table = services.start_arranged(players, "4-reyes")
    assert table.status == Table.Status.PLAYING
    assert not waiting.seats.filter(user=players[0]).exists()
    assert Table.objects.get(pk=practice.pk).cancel_reason == Table.CancelReason.PRACTICE_LEFT


def test_it_wants_four_different_players(players: list[User]) -> None:
    with pytest.raises(services.ServiceError) as refused:
        services.start_arranged([*players[:3], players[0]], "4-reyes")
    assert refused.value.code == "not_full"


# --------------------------------------------------------------------------------------------
# Sit checks of higher apps.
# --------------------------------------------------------------------------------------------
@pytest.fixture
def held(players: list[User]) -> Iterator[User]:
    """players[0] is held elsewhere by a check a higher app registered."""

    def check(user: Any) -> None:
        if user.pk == players[0].pk:
            raise services.ServiceError("held", "held")

    hooks.provide_sit_check(check)
    yield players[0]
    hooks._sit_checks.remove(check)


def test_a_sit_check_refuses_creating_and_taking_a_seat_but_not_practice(
    held: User, players: list[User]
) -> None:
    with pytest.raises(services.ServiceError) as refused:
        services.create_table(held, "4-reyes")
    assert refused.value.code == "held"
    table = services.create_table(players[1], "4-reyes")
    with pytest.raises(services.ServiceError) as refused:
        services.take_seat(held, table.pk, 1)
    assert refused.value.code == "held"
    assert services.start_practice(held, "4-reyes").status == Table.Status.PLAYING


def test_a_sit_check_does_not_stop_an_arranged_table(held: User, players: list[User]) -> None:
    assert services.start_arranged(players, "4-reyes").status == Table.Status.PLAYING
