"""Nobody is charged for a game they were not there to begin (docs/rules.md §8.3): a host starts
only with all four at the table, a seat away before the start is freed, and a player who never
came to a game the site started is a no-show, never an abandonment."""

from __future__ import annotations

import re
from datetime import timedelta
from typing import Any

import pytest
from channels.db import database_sync_to_async
from django.test import override_settings
from django.utils import timezone, translation

from accounts.models import User
from games import services
from games.models import Abandonment, QueueDodge, Seat, Table
from games.services import bots, queue
from games.tasks import sweep_deadlines
from tests.factories import finished_game, login, seat_all
from tests.sockets import join, receive_state

MODE = "4-reyes"


def messages_of(response: Any) -> list[str]:
    return [str(m) for m in response.context["messages"]] if response.context else []


def waiting_room(table: Table, user: User) -> str:
    response = login(user).get(f"/mesas/{table.pk}/espera/", headers={"HX-Request": "true"})
    return response.content.decode()


def away_since(table: Table, user: User, seconds: float) -> None:
    """Pretend the player's wait began `seconds` ago (before the start or in play)."""
    seat = Seat.objects.get(table=table, user=user)
    then = timezone.now() - timedelta(seconds=seconds)
    Seat.objects.filter(pk=seat.pk).update(
        disconnected_at=then,
        reconnect_deadline=None
        if seat.reconnect_deadline is None
        else seat.reconnect_deadline - timedelta(seconds=seconds),
    )


def started_seconds_ago(table: Table, seconds: float) -> None:
    """Pretend the game started `seconds` ago, its absent seats waiting since then."""
    then = timezone.now() - timedelta(seconds=seconds)
    Table.objects.filter(pk=table.pk).update(started_at=then)
    for seat in Seat.objects.filter(table=table, reconnect_deadline__isnull=False):
        away_since(table, seat.user, seconds)


# --------------------------------------------------------------------------------------------
# The host's start.
# --------------------------------------------------------------------------------------------
@pytest.mark.django_db(transaction=True)
@pytest.mark.asyncio
async def test_a_host_cannot_start_while_a_seated_player_has_closed_the_table(
    make_user: Any,
) -> None:
    """The griefing of issue #30: the victim sits, opens the table and closes it; the host and
    two accomplices sit and press start. Refused, naming the victim, nothing changed."""
    host, victim, one, two = [
        await database_sync_to_async(make_user)(name) for name in ("host", "victima", "c1", "c2")
    ]
    table = await database_sync_to_async(services.create_table)(host, MODE)
    await database_sync_to_async(services.take_seat)(victim, table.pk, 1)
    here = [await join(table, host)]
    gone = await join(table, victim)
    await receive_state(gone)
    await gone.disconnect()
    for seat, user in ((2, one), (3, two)):
        await database_sync_to_async(services.take_seat)(user, table.pk, seat)
        here.append(await join(table, user))

    def start() -> tuple[list[str], Table, str]:
        before = Table.objects.get(pk=table.pk).version
        response = login(host).post(f"/mesas/{table.pk}/empezar/", follow=True)
        after = Table.objects.get(pk=table.pk)
        assert after.version == before
        return messages_of(response), after, waiting_room(table, host)

    said, after, page = await database_sync_to_async(start)()
    assert said == ["No se puede empezar: victima no está en la mesa (tiene que tenerla abierta)."]
    assert after.status == Table.Status.OPEN and after.started_at is None
    assert 'id="players-away"' in page and "victima" in page.split('id="players-away"')[1]
    assert "no está en la mesa" in page
    # Back at the table, the victim is no longer missing: the host starts.
    here.append(await join(table, victim))
    await database_sync_to_async(services.start_game)(host, table.pk)
    assert (await database_sync_to_async(Table.objects.get)(pk=table.pk)).status == "jugando"
    for comm in here:
        await comm.disconnect()


@pytest.mark.django_db
def test_the_refusal_names_every_player_away_in_the_hosts_language(
    four_players: list[User],
) -> None:
    table = seat_all(four_players)
    services.socket_opened(table.pk, four_players[0].pk, "host")
    with pytest.raises(services.ServiceError) as refused:
        services.start_game(four_players[0], table.pk)
    assert refused.value.code == "players_away"
    with translation.override("en"):
        assert str(refused.value.message) == (
            "Cannot start: p1, p2, p3 are not at the table (they must have it open)."
        )
    page = re.sub(r"<[^>]+>", "", waiting_room(table, four_players[0]))
    assert "No están en la mesa: p1, p2, p3." in page
    table.refresh_from_db()
    assert table.status == Table.Status.OPEN


@pytest.mark.django_db
def test_bots_are_never_missing_at_the_start(make_user: Any) -> None:
    host = make_user()
    table = services.create_table(host, MODE)
    bots.fill_with_bots(host, table.pk)
    services.socket_opened(table.pk, host.pk, "host")
    services.start_game(host, table.pk)
    assert Table.objects.get(pk=table.pk).status == Table.Status.PLAYING


# --------------------------------------------------------------------------------------------
# A seat away before the start is freed.
# --------------------------------------------------------------------------------------------
@pytest.mark.django_db
@override_settings(MUS_RECONNECT_SECONDS=20)
def test_the_sweep_frees_a_seat_whose_player_has_been_away_from_a_table_not_started(
    four_players: list[User],
) -> None:
    table = seat_all(four_players)
    for i, player in enumerate(four_players):
        services.socket_opened(table.pk, player.pk, f"s{i}")
    services.socket_closed("s1")  # the victim closes the page
    services.socket_closed("s2")  # and another, who comes back in time
    seat = Seat.objects.get(table=table, user=four_players[1])
    assert seat.connections == 0 and seat.disconnected_at is not None
    assert seat.reconnect_deadline is None and seat.away_seconds == 0
    away_since(table, four_players[1], 21)
    away_since(table, four_players[2], 19)
    sweep_deadlines()
    assert set(table.seats.values_list("seat", flat=True)) == {0, 2, 3}
    table.refresh_from_db()
    assert table.status == Table.Status.OPEN and table.host_id == four_players[0].pk
    services.socket_opened(table.pk, four_players[2].pk, "back")
    assert Seat.objects.get(table=table, user=four_players[2]).disconnected_at is None
    away_since(table, four_players[2], 60)  # (connected: a stale mark frees nothing)
    Seat.objects.filter(table=table, user=four_players[2]).update(connections=1)
    sweep_deadlines()
    assert table.seats.count() == 3


@pytest.mark.django_db
@override_settings(MUS_RECONNECT_SECONDS=20)
def test_a_host_who_never_opened_the_table_loses_it_to_the_next_player(
    four_players: list[User],
) -> None:
    host, guest = four_players[:2]
    table = services.create_table(host, MODE)  # (from the lobby: no socket yet)
    services.socket_opened(table.pk, guest.pk, "guest")  # watching, then sitting
    services.take_seat(guest, table.pk, 1)
    assert Seat.objects.get(table=table, user=guest).connections == 1
    away_since(table, host, 21)
    assert services.free_away_seats() == 1
    table.refresh_from_db()
    assert table.host_id == guest.pk and list(table.seats.values_list("seat", flat=True)) == [1]


# --------------------------------------------------------------------------------------------
# Games the site starts: a no-show is never an abandonment.
# --------------------------------------------------------------------------------------------
@pytest.mark.django_db
@override_settings(MUS_RECONNECT_SECONDS=12)
def test_a_quick_play_player_who_never_comes_is_a_dodge_not_an_abandonment(
    make_user: Any,
) -> None:
    """The wait (12 s here) runs out before quick play's 15 s to come: still nobody is charged
    an abandonment; at 15 s the game is cancelled as dodged."""
    players = make_user.many(4)
    table = None
    for p in players:
        table = queue.join(p, MODE)
    assert table is not None
    for i, player in enumerate(players[:3]):
        services.socket_opened(table.pk, player.pk, f"q{i}")
    started_seconds_ago(table, 13)
    sweep_deadlines()
    table.refresh_from_db()
    assert table.status == Table.Status.PLAYING
    assert not Abandonment.objects.exists()
    started_seconds_ago(table, queue.SHOW_UP_SECONDS + 1)
    sweep_deadlines()
    table.refresh_from_db()
    assert (table.status, table.cancel_reason) == ("cancelada", "ausencia")
    assert not Abandonment.objects.exists()
    assert list(QueueDodge.objects.values_list("user_id", flat=True)) == [players[3].pk]


@pytest.mark.django_db
@override_settings(MUS_RECONNECT_SECONDS=12)
def test_a_player_who_never_comes_to_an_arranged_table_is_a_no_show(make_user: Any) -> None:
    players = make_user.many(4)
    table = services.start_arranged(players, MODE)
    for i, player in enumerate(players[:2] + players[3:]):
        services.socket_opened(table.pk, player.pk, f"a{i}")
    started_seconds_ago(table, 13)
    sweep_deadlines()
    table.refresh_from_db()
    assert (table.status, table.cancel_reason, table.abandoned_seat) == ("cancelada", "ausencia", 2)
    assert table.record["ended"] == {"reason": "ausencia", "abandoned_seat": 2}
    assert not Abandonment.objects.exists()
    page = login(players[0]).get(f"/partidas/{table.pk}/").content.decode()
    assert "la abandonó" not in page and "Un jugador no llegó a la mesa." in page


@pytest.mark.django_db
@override_settings(MUS_RECONNECT_SECONDS=12)
def test_a_player_who_came_once_and_left_is_charged_an_abandonment_as_before(
    make_user: Any,
) -> None:
    players = make_user.many(4)
    table = services.start_arranged(players, MODE)
    for i, player in enumerate(players):
        services.socket_opened(table.pk, player.pk, f"a{i}")
    services.socket_closed("a2")
    away_since(table, players[2], 13)
    sweep_deadlines()
    table.refresh_from_db()
    assert (table.status, table.cancel_reason, table.abandoned_seat) == ("cancelada", "abandono", 2)
    assert list(Abandonment.objects.values_list("user_id", flat=True)) == [players[2].pk]


@pytest.mark.django_db
@override_settings(MUS_RECONNECT_SECONDS=12)
def test_a_rematch_one_player_never_comes_to_charges_nobody(four_players: list[User]) -> None:
    old = finished_game(four_players)
    for player in four_players:
        new = services.rematch(player, old.pk)
    new.refresh_from_db()
    assert new.status == Table.Status.PLAYING
    for i, player in enumerate(four_players[:3]):
        services.socket_opened(new.pk, player.pk, f"r{i}")
    started_seconds_ago(new, 13)
    sweep_deadlines()
    new.refresh_from_db()
    assert (new.cancel_reason, new.abandoned_seat) == ("ausencia", 3)
    assert not Abandonment.objects.exists()
