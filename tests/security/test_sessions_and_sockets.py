"""A log-out, a password change or reset and a ban close the sockets they should, with real
consumers over the real channel layer; and WebSocket paths that are no table are refused
(#13, 7 and 11)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from asgiref.sync import sync_to_async
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.conf import settings
from django.contrib.auth import SESSION_KEY
from django.contrib.auth.tokens import default_token_generator
from django.contrib.sessions.models import Session
from django.test import Client
from django.utils.encoding import force_bytes
from django.utils.http import urlsafe_base64_encode

from accounts.models import User
from accounts.sockets import recheck_sockets
from games import socket_codes
from games.models import Table
from moderation import actions
from musweb.asgi import application
from tests.factories import seat_all
from tests.factories import session_cookie as session_cookie_for
from tests.sockets import communicator, receive, refused_with

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.asyncio]

PASSWORD = "Contraseña-muy-segura-1"
NEW_PASSWORD = "sota-caballo-y-rey-9"


def signed_in_client(user: User) -> Client:
    """A browser that logged in through the log-in form."""
    client = Client()
    assert (
        client.post("/cuentas/entrar/", {"username": user.username, "password": PASSWORD})
    ).status_code == 302
    return client


def cookie_of(client: Client) -> str:
    return f"{settings.SESSION_COOKIE_NAME}={client.cookies[settings.SESSION_COOKIE_NAME].value}"


async def open_socket(table_id: int, cookie: str) -> WebsocketCommunicator:
    comm = communicator(table_id, cookie)
    connected, _ = await comm.connect()
    assert connected
    while not await comm.receive_nothing(timeout=0.1):
        await comm.receive_output()
    return comm


async def close_code(comm: WebsocketCommunicator) -> int | None:
    while True:
        output = await comm.receive_output(timeout=5)
        if output["type"] == "websocket.close":
            return output.get("code")


async def still_open(comm: WebsocketCommunicator) -> bool:
    await comm.send_to(text_data='{"type": "ping"}')
    while True:
        output = await comm.receive_output(timeout=5)
        if output["type"] == "websocket.close":
            return False
        if '"pong"' in output.get("text", ""):
            return True


@pytest.fixture
def public_table(four_players: list[User]) -> Table:
    return seat_all(four_players)


async def test_a_log_out_closes_the_sockets_of_that_session_and_no_other(
    four_players: list[User], public_table: Table
) -> None:
    player = four_players[1]
    laptop = await sync_to_async(signed_in_client)(player)
    phone = await database_sync_to_async(session_cookie_for)(player)
    from_laptop = await open_socket(public_table.pk, cookie_of(laptop))
    from_phone = await open_socket(public_table.pk, phone)

    response = await sync_to_async(laptop.post)("/cuentas/salir/")
    assert response.status_code == 302

    assert await close_code(from_laptop) == socket_codes.CLOSE_NOT_LOGGED_IN
    assert await still_open(from_phone)
    await from_phone.disconnect()


async def test_a_password_change_closes_the_sockets_of_the_other_sessions_and_ends_them(
    four_players: list[User], public_table: Table
) -> None:
    player = four_players[1]
    browser = await sync_to_async(signed_in_client)(player)
    other = await sync_to_async(signed_in_client)(player)
    from_other = await open_socket(public_table.pk, cookie_of(other))

    response = await sync_to_async(browser.post)(
        "/cuentas/contrasena/",
        {"old_password": PASSWORD, "new_password1": NEW_PASSWORD, "new_password2": NEW_PASSWORD},
    )
    assert response.status_code == 302

    assert await close_code(from_other) == socket_codes.CLOSE_NOT_LOGGED_IN
    keys = await database_sync_to_async(signed_in_sessions)()
    assert keys == [browser.cookies[settings.SESSION_COOKIE_NAME].value]
    page = await sync_to_async(browser.get)("/")
    assert page.context["user"].is_authenticated  # the one who changed it stays signed in


async def test_a_password_reset_closes_every_socket_and_ends_every_session(
    four_players: list[User], public_table: Table
) -> None:
    player = four_players[1]
    signed_in = await sync_to_async(signed_in_client)(player)
    comm = await open_socket(public_table.pk, cookie_of(signed_in))

    def reset() -> int:
        uid = urlsafe_base64_encode(force_bytes(player.pk))
        # The token covers the last log-in: read the account as the log-in above left it.
        token = default_token_generator.make_token(User.objects.get(pk=player.pk))
        anonymous = Client()
        form = anonymous.get(f"/cuentas/contrasena/nueva/{uid}/{token}/")
        return anonymous.post(
            form.url, {"new_password1": NEW_PASSWORD, "new_password2": NEW_PASSWORD}
        ).status_code

    assert await sync_to_async(reset)() == 302
    assert await close_code(comm) == socket_codes.CLOSE_NOT_LOGGED_IN
    assert await database_sync_to_async(signed_in_sessions)() == []


def signed_in_sessions() -> list[str]:
    """The keys of the stored sessions in which somebody is signed in."""
    return [s.session_key for s in Session.objects.all() if s.get_decoded().get(SESSION_KEY)]


async def test_a_password_set_in_the_admin_closes_the_players_sockets(
    four_players: list[User], public_table: Table, make_user: Callable[..., User]
) -> None:
    player = four_players[1]
    comm = await open_socket(
        public_table.pk, await database_sync_to_async(session_cookie_for)(player)
    )
    staff = await database_sync_to_async(make_user)("jefa", is_staff=True, is_superuser=True)

    def set_password() -> int:
        client = Client()
        client.force_login(staff, backend="accounts.backends.ActiveAccountBackend")
        return client.post(
            f"/admin/accounts/user/{player.pk}/password/",
            {"password1": NEW_PASSWORD, "password2": NEW_PASSWORD, "set_usable_password": "true"},
        ).status_code

    assert await sync_to_async(set_password)() == 302
    assert await close_code(comm) == socket_codes.CLOSE_NOT_LOGGED_IN


async def test_a_ban_closes_a_socket_watching_another_table(
    four_players: list[User], make_user: Callable[..., User]
) -> None:
    table = await database_sync_to_async(seat_all)(four_players)
    onlooker = await database_sync_to_async(make_user)("mirona")
    moderator = await database_sync_to_async(make_user)("moderadora", is_staff=True)
    watching = await open_socket(
        table.pk, await database_sync_to_async(session_cookie_for)(onlooker)
    )
    seated = await open_socket(
        table.pk, await database_sync_to_async(session_cookie_for)(four_players[2])
    )

    await database_sync_to_async(actions.ban)(moderator, onlooker, "Insultos en el chat")

    assert await close_code(watching) == socket_codes.CLOSE_REFUSED
    assert await still_open(seated)  # nobody else's socket
    await seated.disconnect()


async def test_nothing_closes_when_the_account_did_not_change(
    four_players: list[User], public_table: Table
) -> None:
    player = four_players[1]
    comm = await open_socket(
        public_table.pk, await database_sync_to_async(session_cookie_for)(player)
    )
    await database_sync_to_async(recheck_sockets)(player.pk)
    assert await still_open(comm)
    assert (await receive_or_none(comm)) is None
    await comm.disconnect()


async def receive_or_none(comm: WebsocketCommunicator) -> Any:
    if await comm.receive_nothing(timeout=0.3):
        return None
    return await receive(comm)


@pytest.mark.parametrize("path", ["/ws/mesas/-1/", "/ws/mesas/abc/", "/ws/otra-cosa/", "/ws/"])
async def test_a_websocket_path_that_is_no_table_is_refused_with_a_code(path: str) -> None:
    comm = WebsocketCommunicator(
        application, path, headers=[(b"host", b"localhost"), (b"origin", b"http://localhost")]
    )
    assert await refused_with(comm) == socket_codes.CLOSE_NOT_FOUND
