"""Factories and WebSocket helpers for the table tests."""

from __future__ import annotations

import json
import random
import re
from collections.abc import Callable
from typing import Any

import pytest
from channels.testing import WebsocketCommunicator
from django.test import Client

from accounts.models import User
from accounts.sessions import session_cookie as session_cookie_for  # noqa: F401 - shared helper
from games import services
from games.models import Connection, Table
from musweb.asgi import application

CARD_RE = re.compile(r"\b(?:[1-7]|1[0-2])[oceb]\b")


def login(user: User) -> Client:
    """A test client signed in as `user` (through the site's own authentication backend)."""
    client = Client()
    client.force_login(user, backend="accounts.backends.ActiveAccountBackend")
    return client


@pytest.fixture
def make_user(db: None) -> Callable[..., User]:
    counter = iter(range(10_000))

    def make(username: str | None = None, **extra: Any) -> User:
        name = username or f"jugador{next(counter)}"
        user = User.objects.create_user(username=name, password="Contraseña-muy-segura-1", **extra)
        return user

    return make


@pytest.fixture
def four_players(make_user: Callable[..., User]) -> list[User]:
    return [make_user(f"p{i}") for i in range(4)]


def seat_all(players: list[User], mode: str = "4-reyes", **kwargs: Any) -> Table:
    table = services.create_table(players[0], mode, **kwargs)
    for i in range(1, 4):
        services.take_seat(players[i], table.pk, i, table.invite_token)
    table.refresh_from_db()
    return table


def started_table(players: list[User], mode: str = "4-reyes", seed: int = 1) -> Table:
    """A game started with its four players at the table: as if each had a socket open when it
    started (so nobody is waited for, RULES.md §8.3), sockets that then went without a trace.
    A test's own sockets are counted from there; closing the last one makes the seat wait."""
    table = seat_all(players, mode)
    placeholders = [
        Connection(channel=f"placeholder-{table.pk}-{p.pk}", process="tests", table=table, user=p)
        for p in players
    ]
    Connection.objects.bulk_create(placeholders)
    services.start_game(players[0], table.pk, random.Random(seed))
    Connection.objects.filter(process="tests", table=table).delete()
    table.refresh_from_db()
    return table


def communicator(
    table_id: int, cookie: str | None, origin: str = "http://localhost"
) -> WebsocketCommunicator:
    headers = [(b"host", b"localhost"), (b"origin", origin.encode())]
    if cookie:
        headers.append((b"cookie", cookie.encode()))
    return WebsocketCommunicator(application, f"/ws/mesas/{table_id}/", headers=headers)


async def receive(comm: WebsocketCommunicator, timeout: float = 10) -> dict[str, Any]:
    return json.loads(await comm.receive_from(timeout=timeout))


async def receive_state(comm: WebsocketCommunicator, timeout: float = 10) -> dict[str, Any]:
    while True:
        message = await receive(comm, timeout)
        if message["type"] == "state":
            return message


def leaked_cards(message: dict[str, Any], seat: int | None) -> set[str]:
    """Card codes in a message that are not the receiver's own, before the recuento."""
    if message.get("type") != "state" or message.get("phase") in (
        "recuento",
        "terminada",
        "cancelada",
    ):
        return set()
    own = set(message["you"]["cards"]) if message.get("you") else set()
    text = json.dumps(message)
    return {code for code in CARD_RE.findall(text)} - own
