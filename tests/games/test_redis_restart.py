"""The channel layer after a real Redis restart: a throwaway redis-server of the test's own (as
tools/outage.py runs one), never the machine's; the consumers in process."""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from channels.db import database_sync_to_async
from django.conf import settings
from django.test import override_settings

from accounts.models import User
from games import services
from games.socket_codes import CLOSE_TRY_AGAIN
from tests.live import free_port
from tests.sockets import communicator
from tools.outage import Redis

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.asyncio]


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
