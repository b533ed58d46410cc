"""The channel layer after a real Redis restart: a throwaway redis-server of the test's own (as
tools/outage.py runs one), never the machine's; the consumers in process, then under daphne."""

from __future__ import annotations

import asyncio
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
import websockets
from channels.db import database_sync_to_async
from django.conf import settings
from django.test import override_settings

from accounts.models import User
from games import services
from games.socket_codes import CLOSE_TRY_AGAIN
from tests.live import daphne_process, free_port
from tests.sockets import communicator
from tools.outage import Redis

pytestmark = [pytest.mark.django_db(transaction=True)]


@pytest.fixture
def channel_redis() -> Iterator[Redis]:
    """The site's channel layer on a redis-server of this test's own."""
    with tempfile.TemporaryDirectory() as folder:
        server = Redis(Path(folder), free_port())
        server.start()
        layer = {
            **settings.CHANNEL_LAYERS["default"],
            "CONFIG": {"hosts": [f"redis://127.0.0.1:{server.port}/0"], "prefix": "restart"},
        }
        try:
            with override_settings(CHANNEL_LAYERS={"default": layer}):
                yield server
        finally:
            server.destroy()


async def opens(table_id: int) -> str | int:
    """What a visitor's socket at the table gets first: "state", or the close code. A consumer
    that fails instead (what daphne closes 1011, an internal error) raises here."""
    comm = communicator(table_id, None)
    await comm.connect(timeout=10)
    out = await comm.receive_output(timeout=10)
    await comm.disconnect()
    if out["type"] == "websocket.close":
        return out["code"]
    assert out["type"] == "websocket.send"
    return "state"


@pytest.mark.asyncio
async def test_the_first_socket_after_a_redis_restart_is_welcomed_or_told_to_try_again(
    channel_redis: Redis, four_players: list[User]
) -> None:
    """Every restart left the layer's pub/sub connection stale: the first socket's
    subscription failed on it with a TypeError and the socket was closed 1011."""
    table = await database_sync_to_async(services.create_table)(four_players[0], "4-reyes")
    assert await opens(table.pk) == "state"
    for _restart in range(3):
        channel_redis.stop()
        channel_redis.start()
        first = await opens(table.pk)
        assert first in ("state", CLOSE_TRY_AGAIN)
        if first != "state":  # the page connects again in a moment
            assert await opens(table.pk) == "state"


async def first_frame(url: str) -> str | int:
    """What a socket to daphne gets first: "state", or the close code."""
    try:
        async with websockets.connect(url, origin="http://127.0.0.1", open_timeout=10) as ws:
            message = await asyncio.wait_for(ws.recv(), 10)
    except websockets.ConnectionClosed as closed:
        return closed.rcvd.code if closed.rcvd is not None else "no close frame"
    return "state" if '"type": "state"' in str(message) else str(message)[:60]


@pytest.mark.slow
def test_under_daphne_no_socket_is_closed_1011_after_a_redis_restart(
    four_players: list[User],
) -> None:
    """All of the site's Redis (channel layer, cache, presence) on the throwaway server: before,
    two restarts in three closed the first socket 1011, with tracebacks in daphne's log."""
    table = services.create_table(four_players[0], "4-reyes")
    with tempfile.TemporaryDirectory() as folder:
        server = Redis(Path(folder), free_port())
        server.start()
        try:
            with daphne_process(REDIS_URL=f"redis://127.0.0.1:{server.port}/0") as base:
                url = base.replace("http", "ws", 1) + f"/ws/mesas/{table.pk}/"
                assert asyncio.run(first_frame(url)) == "state"
                for _restart in range(3):
                    server.stop()
                    server.start()
                    first = asyncio.run(first_frame(url))
                    assert first in ("state", CLOSE_TRY_AGAIN)
                    if first != "state":
                        assert asyncio.run(first_frame(url)) == "state"
        finally:
            server.destroy()
