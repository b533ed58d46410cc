"""PostgreSQL or Redis restarting under a live site (docs/deploy.md, «Caídas»), in process.

Dead connections are those a restart leaves: their backends are ended with
`pg_terminate_backend`, what a restart does to every connection. A service that stays down is a
patched call raising what psycopg or redis-py raise then. The real restarts, with daphne,
Celery and a throwaway PostgreSQL and Redis, are in tests/site/test_outage_drill.py.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import suppress
from typing import Any

import psycopg
import pytest
import redis
from channels.db import database_sync_to_async
from channels.layers import get_channel_layer
from django import db
from django.db import connection
from django.test import Client

from accounts.models import User
from games import services
from games.models import Table
from games.services import adb, executor, groups
from games.services.executor import LOOP
from games.services.storage import cas_statement
from games.socket_codes import CLOSE_TRY_AGAIN
from tests.factories import session_cookie, started_table
from tests.sockets import communicator, connect_all, receive, receive_state, refused_with, welcomed

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("fresh_connection")]


@pytest.fixture
def fresh_connection(transactional_db: None) -> Iterator[None]:
    """This thread's own connection, ended with the others, is replaced before the database is
    flushed after the test."""
    yield
    with suppress(db.Error):
        connection.close()


def end_other_sessions() -> int:
    """What a PostgreSQL restart does to every connection but this one: ended by the server."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity"
            " WHERE datname = current_database() AND pid <> pg_backend_pid()"
        )
        return int(cursor.fetchone()[0])


async def mano_of(table: Table) -> int:
    game = await database_sync_to_async(services.game_of)(table)
    return game.mano


# ----------------------------------------------------------------------------------------------
# Nothing stale after a restart.
# ----------------------------------------------------------------------------------------------
@pytest.mark.asyncio
async def test_a_move_after_the_event_loops_connection_died_is_made_on_a_fresh_one(
    four_players: list[User],
) -> None:
    table = await database_sync_to_async(started_table)(four_players)
    mano = await mano_of(table)
    await LOOP.load(table.pk)  # the event loop's connection for this table is open
    assert await database_sync_to_async(end_other_sessions)() >= 1
    moved = await services.act_on_loop(four_players[mano], table.pk, table.version, {"act": "mus"})
    assert moved is not None and moved.version == table.version + 1
    assert (await Table.objects.aget(pk=table.pk)).version == table.version + 1


def test_pages_and_moves_after_the_pools_connections_died_all_succeed(
    client: Any, four_players: list[User]
) -> None:
    table = started_table(four_players)
    for _ in range(3):  # connections in the pool, from several checkouts
        assert client.get("/reglas/").status_code == 200
    connection.close()
    end_other_sessions()
    connection.close()
    answers = [client.get("/reglas/").status_code for _ in range(20)]
    answers += [client.get(f"/mesas/{table.pk}/").status_code for _ in range(5)]
    assert answers == [200] * 25
    game = services.game_of(services.load_table(table.pk))
    services.act(four_players[game.mano], table.pk, table.version, {"act": "mus"})
    assert Table.objects.get(pk=table.pk).version == table.version + 1


@pytest.mark.asyncio
@pytest.mark.parametrize("landed", [True, False], ids=["after-commit", "before-commit"])
async def test_a_compare_and_set_whose_connection_died_is_written_exactly_once(
    four_players: list[User], monkeypatch: pytest.MonkeyPatch, landed: bool
) -> None:
    table = await database_sync_to_async(started_table)(four_players)
    mano = await mano_of(table)
    real = LOOP.update
    calls = 0

    async def dies(t: Table, sql: str, params: list[Any]) -> int:
        nonlocal calls
        calls += 1
        if calls == 1:
            if landed:
                await real(t, sql, params)  # committed, and then the answer is lost
            adb.forget(t.pk)
            raise psycopg.errors.AdminShutdown("terminating connection")
        return await real(t, sql, params)

    monkeypatch.setattr(LOOP, "update", dies)
    moved = await services.act_on_loop(four_players[mano], table.pk, table.version, {"act": "mus"})
    assert moved is not None and moved.version == table.version + 1
    after = await Table.objects.aget(pk=table.pk)
    assert after.version == table.version + 1
    assert after.record["hands"][0]["actions"] == [{"seat": mano, "act": "mus"}]
    assert calls == (1 if landed else 2)


@pytest.mark.parametrize("landed", [True, False], ids=["after-commit", "before-commit"])
def test_a_move_from_the_worker_thread_whose_connection_died_is_written_exactly_once(
    four_players: list[User], monkeypatch: pytest.MonkeyPatch, landed: bool
) -> None:
    table = started_table(four_players)
    game = services.game_of(services.load_table(table.pk))
    real = executor.compare_and_set
    calls = 0

    def dies(t: Table, **fields: Any) -> None:
        nonlocal calls
        calls += 1
        if calls == 1:
            if landed:  # committed, and then the answer is lost
                sql, params = cas_statement(t, fields)
                with connection.cursor() as cursor:
                    cursor.execute(sql, params)
            raise db.OperationalError("server closed the connection unexpectedly")
        real(t, **fields)

    monkeypatch.setattr(executor, "compare_and_set", dies)
    services.act(four_players[game.mano], table.pk, table.version, {"act": "mus"})
    after = Table.objects.get(pk=table.pk)
    assert after.version == table.version + 1
    assert after.record["hands"][0]["actions"] == [{"seat": game.mano, "act": "mus"}]
    assert calls == (1 if landed else 2)


# ----------------------------------------------------------------------------------------------
# Every action gets an answer while a service is down.
# ----------------------------------------------------------------------------------------------
@pytest.mark.asyncio
async def test_an_action_while_the_database_is_down_is_answered_unavailable_and_changes_nothing(
    four_players: list[User], monkeypatch: pytest.MonkeyPatch
) -> None:
    table = await database_sync_to_async(started_table)(four_players)
    comms = await connect_all(table, four_players)
    states = await welcomed(comms)
    mano = await mano_of(table)

    async def down(table_id: int) -> None:
        raise psycopg.OperationalError("connection refused")

    def down_sync(*args: Any, **kwargs: Any) -> None:
        raise db.OperationalError("connection refused")

    monkeypatch.setattr(LOOP, "load", down)
    monkeypatch.setattr(executor, "load_table", down_sync)
    await comms[mano].send_json_to({"type": "action", "v": states[mano]["v"], "act": "mus"})
    answer = await receive(comms[mano])
    assert answer["type"] == "error" and answer["code"] == "unavailable"
    assert "reconectando" in answer["message"]
    # Asking for the table while it cannot be read is answered too: ask again in a moment.
    await comms[mano].send_json_to({"type": "sync"})
    answer = await receive(comms[mano])
    assert answer["type"] == "error" and answer["code"] == "unavailable"
    monkeypatch.undo()
    assert (await Table.objects.aget(pk=table.pk)).version == table.version
    # Back: the player asks for the table (the page does, every few seconds) and plays on.
    await comms[mano].send_json_to({"type": "sync"})
    state = await receive_state(comms[mano])
    await comms[mano].send_json_to({"type": "action", "v": state["v"], "act": "mus"})
    assert (await receive_state(comms[mano]))["v"] == table.version + 1
    for comm in comms:
        await comm.disconnect()


@pytest.mark.asyncio
async def test_a_move_made_while_redis_is_down_answers_its_player_and_reaches_the_others_after(
    four_players: list[User], monkeypatch: pytest.MonkeyPatch
) -> None:
    table = await database_sync_to_async(started_table)(four_players)
    comms = await connect_all(table, four_players)
    states = await welcomed(comms)
    mano = await mano_of(table)
    layer = get_channel_layer()
    real_send = layer.group_send
    down = True

    async def group_send(group: str, message: dict[str, Any]) -> None:
        if down:
            raise redis.exceptions.ConnectionError("Connection refused")
        await real_send(group, message)

    monkeypatch.setattr(layer, "group_send", group_send)
    monkeypatch.setattr(groups, "RETRY_SECONDS", 0.2)
    await comms[mano].send_json_to({"type": "action", "v": states[mano]["v"], "act": "mus"})
    assert (await receive_state(comms[mano]))["v"] == table.version + 1  # its own answer
    down = False  # Redis is back: the kept state goes out to the table
    for i, comm in enumerate(comms):
        if i != mano:
            assert (await receive_state(comm))["v"] == table.version + 1
    assert not groups.unsent(services.group_name(table.pk))
    for comm in comms:
        await comm.disconnect()


@pytest.mark.asyncio
async def test_a_socket_opened_while_a_service_is_down_is_told_to_try_again_later(
    four_players: list[User], monkeypatch: pytest.MonkeyPatch
) -> None:
    table = await database_sync_to_async(started_table)(four_players)
    cookie = await database_sync_to_async(session_cookie)(four_players[0])

    async def sessions_down(*args: Any) -> None:
        raise services.Unavailable()  # (what the event loop's reads raise once retried)

    monkeypatch.setattr("games.services.adb.fetch_one", sessions_down)
    assert await refused_with(communicator(table.pk, cookie)) == CLOSE_TRY_AGAIN
    monkeypatch.undo()

    async def channels_sessions_down(scope: Any) -> None:
        raise db.OperationalError("the database system is shutting down")

    # A session of a backend Channels loads itself (games.socket_auth leaves it to Channels).
    monkeypatch.setattr("games.socket_auth.user_here", lambda session: _none())
    monkeypatch.setattr("channels.auth.get_user", channels_sessions_down)
    assert await refused_with(communicator(table.pk, cookie)) == CLOSE_TRY_AGAIN
    monkeypatch.undo()

    async def join_down(*args: Any) -> None:
        raise services.Unavailable()

    monkeypatch.setattr("games.services.live.join", join_down)
    assert await refused_with(communicator(table.pk, cookie)) == CLOSE_TRY_AGAIN


@pytest.mark.asyncio
async def test_a_socket_closed_while_the_database_is_down_closes_quietly_and_says_so_in_the_log(
    four_players: list[User], monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    table = await database_sync_to_async(started_table)(four_players)
    [comm] = await connect_all(table, four_players[:1])
    await receive_state(comm)

    async def closing_down(channel: str) -> None:
        raise psycopg.OperationalError("the database system is shutting down")

    monkeypatch.setattr("games.services.connections.socket_closing", closing_down)
    with caplog.at_level("WARNING", logger="games.services.live"):
        await comm.disconnect()  # nothing raised to daphne
    assert any("left to the beat" in r.getMessage() for r in caplog.records), caplog.text


# ----------------------------------------------------------------------------------------------
# Pages.
# ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("language", "words"),
    [("es", "El servidor se está reconectando"), ("en", "The server is reconnecting")],
)
def test_a_page_while_redis_is_down_is_the_sites_own_503_in_the_visitors_language(
    monkeypatch: pytest.MonkeyPatch, language: str, words: str
) -> None:
    def down(*args: Any, **kwargs: Any) -> None:
        raise redis.exceptions.ConnectionError("Error 111 connecting to 127.0.0.1:6379")

    monkeypatch.setattr(services.presence, "online_count", down)
    client = Client(raise_request_exception=False)  # as a browser sees it
    response = client.get("/", HTTP_ACCEPT_LANGUAGE=language)
    assert response.status_code == 503
    assert response["Retry-After"] == "5"
    text = response.content.decode()
    assert words in text and "Traceback" not in text


def test_a_page_whose_session_cannot_be_read_is_a_503_too(
    make_user: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    client = Client(raise_request_exception=False)
    client.force_login(make_user("rosa"))

    def down(self: Any, *args: Any, **kwargs: Any) -> None:
        raise db.OperationalError("connection failed: Connection refused")

    monkeypatch.setattr("django.contrib.sessions.backends.db.SessionStore.load", down)
    response = client.get("/reglas/")
    assert response.status_code == 503
    assert "El servidor se está reconectando" in response.content.decode()


async def _none() -> None:
    return None
