"""Abandoning a game (docs/rules.md §8.4): recorded against the player who left, and suspensions."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta

import pytest
from django.utils import timezone, translation

from accounts.models import User
from games import services
from games.models import Abandonment, Seat, Table
from games.services import bots
from games.services.abandonment import suspension_end
from tests.factories import login, started_table

pytestmark = pytest.mark.django_db

T0 = datetime(2026, 12, 1, 20, 0, tzinfo=timezone.UTC)


def run_out_of_budget(table: Table, user: User) -> None:
    """The player is gone and their budget spent: the sweep cancels the game."""
    Seat.objects.filter(table=table, user=user).update(
        connections=0,
        disconnected_at=timezone.now() - timedelta(minutes=2),
        reconnect_deadline=timezone.now() - timedelta(seconds=1),
    )
    assert services.cancel_if_abandoned(table.pk)


@pytest.mark.parametrize(
    ("minutes_ago", "expected"),
    [
        ([], None),
        ([0], None),  # one abandonment: no suspension
        ([0, 60], timedelta(minutes=10)),  # the 2nd within 24 h
        ([0, 60, 120], timedelta(hours=1)),  # the 3rd
        ([0, 60, 120, 180], timedelta(hours=24)),  # and any later one
        ([0, 25 * 60], None),  # the earlier one is more than 24 h before the latest
    ],
)
def test_repeated_abandonment_suspends_for_longer_each_time(
    minutes_ago: list[int], expected: timedelta | None
) -> None:
    times = [T0 - timedelta(minutes=m) for m in minutes_ago]
    assert suspension_end(times) == (None if expected is None else T0 + expected)


def test_the_player_who_ran_out_of_budget_is_charged_and_the_others_are_not(
    four_players: list[User],
) -> None:
    table = started_table(four_players)
    run_out_of_budget(table, four_players[3])
    table.refresh_from_db()
    assert (table.status, table.cancel_reason, table.abandoned_seat) == ("cancelada", "abandono", 3)
    [abandonment] = Abandonment.objects.all()
    assert (abandonment.user, abandonment.table_id, abandonment.seat) == (
        four_players[3],
        table.pk,
        3,
    )


def test_a_practice_abandoned_costs_nothing(make_user: Callable[..., User]) -> None:
    player = make_user()
    practice = bots.start_practice(player, "4-reyes")
    run_out_of_budget(practice, player)
    assert not Abandonment.objects.exists()
    assert services.suspended_until(player) is None


def test_a_suspended_player_is_told_for_how_long_wherever_they_would_sit(
    four_players: list[User], make_user: Callable[..., User]
) -> None:
    quitter = four_players[0]
    for _ in range(2):
        run_out_of_budget(started_table(four_players), quitter)
    end = services.suspended_until(quitter)
    assert end is not None and 9 <= (end - timezone.now()).total_seconds() / 60 <= 10
    for attempt in (
        lambda: services.create_table(quitter, "4-reyes"),
        lambda: services.take_seat(quitter, services.create_table(make_user(), "8-reyes").pk, 1),
    ):
        with pytest.raises(services.ServiceError) as excinfo:
            attempt()
        assert excinfo.value.code == "suspended"
        with translation.override("es"):
            assert "10 minutos" in str(excinfo.value.message)
        with translation.override("en"):
            assert "10 more minutes" in str(excinfo.value.message)
    page = login(quitter).get("/").content.decode()
    assert "no puedes sentarte a jugar durante 10 minutos más" in page
    assert 'action="/mesas/nueva/"' not in page
    # Bots mind nobody's past: practice stays open.
    assert bots.start_practice(quitter, "4-reyes").status == Table.Status.PLAYING


def test_the_profile_counts_a_players_abandonments(four_players: list[User]) -> None:
    run_out_of_budget(started_table(four_players), four_players[1])
    page = login(four_players[2]).get(f"/jugadores/{four_players[1].username}/")
    assert "Ha abandonado 1 partida puntuada." in page.content.decode()
    other = login(four_players[2]).get(f"/jugadores/{four_players[0].username}/")
    assert "Ha abandonado" not in other.content.decode()
