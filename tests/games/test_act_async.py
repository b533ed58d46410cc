"""`services.act_on_loop`: the consumer's move on the event loop, against the real database."""

from __future__ import annotations

import json
from typing import Any

import pytest
from channels.db import database_sync_to_async
from channels.layers import get_channel_layer

from accounts.models import User
from games import engine, services
from games.models import Table
from games.services import bots
from tests.factories import started_table
from tests.sockets import leaked_cards

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.asyncio]


async def mano_of(table: Table) -> int:
    game = await database_sync_to_async(services.game_of)(table)
    return game.mano


async def test_a_move_is_saved_and_broadcast_without_the_sync_thread(
    four_players: list[User],
) -> None:
    table = await database_sync_to_async(started_table)(four_players)
    layer = get_channel_layer()
    listener = await layer.new_channel()
    await layer.group_add(services.group_name(table.pk), listener)
    mano = await mano_of(table)
    moved = await services.act_on_loop(four_players[mano], table.pk, table.version, {"act": "mus"})
    assert moved is not None and moved.version == table.version + 1
    after = await Table.objects.aget(pk=table.pk)
    assert after.version == table.version + 1
    assert after.record["hands"][0]["actions"] == [{"seat": mano, "act": "mus"}]
    event = await layer.receive(listener)
    states = {key: json.loads(services.state_text(event, key)) for key in event["yours"]}
    assert all(state["v"] == after.version for state in states.values())
    for key, state in states.items():  # each seat's text holds only its own cards
        assert not leaked_cards(state, None if key == "-" else int(key))


@pytest.mark.parametrize(
    ("version_shift", "payload", "code"),
    [
        (-1, {"act": "mus"}, "stale"),
        (0, {"act": "envido", "to": 5}, "illegal_act"),
        (0, {"act": "bailar"}, "unknown_act"),
    ],
)
async def test_it_refuses_what_act_refuses_and_changes_nothing(
    four_players: list[User], version_shift: int, payload: dict[str, Any], code: str
) -> None:
    table = await database_sync_to_async(started_table)(four_players)
    mano = await mano_of(table)
    with pytest.raises(services.ServiceError) as refused:
        await services.act_on_loop(
            four_players[mano], table.pk, table.version + version_shift, payload
        )
    assert refused.value.code == code
    assert (await Table.objects.aget(pk=table.pk)).version == table.version


async def test_it_refuses_a_player_who_is_not_seated(
    four_players: list[User], make_user: Any
) -> None:
    table = await database_sync_to_async(started_table)(four_players)
    outsider = await database_sync_to_async(make_user)("mirona")
    with pytest.raises(services.ServiceError) as refused:
        await services.act_on_loop(outsider, table.pk, table.version, {"act": "mus"})
    assert refused.value.code == "not_seated"


async def test_a_table_with_bots_is_left_to_the_sync_path(four_players: list[User]) -> None:
    table = await database_sync_to_async(started_table)(four_players)
    mano = await mano_of(table)

    def seat_a_bot() -> None:
        table.seats.filter(seat=(mano + 2) % 4).update(user=bots.bot_accounts(1)[0])

    await database_sync_to_async(seat_a_bot)()
    moved = await services.act_on_loop(four_players[mano], table.pk, table.version, {"act": "mus"})
    assert moved is None
    assert (await Table.objects.aget(pk=table.pk)).version == table.version


async def test_the_move_that_ends_the_game_is_left_to_the_sync_path(
    four_players: list[User],
) -> None:
    table = await database_sync_to_async(started_table)(four_players)
    mano = await mano_of(table)

    def ordago_and_one_quiero() -> Table:
        # corto, then the mano's órdago at grande; one rival accepts, the other's vote ends it
        for seat, act in ((mano, "corto"), (mano, "ordago"), ((mano + 1) % 4, "quiero")):
            fresh = services.load_table(table.pk)
            services.apply_action(fresh, engine.Action(seat, act))
        return services.load_table(table.pk)

    before = await database_sync_to_async(ordago_and_one_quiero)()
    last = (mano + 3) % 4
    moved = await services.act_on_loop(
        four_players[last], before.pk, before.version, {"act": "quiero"}
    )
    assert moved is None
    assert (await Table.objects.aget(pk=table.pk)).version == before.version
    # ...where the synchronous act ends it, with the seats freed in the same transaction
    outcome = await database_sync_to_async(services.act)(
        four_players[last], before.pk, before.version, {"act": "quiero"}
    )
    assert outcome.phase == "terminada"
    assert not await table.seats.filter(active=True).aexists()
