"""Table WebSockets in process: communicators that carry a player's session, and their messages.

The consumer tests talk to the real consumer (`musweb.asgi.application`) through Channels'
`WebsocketCommunicator`, over the real channel layer (Redis).
"""

from __future__ import annotations

import json
import re
from typing import Any

from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator

from accounts.models import User
from games.models import Table
from musweb.asgi import application
from tests.factories import session_cookie

CARD_RE = re.compile(r"\b(?:[1-7]|1[0-2])[oceb]\b")


def communicator(
    table_id: int, cookie: str | None, origin: str = "http://localhost"
) -> WebsocketCommunicator:
    headers = [(b"host", b"localhost"), (b"origin", origin.encode())]
    if cookie:
        headers.append((b"cookie", cookie.encode()))
    return WebsocketCommunicator(application, f"/ws/mesas/{table_id}/", headers=headers)


async def join(table: Table, user: User) -> WebsocketCommunicator:
    """A socket connected to the table with a new session of ``user``."""
    cookie = await database_sync_to_async(session_cookie)(user)
    comm = communicator(table.pk, cookie)
    connected, _ = await comm.connect()
    assert connected
    return comm


async def connect_all(table: Table, players: list[User]) -> list[WebsocketCommunicator]:
    """One connected socket per player, in order, each with its own new session."""
    return [await join(table, player) for player in players]


async def refused_with(comm: WebsocketCommunicator) -> int | None:
    """The close code a refused socket gets (it is accepted, then closed at once, so that a
    browser reads the code); None if it was welcomed instead."""
    connected, code = await comm.connect()
    if not connected:
        return code
    message = await comm.receive_output(timeout=10)
    return message["code"] if message["type"] == "websocket.close" else None


async def receive(comm: WebsocketCommunicator, timeout: float = 10) -> dict[str, Any]:
    return json.loads(await comm.receive_from(timeout=timeout))


async def receive_state(comm: WebsocketCommunicator, timeout: float = 10) -> dict[str, Any]:
    while True:
        message = await receive(comm, timeout)
        if message["type"] == "state":
            return message


async def next_of(comm: WebsocketCommunicator, kind: str) -> dict[str, Any]:
    """The next message of type ``kind`` (those before it are skipped)."""
    while True:
        message = await receive(comm)
        if message["type"] == kind:
            return message


async def welcomed(comms: list[WebsocketCommunicator]) -> list[dict[str, Any]]:
    """Each socket's latest state once the table has settled after they all connected.

    A socket gets its state and then its chat history, and, while it is open, a state for
    every seated player who connects after it. Each one is read up to its chat history and a
    state in which every seated player of ``comms`` shows connected: the messages the
    connections were awaited to bring. No state read shows another player's cards.
    """
    states: list[dict[str, Any]] = []
    for comm in comms:
        state: dict[str, Any] = {}
        history = False
        while not (history and state and _all_connected(state, len(comms))):
            message = await receive(comm)
            if message["type"] == "chat_history":
                history = True
            elif message["type"] == "state":
                assert not leaked_cards(message, (message["you"] or {}).get("seat")), message
                state = message
        states.append(state)
    return states


def _all_connected(state: dict[str, Any], n: int) -> bool:
    seats = [s for s in state["seats"] if s is not None]
    return sum(1 for s in seats if s["connected"]) >= min(n, len(seats))


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


def keep_going(state: dict[str, Any], discarded: set[int]) -> dict[str, Any]:
    """A move for a seat whose `state` lists legal acts, one that keeps the game long: mus until
    the first discard of the hand (`discarded`: the hands that had one), then cut; every bet
    passed or declined (never an órdago); «Seguir» at the recuento."""
    legal = {entry["act"]: entry for entry in state["you"]["legal"]}
    if "repartir" in legal:
        return {"act": "repartir"}
    if "descarte" in legal:
        return {"act": "descarte", "cards": state["you"]["cards"][:1]}
    if "mus" in legal:
        return {"act": "mus" if state["hand_no"] not in discarded else "corto"}
    for act in ("paso", "no_quiero", "quiero"):
        if act in legal:
            return {"act": act}
    raise AssertionError(f"no move chosen from {sorted(legal)}")
