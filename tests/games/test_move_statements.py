"""A move plans from the table its last move left in this process: on a warm table an ordinary
move is the compare-and-set alone, and whatever changed the table meanwhile is seen by it."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from accounts.models import User
from games import services
from games.models import Seat, Table
from games.services.turns import to_act
from tests.factories import started_table

pytestmark = pytest.mark.django_db


def _next_to_act(table_id: int) -> int:
    table = services.load_table(table_id)
    return to_act(table, services.game_of(table))[0]


def test_an_ordinary_move_on_a_warm_table_is_one_statement(four_players: list[User]) -> None:
    table = started_table(four_players)
    seat = _next_to_act(table.pk)
    first = services.act(four_players[seat], table.pk, table.version, {"act": "mus"})
    seat = _next_to_act(table.pk)
    with CaptureQueriesContext(connection) as statements:
        moved = services.act(four_players[seat], table.pk, first.version, {"act": "mus"})
    assert len(statements) == 1
    assert statements[0]["sql"].startswith("UPDATE")
    assert Table.objects.get(pk=table.pk).version == moved.version == first.version + 1


@pytest.mark.parametrize("change", ["socket", "clock"])
def test_a_table_changed_outside_the_moves_is_read_again_before_the_move_commits(
    four_players: list[User], change: str
) -> None:
    table = started_table(four_players)
    seat = _next_to_act(table.pk)
    first = services.act(four_players[seat], table.pk, table.version, {"act": "mus"})
    # Neither moves the version: a socket counted at a seat, the clock moved by the sweep.
    if change == "socket":
        Seat.objects.filter(table=table, seat=2).update(connections=3)
    else:
        later = timezone.now() + timezone.timedelta(minutes=5)
        Table.objects.filter(pk=table.pk).update(deadline=later)
    seat = _next_to_act(table.pk)
    with CaptureQueriesContext(connection) as statements:
        moved = services.act(four_players[seat], table.pk, first.version, {"act": "mus"})
    # The copy lost the compare-and-set: the table read once, the move planned again.
    assert [s["sql"].split()[0] for s in statements] == ["UPDATE", "SELECT", "UPDATE"]
    after = services.load_table(table.pk)
    assert after.version == moved.version == first.version + 1
    if change == "socket":
        assert next(r for r in after.seat_rows if r["seat"] == 2)["connections"] == 3
        state = services.build_states(services.load_table(table.pk), ("-",))["-"]
        assert state["seats"][2]["connected"]
