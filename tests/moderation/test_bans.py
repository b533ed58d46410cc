"""Bans: the fields, the audit log, the sessions, the tables, the sockets, the leaderboard."""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import timedelta
from typing import Any

import pytest
from channels.db import database_sync_to_async
from django.contrib.sessions.models import Session
from django.test import Client
from django.utils import timezone

from accounts import bot_accounts
from accounts.models import User
from games import services, socket_codes
from games.models import QueuedPlayer, Seat, Table
from games.services import bot_queue
from moderation import actions
from moderation.models import ModerationAction
from rankings import queries
from rankings import services as rating_services
from rankings.models import PlayerRating
from tests.factories import PASSWORD, login, seat_all, session_cookie, started_table
from tests.sockets import communicator, join, receive

REASON = "Trampas con su pareja"


@pytest.mark.django_db
def test_a_ban_sets_the_fields_and_writes_who_what_to_whom_when_and_why(
    four_players: list[User], moderator: User
) -> None:
    player = four_players[1]
    until = timezone.now() + timedelta(days=3)
    entry = actions.ban(moderator, player, REASON, until)
    player.refresh_from_db()
    assert player.is_banned
    assert player.banned_until == until
    assert player.ban_reason == REASON
    assert entry.kind == ModerationAction.Kind.BAN
    assert (entry.moderator, entry.moderator_name) == (moderator, "moderadora")
    assert (entry.target, entry.target_name) == (player, player.username)
    assert entry.reason == REASON and entry.until == until
    assert timezone.now() - entry.created_at < timedelta(seconds=10)


@pytest.mark.django_db
def test_a_ban_ends_every_session_of_the_player_and_no_one_elses(
    four_players: list[User], moderator: User
) -> None:
    player, other = four_players[0], four_players[1]
    for _ in range(2):
        session_cookie(player)
    session_cookie(other)
    actions.ban(moderator, player, REASON)
    owners = [s.get_decoded().get("_auth_user_id") for s in Session.objects.all()]
    assert owners == [str(other.pk)]
    entry = ModerationAction.objects.get(kind="expulsar")
    assert entry.details["sessions_ended"] == 2


@pytest.mark.django_db
def test_a_banned_player_cannot_log_in_until_unbanned(
    client: Client, make_user: Callable[..., User], moderator: User
) -> None:
    player = make_user("pilar")
    actions.ban(moderator, player, REASON)
    refused = client.post("/cuentas/entrar/", {"username": "pilar", "password": PASSWORD})
    assert refused.status_code == 200
    assert "_auth_user_id" not in client.session
    assert REASON in refused.content.decode()
    actions.unban(moderator, player, "Recurso aceptado")
    player.refresh_from_db()
    assert not player.is_banned and player.banned_at is None and player.ban_reason == ""
    welcome = client.post("/cuentas/entrar/", {"username": "pilar", "password": PASSWORD})
    assert welcome.status_code == 302
    entry = ModerationAction.objects.get(kind="readmitir")
    assert entry.target == player and entry.reason == "Recurso aceptado"


@pytest.mark.django_db
def test_a_signed_in_player_is_logged_out_by_a_ban(
    client: Client, make_user: Callable[..., User], moderator: User
) -> None:
    player = make_user("pilar")
    login(player, client)
    assert client.get("/").context["user"].is_authenticated
    actions.ban(moderator, player, REASON)
    assert not client.get("/").context["user"].is_authenticated


@pytest.mark.django_db
def test_a_ban_before_the_start_takes_the_player_off_the_open_table(
    four_players: list[User], moderator: User
) -> None:
    table = seat_all(four_players)
    actions.ban(moderator, four_players[2], REASON)
    table.refresh_from_db()
    assert table.status == Table.Status.OPEN
    assert sorted(table.seats.values_list("seat", flat=True)) == [0, 1, 3]
    assert services.live_seat_of(four_players[2]) is None
    entry = ModerationAction.objects.get(kind="expulsar")
    assert entry.table_id == table.pk and entry.details["table_effect"] == "levantado"


@pytest.mark.django_db
def test_a_ban_of_the_host_of_an_open_table_closes_it(
    four_players: list[User], moderator: User
) -> None:
    table = seat_all(four_players)
    actions.ban(moderator, four_players[0], REASON)
    table.refresh_from_db()
    assert table.status == Table.Status.CLOSED
    assert not Seat.objects.filter(table=table).exists()
    # The other players are free to sit elsewhere at once.
    assert services.create_table(four_players[1], "4-reyes").status == Table.Status.OPEN


@pytest.mark.django_db
def test_a_ban_of_a_player_at_no_table_touches_no_table(
    four_players: list[User], make_user: Callable[..., User], moderator: User
) -> None:
    table = started_table(four_players)
    loner = make_user("solitario")
    actions.ban(moderator, loner, REASON)
    table.refresh_from_db()
    assert table.status == Table.Status.PLAYING
    assert ModerationAction.objects.get(kind="expulsar").table is None


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("reason", "days", "message"),
    [("", None, "motivo"), ("   ", None, "motivo"), (REASON, -1, "ya ha pasado")],
)
def test_a_ban_needs_a_reason_and_an_end_in_the_future(
    four_players: list[User], moderator: User, reason: str, days: int | None, message: str
) -> None:
    until = timezone.now() + timedelta(days=days) if days is not None else None
    with pytest.raises(actions.ModerationError) as refused:
        actions.ban(moderator, four_players[0], reason, until)
    assert message in str(refused.value)
    four_players[0].refresh_from_db()
    assert not four_players[0].is_banned
    assert not ModerationAction.objects.exists()


@pytest.mark.django_db
def test_a_moderator_cannot_ban_or_mute_themselves(moderator: User) -> None:
    with pytest.raises(actions.ModerationError):
        actions.ban(moderator, moderator, REASON)
    with pytest.raises(actions.ModerationError):
        actions.mute(moderator, moderator, REASON)
    moderator.refresh_from_db()
    assert not moderator.is_banned and not moderator.is_muted


@pytest.mark.django_db
def test_a_temporary_ban_is_over_when_its_end_passes(
    four_players: list[User], moderator: User
) -> None:
    player = four_players[0]
    actions.ban(moderator, player, REASON, timezone.now() + timedelta(hours=1))
    assert User.objects.get(pk=player.pk).is_banned
    User.objects.filter(pk=player.pk).update(banned_until=timezone.now() - timedelta(seconds=1))
    assert not User.objects.get(pk=player.pk).is_banned


@pytest.mark.django_db
def test_a_banned_player_is_hidden_from_the_leaderboard_while_banned(
    four_players: list[User], moderator: User
) -> None:
    for i, player in enumerate(four_players):
        PlayerRating.objects.create(user=player, mode="4-reyes", rating=1600 - i, games=3)
    actions.ban(moderator, four_players[0], REASON, timezone.now() + timedelta(days=7))
    page, _query = queries.leaderboard("4-reyes")
    assert [r.user_id for r in page.rows] == [p.pk for p in four_players[1:]]
    actions.unban(moderator, four_players[0])
    page, _query = queries.leaderboard("4-reyes")
    assert page.rows[0].user_id == four_players[0].pk


# --------------------------------------------------------------------------------------------
# During a game, with real sockets.
# --------------------------------------------------------------------------------------------
async def drain(comm: Any) -> None:
    while not await comm.receive_nothing(timeout=0.1):
        await comm.receive_output()


async def close_code(comm: Any) -> int:
    """Read a socket's output up to its close; return the close code."""
    while True:
        output = await comm.receive_output(timeout=5)
        if output["type"] == "websocket.close":
            return output.get("code")


async def state_with_status(comm: Any, status: str) -> dict[str, Any]:
    while True:
        message = await receive(comm)
        if message["type"] == "state" and message["status"] == status:
            return message


@pytest.mark.django_db(transaction=True)
@pytest.mark.asyncio
async def test_a_ban_during_a_game_cancels_it_closes_the_players_socket_and_tells_the_others(
    four_players: list[User], moderator: User
) -> None:
    table = await database_sync_to_async(started_table)(four_players)
    comms = [await join(table, p) for p in four_players]
    for comm in comms:
        await drain(comm)
    await database_sync_to_async(actions.ban)(moderator, four_players[2], REASON)

    assert await close_code(comms[2]) == socket_codes.CLOSE_REFUSED
    for i in (0, 1, 3):
        state = await state_with_status(comms[i], "cancelada")
        assert state["phase"] == "cancelada"
        assert state["cancel_reason"] == Table.CancelReason.BANNED
        assert state["you"]["legal"] == []
        assert REASON not in json.dumps(state)  # the ban's reason is the moderators' business
        # Their own sockets stay open.
        await comms[i].send_to(text_data='{"type": "ping"}')
        while (await receive(comms[i]))["type"] != "pong":
            pass
    stored = await database_sync_to_async(Table.objects.get)(pk=table.pk)
    assert stored.status == Table.Status.CANCELLED
    assert stored.record is not None  # the record is kept
    assert not rating_services.is_ratable(stored)
    live = await database_sync_to_async(Seat.objects.filter(table=table, active=True).count)()
    assert live == 0
    entry = await database_sync_to_async(ModerationAction.objects.get)(kind="expulsar")
    assert entry.table_id == table.pk and entry.details["table_effect"] == "cancelada"
    for i in (0, 1, 3):
        await comms[i].disconnect()


@pytest.mark.django_db(transaction=True)
@pytest.mark.asyncio
async def test_a_banned_player_cannot_open_a_table_socket_again(
    four_players: list[User], moderator: User
) -> None:
    table = await database_sync_to_async(started_table)(four_players)
    cookie = await database_sync_to_async(session_cookie)(four_players[1])
    await database_sync_to_async(actions.ban)(moderator, four_players[1], REASON)
    comm = communicator(table.pk, cookie)
    connected, _ = await comm.connect()
    assert connected
    first = await comm.receive_output(timeout=10)
    if first["type"] == "websocket.close":
        assert first["code"] in (socket_codes.CLOSE_NOT_LOGGED_IN, socket_codes.CLOSE_REFUSED)
    else:  # a public table: the ended session makes it an anonymous onlooker's socket
        state = json.loads(first["text"])
        assert state["type"] == "state" and state["you"] is None
        await comm.disconnect()


@pytest.mark.django_db
def test_a_ban_takes_the_player_their_pair_and_their_bots_out_of_quick_play(
    four_players: list[User], moderator: User
) -> None:
    player, partner, other = four_players[:3]
    bot = bot_accounts.create_bot_account(player, "Trasto")
    services.queue.join(player, "4-reyes", partner=partner)
    bot_queue.join(bot, "4-reyes")
    services.queue.join(other, "4-reyes")
    actions.ban(moderator, player, REASON)
    # The banned player, their pair's partner (the pair's entry goes) and their bot are out;
    # somebody else waiting stays.
    assert list(QueuedPlayer.objects.values_list("user", flat=True)) == [other.pk]
