"""A profile says where its player sits now, to whoever may see that table."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from django.test import Client

from accounts.models import User
from games import services
from games.models import Table
from games.services import bots
from tests.factories import login, started_table

pytestmark = pytest.mark.django_db


def status_of(client: Client, player: User) -> str:
    page = client.get(f"/jugadores/{player.username}/").content.decode()
    start = page.find('<p class="profile-live">')
    return "" if start < 0 else page[start : page.index("</p>", start)]


def test_a_player_at_a_public_game_can_be_watched_from_the_profile(
    four_players: list[User], make_user: Callable[..., User]
) -> None:
    table = started_table(four_players)
    line = status_of(login(make_user()), four_players[2])
    assert "jugando ahora" in line and f"En la mesa #{table.pk}" in line
    assert f'href="/mesas/{table.pk}/">Mirar la partida' in line
    assert "Volver a la partida" in status_of(login(four_players[2]), four_players[2])
    # Anonymous visitors see it too: the table is public.
    assert f"/mesas/{table.pk}/" in status_of(Client(), four_players[2])


def test_a_player_waiting_at_an_open_table_shows_it(make_user: Callable[..., User]) -> None:
    host = make_user()
    table = services.create_table(host, "8-reyes")
    line = status_of(login(make_user()), host)
    assert "esperando jugadores" in line and f'href="/mesas/{table.pk}/">Ver la mesa' in line
    services.leave_seat(host, table.pk)
    assert status_of(login(make_user()), host) == ""


def test_private_tables_and_practice_stay_hidden_from_others(
    make_user: Callable[..., User],
) -> None:
    host = make_user()
    table = services.create_table(host, "4-reyes", private=True)
    assert status_of(login(make_user()), host) == ""
    assert f"/mesas/{table.pk}/" in status_of(login(host), host)
    services.leave_seat(host, table.pk)
    practice = bots.start_practice(host, "4-reyes")
    assert status_of(login(make_user()), host) == ""
    assert f"/mesas/{practice.pk}/" in status_of(login(host), host)
    services.cancel_game(practice.pk, Table.CancelReason.SYSTEM)
    assert status_of(login(host), host) == ""
