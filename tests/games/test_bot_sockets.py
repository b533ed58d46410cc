"""A bot account's table socket, opened with its token (issue #36, docs/bot-api.md): the real
ASGI application and consumer, over the real channel layer."""

from __future__ import annotations

import json
from typing import Any

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.db import transaction
from django.utils import timezone

from accounts import bot_accounts, sockets
from accounts.models import BotToken, User
from games import socket_codes
from games.models import Seat, Table
from musweb.asgi import application
from tests.factories import make_user, started_table
from tests.sockets import leaked_cards, refused_with

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.asyncio]


def bot_socket(path: str, raw: str, origin: str | None = None) -> WebsocketCommunicator:
    """A bot's handshake: its token, and no cookie or `Origin` (a program has no page)."""
    headers = [(b"host", b"localhost"), (b"authorization", f"Bearer {raw}".encode())]
    if origin:
        headers.append((b"origin", origin.encode()))
    return WebsocketCommunicator(application, path, headers=headers)


@pytest.fixture
def owned_bot() -> tuple[User, str, BotToken]:
    owner = make_user("dueña")
    bot = bot_accounts.create_bot_account(owner, "Trasto")
    token, raw = bot_accounts.issue_token(bot)
    return bot, raw, token


@pytest.fixture
def bot_game(owned_bot: tuple[User, str, BotToken]) -> Table:
    """A game in play with the bot at seat 3 and three people."""
    people = [make_user(f"p{i}") for i in range(3)]
    return started_table([*people, owned_bot[0]], bots_allowed=True)


async def states_until_quiet(comm: WebsocketCommunicator) -> list[dict[str, Any]]:
    found = []
    while not await comm.receive_nothing(timeout=0.3):
        output = await comm.receive_output()
        if output["type"] == "websocket.close":
            break
        found.append(json.loads(output["text"]))
    return found


async def test_a_bot_plays_its_seat_with_its_token_and_sees_only_its_own_cards(
    owned_bot: tuple[User, str, BotToken], bot_game: Table
) -> None:
    comm = bot_socket(f"/ws/mesas/{bot_game.pk}/", owned_bot[1])
    connected, _ = await comm.connect()
    assert connected
    state = json.loads(await comm.receive_from())
    assert state["type"] == "state" and state["you"]["seat"] == 3
    assert len(state["you"]["cards"]) == 4
    assert not leaked_cards(state, 3)
    assert state["seats"][3]["bot_of"] == "dueña" and state["seats"][3]["bot"] is False
    assert state["seats"][0]["bot_of"] is None
    await comm.disconnect()


async def test_a_bot_socket_needs_no_origin_but_a_usable_token(
    owned_bot: tuple[User, str, BotToken], bot_game: Table
) -> None:
    _bot, raw, token = owned_bot
    path = f"/ws/mesas/{bot_game.pk}/"
    await database_sync_to_async(BotToken.objects.filter(pk=token.pk).update)(
        revoked_at=timezone.now()
    )
    assert await refused_with(bot_socket(path, raw)) == socket_codes.CLOSE_NOT_LOGGED_IN
    assert await refused_with(bot_socket(path, "mus_nope")) == socket_codes.CLOSE_NOT_LOGGED_IN
    # With an Origin too (a page cannot send the header, but a token never needs one).
    assert await refused_with(bot_socket(path, raw, "http://evil.example")) == 4401


async def test_a_token_opens_no_socket_but_a_tables(owned_bot: tuple[User, str, BotToken]) -> None:
    for path in ("/ws/jugador/", "/ws/otra-cosa/"):
        assert await refused_with(bot_socket(path, owned_bot[1])) == socket_codes.CLOSE_NOT_FOUND


async def test_revoking_the_token_closes_its_open_socket(
    owned_bot: tuple[User, str, BotToken], bot_game: Table
) -> None:
    comm = bot_socket(f"/ws/mesas/{bot_game.pk}/", owned_bot[1])
    assert (await comm.connect())[0]
    await states_until_quiet(comm)
    await database_sync_to_async(bot_accounts.revoke)(BotToken.objects.filter(pk=owned_bot[2].pk))
    output = await comm.receive_output(timeout=5)
    while output["type"] != "websocket.close":
        output = await comm.receive_output(timeout=5)
    assert output["code"] == socket_codes.CLOSE_NOT_LOGGED_IN


async def test_a_bot_that_keeps_breaking_the_protocol_is_closed_with_4400(
    owned_bot: tuple[User, str, BotToken], bot_game: Table, settings: Any
) -> None:
    settings.BOT_API_PROTOCOL_ERRORS = 3
    comm = bot_socket(f"/ws/mesas/{bot_game.pk}/", owned_bot[1])
    assert (await comm.connect())[0]
    await states_until_quiet(comm)
    for frame in ("nope", '{"type": "bailar"}'):
        await comm.send_to(text_data=frame)
        error = json.loads(await comm.receive_from())
        assert error["type"] == "error"
        await states_until_quiet(comm)  # the fresh state after the refusal
    await comm.send_to(text_data="[]")
    output = await comm.receive_output(timeout=5)
    while output["type"] != "websocket.close":
        output = await comm.receive_output(timeout=5)
    assert output["code"] == socket_codes.CLOSE_PROTOCOL_ERRORS


async def test_a_bots_actions_over_its_rate_are_refused(
    owned_bot: tuple[User, str, BotToken], bot_game: Table, settings: Any
) -> None:
    settings.BOT_API_ACTIONS_PER_MINUTE = 2
    comm = bot_socket(f"/ws/mesas/{bot_game.pk}/", owned_bot[1])
    assert (await comm.connect())[0]
    await states_until_quiet(comm)
    codes = []
    for _ in range(3):
        await comm.send_to(text_data='{"type": "chat", "text": "hola"}')
        found = await states_until_quiet(comm)
        codes.append(next((m["code"] for m in found if m["type"] == "error"), "ok"))
    assert codes == ["ok", "ok", "rate_limited"]
    await comm.disconnect()


async def test_a_token_opens_a_limited_number_of_sockets_a_minute(
    owned_bot: tuple[User, str, BotToken], bot_game: Table, settings: Any
) -> None:
    settings.BOT_API_CONNECTIONS_PER_MINUTE = 1
    path = f"/ws/mesas/{bot_game.pk}/"
    first = bot_socket(path, owned_bot[1])
    assert (await first.connect())[0]
    assert await refused_with(bot_socket(path, owned_bot[1])) == socket_codes.CLOSE_RATE_LIMITED
    await first.disconnect()


async def test_a_bot_that_disconnects_spends_its_reconnection_budget_like_anyone(
    owned_bot: tuple[User, str, BotToken], bot_game: Table
) -> None:
    comm = bot_socket(f"/ws/mesas/{bot_game.pk}/", owned_bot[1])
    assert (await comm.connect())[0]
    await states_until_quiet(comm)
    await comm.disconnect()

    def away_until() -> Any:
        return Seat.objects.get(table=bot_game, seat=3).reconnect_deadline

    assert await database_sync_to_async(away_until)() is not None


async def test_a_bots_socket_stays_open_when_its_account_changes_but_its_token_still_works(
    owned_bot: tuple[User, str, BotToken], bot_game: Table
) -> None:
    """A bot's socket answers to its token, not to a session it never had."""
    comm = bot_socket(f"/ws/mesas/{bot_game.pk}/", owned_bot[1])
    assert (await comm.connect())[0]
    await states_until_quiet(comm)
    await database_sync_to_async(recheck_now)(owned_bot[0].pk)
    await comm.send_to(text_data='{"type": "ping"}')
    found = await states_until_quiet(comm)
    assert {"type": "pong"} in found
    await comm.disconnect()


def recheck_now(user_id: int) -> None:
    with transaction.atomic():
        sockets.recheck_sockets(user_id)
