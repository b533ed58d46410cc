"""A rematch: the same four at a new table, asked for from the finished one."""

from __future__ import annotations

import threading
from collections.abc import Callable

import pytest
from django.db import connection
from django.test import Client

from accounts.models import User
from games import services
from games.models import Table
from games.services import bots
from tests.factories import finished_game, login, start_seated, started_table

pytestmark = pytest.mark.django_db

HTMX = {"HTTP_HX_REQUEST": "true"}


def seats_of(table: Table) -> dict[int, int]:
    return dict(table.seats.values_list("seat", "user_id"))


def test_the_four_who_ask_for_a_rematch_sit_where_they_sat_and_the_last_starts_it(
    four_players: list[User],
) -> None:
    old = finished_game(four_players, mode="8-reyes", private=True, rated=False)
    # Seat 2 asks first: the new table is like the old one and they sit in their own seat.
    new = services.rematch(four_players[2], old.pk)
    old.refresh_from_db()
    assert old.rematch_id == new.pk
    assert (new.mode, new.private, new.rated, new.status) == ("8-reyes", True, False, "abierta")
    assert new.host_id == four_players[2].pk
    assert seats_of(new) == {2: four_players[2].pk}
    for seat in (0, 3):
        assert services.rematch(four_players[seat], old.pk).pk == new.pk
    new.refresh_from_db()
    assert new.status == Table.Status.OPEN
    assert seats_of(new) == {s: four_players[s].pk for s in (0, 2, 3)}
    # The fourth starts it: partners are partners again.
    started = services.rematch(four_players[1], old.pk)
    assert started.pk == new.pk
    new.refresh_from_db()
    assert new.status == Table.Status.PLAYING and services.game_of(new) is not None
    assert seats_of(new) == {s: p.pk for s, p in enumerate(four_players)}


def test_asking_twice_keeps_the_seat_at_the_rematch(four_players: list[User]) -> None:
    old = finished_game(four_players)
    first = services.rematch(four_players[1], old.pk)
    assert services.rematch(four_players[1], old.pk).pk == first.pk
    assert Table.objects.count() == 2 and seats_of(first) == {1: four_players[1].pk}


def test_a_rematch_is_reserved_to_the_four_each_in_their_own_seat(
    four_players: list[User], make_user: Callable[..., User]
) -> None:
    """docs/rules.md §8.5: a stranger sat at a public rematch, scrambled the pairs and locked the
    fourth player out. The rematch is not among the lobby's tables to sit at, and nobody else
    may sit there."""
    old = finished_game(four_players)
    new = services.rematch(four_players[0], old.pk)
    assert f'data-table="{new.pk}"' not in login(make_user()).get("/").content.decode()
    stranger = make_user()
    with pytest.raises(services.ServiceError) as excinfo:
        services.take_seat(stranger, new.pk, 1, new.invite_token)  # even with the link
    assert excinfo.value.code == "reserved"
    with pytest.raises(services.ServiceError) as excinfo:
        services.take_seat(four_players[1], new.pk, 3, new.invite_token)  # not their seat
    assert excinfo.value.code == "reserved"
    services.rematch(four_players[1], old.pk)
    assert seats_of(new) == {0: four_players[0].pk, 1: four_players[1].pk}


def test_a_rematch_not_all_four_ask_for_closes_by_itself(
    four_players: list[User], settings: object
) -> None:
    from datetime import timedelta

    from django.utils import timezone

    from games.tasks import sweep_deadlines

    old = finished_game(four_players)
    new = services.rematch(four_players[0], old.pk)
    services.rematch(four_players[1], old.pk)
    sweep_deadlines()
    assert Table.objects.get(pk=new.pk).status == Table.Status.OPEN  # still in time
    Table.objects.filter(pk=new.pk).update(created_at=timezone.now() - timedelta(minutes=3))
    sweep_deadlines()
    new.refresh_from_db()
    assert new.status == Table.Status.CLOSED and not new.seats.exists()
    # Both may play elsewhere, or ask again: a new rematch opens.
    again = services.rematch(four_players[2], old.pk)
    assert again.pk != new.pk and again.status == Table.Status.OPEN


def test_a_rematch_closed_by_its_host_is_opened_again_by_the_next_to_ask(
    four_players: list[User],
) -> None:
    old = finished_game(four_players)
    closed = services.rematch(four_players[0], old.pk)
    services.leave_seat(four_players[0], closed.pk)  # alone: the table closes
    closed.refresh_from_db()
    assert closed.status == Table.Status.CLOSED
    again = services.rematch(four_players[3], old.pk)
    assert again.pk != closed.pk and seats_of(again) == {3: four_players[3].pk}
    old.refresh_from_db()
    assert old.rematch_id == again.pk


@pytest.mark.parametrize(
    "case",
    [
        "in_progress",
        "practice",
        "only_bots",
        "not_a_player",
        "seated_elsewhere",
        "started_without_you",
    ],
)
def test_it_refuses_a_rematch_it_cannot_give(
    case: str, four_players: list[User], make_user: Callable[..., User]
) -> None:
    asker = four_players[0]
    if case == "in_progress":
        table, code = started_table(four_players), "not_over"
    elif case == "practice":
        practice = bots.start_practice(asker, "4-reyes")
        services.cancel_game(practice.pk, Table.CancelReason.SYSTEM)
        Table.objects.filter(pk=practice.pk).update(status=Table.Status.FINISHED)
        table, code = practice, "practice"
    elif case == "only_bots":
        # A table its host filled with bots: nobody there to ask for a rematch with.
        alone = services.create_table(asker, "4-reyes")
        bots.fill_with_bots(asker, alone.pk)
        start_seated(asker, alone)
        services.cancel_game(alone.pk, Table.CancelReason.SYSTEM)
        Table.objects.filter(pk=alone.pk).update(status=Table.Status.FINISHED)
        table, code = alone, "bots"
    elif case == "not_a_player":
        table, code, asker = finished_game(four_players), "not_player", make_user()
    elif case == "seated_elsewhere":
        table, code = finished_game(four_players), "already_seated"
        services.create_table(asker, "4-reyes")
    else:
        table, code = finished_game(four_players), "started"
        new = services.rematch(four_players[1], table.pk)
        bots.fill_with_bots(four_players[1], new.pk)  # the host did not wait for the others
        start_seated(four_players[1], new)
    tables_before = Table.objects.count()
    version = Table.objects.get(pk=table.pk).version
    with pytest.raises(services.ServiceError) as excinfo:
        services.rematch(asker, table.pk)
    assert excinfo.value.code == code
    assert Table.objects.count() == tables_before
    assert Table.objects.get(pk=table.pk).version == version


def test_the_finished_table_shows_its_players_who_asked_and_takes_them_there(
    four_players: list[User], make_user: Callable[..., User]
) -> None:
    old = finished_game(four_players, private=True)
    url = f"/mesas/{old.pk}/revancha/"
    clients = [login(p) for p in four_players]
    box = clients[0].get(url, **HTMX)
    assert box.status_code == 200 and "Pedir la revancha" in box.content.decode()
    # The page itself carries the box only for the players.
    assert 'id="rematch"' in clients[0].get(f"/mesas/{old.pk}/").content.decode()
    response = clients[0].post(url)
    new = Table.objects.get(pk=old.pk).rematch
    assert response["Location"] == f"/mesas/{new.pk}/"
    # A private rematch: its players get in without the invitation link.
    assert clients[0].get(response["Location"]).status_code == 200
    box = clients[1].get(url, **HTMX).content.decode()
    assert f"<bdi>{four_players[0].public_name}</bdi> pide la revancha (1 de 4)" in box
    clients[1].post(url)
    assert "Revancha: 2 de 4 en la mesa." in clients[1].get(url, **HTMX).content.decode()
    waiting = clients[1].get(f"/mesas/{new.pk}/").content.decode()
    assert f'Revancha de la <a href="/partidas/{old.pk}/">partida #{old.pk}</a>' in waiting
    # Somebody who did not play sees nothing, and is refused with the reason.
    outsider = login(make_user())
    assert outsider.get(url, **HTMX).status_code == 404  # a private table stays hidden
    assert Table.objects.get(pk=new.pk).seats.count() == 2


def test_the_box_stops_the_polling_once_the_rematch_has_started(
    four_players: list[User],
) -> None:
    old = finished_game(four_players)
    url = f"/mesas/{old.pk}/revancha/"
    clients = [login(p) for p in four_players]
    for seat in (0, 1, 2):
        services.rematch(four_players[seat], old.pk)
    # Waiting for the fourth: the page keeps asking (200).
    for client, text in ((clients[0], "Revancha: 3 de 4 en la mesa."), (clients[3], "(3 de 4)")):
        box = client.get(url, **HTMX)
        assert box.status_code == 200 and text in box.content.decode()
    new = services.rematch(four_players[3], old.pk)  # the fourth starts it
    assert Table.objects.get(pk=new.pk).status == Table.Status.PLAYING
    # Started: the last box, with 286, which tells htmx to stop polling.
    for client in clients:
        box = client.get(url, **HTMX)
        assert box.status_code == 286
        assert f'href="/mesas/{new.pk}/"' in box.content.decode()


def test_a_refused_rematch_goes_back_to_the_table_with_the_reason(
    four_players: list[User], make_user: Callable[..., User]
) -> None:
    old = finished_game(four_players)
    url = f"/mesas/{old.pk}/revancha/"
    outsider = login(make_user())
    assert outsider.get(url, **HTMX).status_code == 204
    response = outsider.post(url, follow=True)
    assert response.redirect_chain[0][0] == f"/mesas/{old.pk}/"
    assert "Solo quienes jugaron esta partida pueden pedir la revancha." in (
        response.content.decode()
    )
    assert 'id="rematch"' not in response.content.decode()
    assert Table.objects.count() == 1
    # Without HTMX the box is not a page of its own.
    assert login(four_players[0]).get(url)["Location"] == f"/mesas/{old.pk}/"
    # In progress: nothing to show yet.
    playing = started_table([make_user() for _ in range(4)])
    player = playing.seats.get(seat=0).user
    assert login(player).get(f"/mesas/{playing.pk}/revancha/", **HTMX).status_code == 204


@pytest.mark.django_db(transaction=True)
def test_all_four_asking_at_once_meet_at_one_table_that_starts(four_players: list[User]) -> None:
    old = finished_game(four_players)
    barrier = threading.Barrier(4)
    tables: list[int] = []

    def ask(user: User) -> None:
        barrier.wait()
        try:
            tables.append(services.rematch(user, old.pk).pk)
        finally:
            connection.close()

    threads = [threading.Thread(target=ask, args=(p,)) for p in four_players]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(tables) == 4 and len(set(tables)) == 1
    new = Table.objects.get(pk=tables[0])
    assert new.status == Table.Status.PLAYING
    assert seats_of(new) == {s: p.pk for s, p in enumerate(four_players)}
    assert Table.objects.count() == 2


def test_anonymous_visitors_and_wrong_methods_change_nothing(four_players: list[User]) -> None:
    old = finished_game(four_players)
    for url in (f"/mesas/{old.pk}/revancha/", f"/mesas/{old.pk}/dejar-practica/"):
        response = Client().post(url)
        assert response.status_code == 302 and response["Location"].startswith("/cuentas/entrar/")
    assert login(four_players[0]).get(f"/mesas/{old.pk}/dejar-practica/").status_code == 405
    assert login(four_players[0]).post("/mesas/987654/revancha/").status_code == 404
    assert Table.objects.count() == 1 and Table.objects.get(pk=old.pk).rematch is None


def test_a_rematch_of_a_public_game_is_public_to_watch_and_listed_once_it_plays(
    four_players: list[User], make_user: Callable[..., User]
) -> None:
    old = finished_game(four_players)
    new = services.rematch(four_players[0], old.pk)
    assert not new.private
    lobby = Client().get("/").content.decode()
    assert f'data-table="{new.pk}"' not in lobby  # reserved: not offered to sit at
    for seat in (1, 2, 3):
        services.rematch(four_players[seat], old.pk)
    new.refresh_from_db()
    assert new.status == Table.Status.PLAYING
    # Under «Partidas en juego» for anybody, and open to onlookers, logged in or not.
    assert f'data-table="{new.pk}"' in Client().get("/").content.decode()
    assert Client().get(f"/mesas/{new.pk}/").status_code == 200
    assert login(make_user()).get(f"/mesas/{new.pk}/").status_code == 200
    # A private game's rematch stays private.
    others = [make_user() for _ in range(4)]
    hidden = finished_game(others, private=True)
    assert services.rematch(others[0], hidden.pk).private
