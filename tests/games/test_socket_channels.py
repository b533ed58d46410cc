"""What the channel layer keeps for a socket once it has closed: nothing, however it closed.
Real consumers, the real pub/sub channel layer (Redis), PostgreSQL."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from channels.db import database_sync_to_async
from channels.layers import get_channel_layer

from accounts.models import User
from accounts.sockets import user_group
from games.services import lobby
from tests.factories import started_table
from tests.games.test_player_socket import opened, page, players
from tests.sockets import join, receive

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.asyncio]


def loop_layer() -> Any:
    """channels_redis's layer for this event loop, whose bookkeeping is what leaked."""
    return get_channel_layer()._get_layer()


def channel_in(group: str) -> str:
    [channel] = loop_layer().groups[loop_layer()._get_group_channel_name(group)]
    return str(channel)


async def close_as_a_message_arrives(comm: Any, channel: str, message: dict[str, Any]) -> None:
    """The browser goes away in the same turn of the event loop as a message for its socket
    arrives: the consumer's pending receive finishes with the message instead of being
    cancelled, which is when channels_redis forgot nothing."""
    layer = get_channel_layer()
    loop_layer().channels[channel].put_nowait(layer.serialize(message))
    await comm.send_input({"type": "websocket.disconnect", "code": 1001})
    await comm.wait(timeout=5)


def kept_for(channel: str) -> list[str]:
    inner = loop_layer()
    kept = ["queue"] if channel in inner.channels else []
    return kept + [group for group, members in inner.groups.items() if channel in members]


async def test_a_page_closing_as_a_notification_arrives_leaves_nothing_behind() -> None:
    [ana] = await players(1)
    comm = await opened(ana)
    channel = channel_in(user_group(ana.pk))
    await close_as_a_message_arrives(comm, channel, {"type": "blocks_changed"})
    assert kept_for(channel) == []
    # and the group's later messages go nowhere: no queue fills for a socket that is gone
    assert loop_layer()._get_group_channel_name(user_group(ana.pk)) not in loop_layer().groups


async def test_a_table_socket_closing_as_a_state_arrives_leaves_nothing_behind(
    four_players: list[User],
) -> None:
    table = await database_sync_to_async(started_table)(four_players)
    comm = await join(table, four_players[0])
    assert (await receive(comm))["type"] == "state"
    await receive(comm)  # the chat history
    channel = channel_in(f"table-{table.pk}")
    await close_as_a_message_arrives(comm, channel, {"type": "blocks_changed"})
    assert kept_for(channel) == []


async def test_a_page_whose_welcome_fails_leaves_neither_its_channel_nor_its_group(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Its player's group is joined before the welcome is read; the welcome failing (or daphne
    giving up on a socket whose welcome took too long) must not leave the group holding a
    channel whose queue fills with every later message to that player."""
    [ana] = await players(1)

    async def fails(*args: Any) -> None:
        raise RuntimeError("the welcome could not be read")

    monkeypatch.setattr("games.player_consumer.player_live.join", fails)
    before = set(loop_layer().channels)
    comm = await opened_or_failed(ana)
    assert comm is None
    assert set(loop_layer().channels) <= before
    assert loop_layer()._get_group_channel_name(user_group(ana.pk)) not in loop_layer().groups


async def opened_or_failed(user: User) -> Any:
    comm = await page(user)
    try:
        await comm.connect()
    except RuntimeError:
        return None
    return comm


async def test_the_lobby_relay_leaves_its_group_when_the_last_viewer_goes() -> None:
    """The process's lobby relay stops with its last viewer and starts again with the next:
    each stop must take its channel out of the lobby's group, or every lobby change goes on
    visiting one more dead channel per restart."""
    group = loop_layer()._get_group_channel_name(lobby.GROUP)

    async def send(text: str) -> None:
        pass

    for _ in range(3):
        lobby.watch("viewer", "es", send)
        await asyncio.sleep(0.2)  # the relay listening
        assert len(loop_layer().groups[group]) == 1
        lobby.unwatch("viewer")
        await asyncio.sleep(0.1)  # the relay stopping
    assert loop_layer().groups.get(group, set()) == set()
    assert not [c for c in loop_layer().channels if "lobby." in c]
