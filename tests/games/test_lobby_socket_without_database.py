"""The lobby's socket (`/ws/sala/`) is routed outside the session and user look-up: opening it
costs no database query. This module has no database access at all (pytest-django blocks it), so
the socket would fail if it went through the session."""

from __future__ import annotations

import json
from typing import Any

from asgiref.sync import async_to_sync
from channels.testing import WebsocketCommunicator

from games.services import lobby, presence
from musweb.asgi import application


def test_the_lobby_socket_needs_no_database_and_no_session() -> None:
    """Routed outside the session and user look-up: with the database out of reach (this test
    has no database access at all), a visitor's socket still opens and gets the stored lobby."""
    stored = {"type": "lobby", "full": True, "v": 7, "open": [], "playing": [], "cards": {}}
    stored["online"] = [["ana", "Ana"]]
    presence.client().set(lobby.snapshot_key("es"), json.dumps(stored))

    async def visit() -> dict[str, Any]:
        # A signed-in browser's cookie: through the session middleware it would be looked up.
        headers = [
            (b"host", b"localhost"),
            (b"origin", b"http://localhost"),
            (b"cookie", b"sessionid=abcdefghijklmnopqrstuvwxyz012345"),
        ]
        comm = WebsocketCommunicator(application, "/ws/sala/?lang=es", headers=headers)
        connected, _ = await comm.connect()
        assert connected
        message = json.loads(await comm.receive_from(timeout=10))
        await comm.disconnect()
        return message

    assert async_to_sync(visit)() == stored
    lobby.forget(["es"])
