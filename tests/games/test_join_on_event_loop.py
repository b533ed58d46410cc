"""A socket's usual join runs on the event loop (`services.live.join`, `games.socket_auth`): who
it is, the socket counted, the state and the chat, without Channels' one sync thread, where every
join used to queue. What the worker still decides, and the rules, are the same as before."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import channels.auth
import pytest
from channels.db import database_sync_to_async
from django.contrib.sessions.models import Session
from django.utils import timezone

from accounts import relations
from accounts.models import User
from games.models import ChatMessage, Connection, Seat
from games.services import live
from games.socket_codes import CLOSE_NOT_LOGGED_IN
from tests.factories import seat_all, session_cookie, start_seated, started_table
from tests.sockets import communicator, join, receive, receive_state, refused_with

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.asyncio]


@pytest.fixture
def worker_calls(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """What went to the worker thread: the service layer's calls and Channels' user look-up."""
    calls: list[str] = []
    real = live.in_worker

    async def counted(fn: Any, *args: Any) -> Any:
        if fn.__name__ != "beat":  # the process's heartbeat registering it, once (not a join's)
            calls.append(fn.__name__)
        return await real(fn, *args)

    real_get_user = channels.auth.get_user

    async def get_user(scope: Any) -> Any:
        calls.append("channels.auth.get_user")
        return await real_get_user(scope)

    monkeypatch.setattr(live, "in_worker", counted)
    monkeypatch.setattr(channels.auth, "get_user", get_user)
    yield calls


async def test_a_seated_player_joins_without_the_worker_thread(
    four_players: list[User], worker_calls: list[str]
) -> None:
    table = await database_sync_to_async(started_table)(four_players)
    comm = await join(table, four_players[0])
    state = await receive_state(comm)
    assert state["you"]["seat"] == 0 and len(state["you"]["cards"]) == 4
    assert (await receive(comm))["type"] == "chat_history"
    assert worker_calls == []
    seat = Seat.objects.filter(table=table, seat=0)
    assert await database_sync_to_async(lambda: seat.get().connections)() == 1
    await comm.disconnect()
    # Closed on the event loop too, and uncounted: the seat waits for its player.
    assert worker_calls == ["_recount_for"]  # (going away stops the clock: the worker's ORM)
    after = await database_sync_to_async(seat.get)()
    assert after.connections == 0 and after.disconnected_at is not None
    assert not await database_sync_to_async(Connection.objects.filter(table=table).exists)()


async def test_an_onlooker_of_a_public_table_joins_without_the_worker_thread_and_sees_no_cards(
    four_players: list[User], make_user: Any, worker_calls: list[str]
) -> None:
    table = await database_sync_to_async(started_table)(four_players)
    for cookie in (
        None,
        await database_sync_to_async(session_cookie)(await database_sync_to_async(make_user)()),
    ):
        comm = communicator(table.pk, cookie)
        connected, _ = await comm.connect()
        assert connected
        state = await receive_state(comm)
        assert state["you"] is None and all("cards" not in (s or {}) for s in state["seats"])
        await comm.disconnect()
    assert worker_calls == []


async def test_a_player_who_comes_back_has_their_clock_resumed_by_the_worker(
    four_players: list[User], worker_calls: list[str]
) -> None:
    table = await database_sync_to_async(started_table)(four_players)
    now = timezone.now()

    def away() -> None:
        Connection.objects.filter(table=table, user=four_players[1]).delete()
        Seat.objects.filter(table=table, seat=1).update(
            connections=0, disconnected_at=now, reconnect_deadline=now + timedelta(seconds=60)
        )

    await database_sync_to_async(away)()
    watcher = communicator(table.pk, await database_sync_to_async(session_cookie)(four_players[0]))
    assert (await watcher.connect())[0]
    before = await receive_state(watcher)
    await receive(watcher)  # chat history
    assert before["seats"][1]["away_until"] is not None

    back = communicator(table.pk, await database_sync_to_async(session_cookie)(four_players[1]))
    assert (await back.connect())[0]
    assert (await receive_state(back))["you"]["seat"] == 1
    told = await receive_state(watcher)
    assert told["seats"][1]["away_until"] is None and told["seats"][1]["connected"]
    assert worker_calls == ["_recount_for"]
    seat = await database_sync_to_async(Seat.objects.get)(table=table, seat=1)
    assert seat.disconnected_at is None and seat.reconnect_deadline is None
    await watcher.disconnect()
    await back.disconnect()


async def test_chat_history_on_joining_leaves_out_the_players_you_block(
    four_players: list[User],
) -> None:
    table = await database_sync_to_async(started_table)(four_players)

    def talk() -> None:
        for seat, player in enumerate(four_players[1:3], start=1):
            ChatMessage.objects.create(table=table, user=player, seat=seat, text=f"hola {seat}")
        relations.block(four_players[0], four_players[2])

    await database_sync_to_async(talk)()
    comm = communicator(table.pk, await database_sync_to_async(session_cookie)(four_players[0]))
    assert (await comm.connect())[0]
    await receive_state(comm)
    history = await receive(comm)
    assert [m["text"] for m in history["messages"]] == ["hola 1"]
    assert history["messages"][0]["name"] == four_players[1].public_name
    await comm.disconnect()


# --- Who a socket is: the same rule as Channels', on the event loop. -----------------------------


async def private_table_refuses(four_players: list[User], cookie: str) -> int | None:
    return await refused_with(communicator((await private(four_players)).pk, cookie))


@database_sync_to_async
def private(four_players: list[User]) -> Any:
    table = seat_all(four_players, private=True)
    return start_seated(four_players[0], table)


async def test_a_session_that_expired_signs_nobody_in(four_players: list[User]) -> None:
    cookie = await database_sync_to_async(session_cookie)(four_players[0])
    key = cookie.split("=", 1)[1]
    await database_sync_to_async(
        lambda: Session.objects.filter(session_key=key).update(
            expire_date=timezone.now() - timedelta(seconds=1)
        )
    )()
    assert await private_table_refuses(four_players, cookie) == CLOSE_NOT_LOGGED_IN


async def test_a_session_from_before_a_password_change_signs_nobody_in(
    four_players: list[User],
) -> None:
    cookie = await database_sync_to_async(session_cookie)(four_players[0])

    def change() -> None:
        four_players[0].set_password("otra-clave-muy-larga-123")
        four_players[0].save()

    await database_sync_to_async(change)()
    assert await private_table_refuses(four_players, cookie) == CLOSE_NOT_LOGGED_IN


async def test_a_made_up_session_key_signs_nobody_in(four_players: list[User]) -> None:
    cookie = "sessionid=" + "x" * 32
    assert await private_table_refuses(four_players, cookie) == CLOSE_NOT_LOGGED_IN


async def test_a_deactivated_account_is_signed_in_no_more(four_players: list[User]) -> None:
    cookie = await database_sync_to_async(session_cookie)(four_players[0])
    await database_sync_to_async(
        lambda: User.objects.filter(pk=four_players[0].pk).update(is_active=False)
    )()
    assert await private_table_refuses(four_players, cookie) == CLOSE_NOT_LOGGED_IN
