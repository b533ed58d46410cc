"""The table WebSocket, with real consumers, the real channel layer (Redis) and PostgreSQL."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from channels.db import database_sync_to_async

from accounts.models import User
from games import engine, services
from games.models import Table
from tests.factories import session_cookie, started_table
from tests.sockets import (
    communicator,
    connect_all,
    leaked_cards,
    receive,
    receive_state,
    refused_with,
    welcomed,
)

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.asyncio]


async def latest_states(comms: list[Any], states: list[dict[str, Any]], seats: list[int]) -> None:
    """Drain every pending message, checking each for leaked cards."""
    for i, comm in enumerate(comms):
        while not await comm.receive_nothing(timeout=0.02):
            message = await receive(comm)
            assert not leaked_cards(message, seats[i]), message
            if message["type"] == "state" and (not states[i] or message["v"] >= states[i]["v"]):
                states[i] = message


async def wait_for_version(comms: list[Any], states: list[dict[str, Any]], v: int) -> None:
    for i, comm in enumerate(comms):
        while states[i]["v"] < v:
            message = await receive(comm)
            assert not leaked_cards(message, i), message
            if message["type"] == "state" and message["v"] >= states[i]["v"]:
                states[i] = message


def random_action(legal: list[dict[str, Any]], cards: list[str], rnd: random.Random) -> dict:
    choice = rnd.choice(legal)
    action = {"act": choice["act"]}
    if choice["act"] == "envido":
        action["to"] = rnd.randint(choice["min"], min(choice["max"], choice["min"] + 3))
    if choice["act"] == "descarte":
        action["cards"] = rnd.sample(cards, rnd.randint(1, 4))
    return action


@pytest.mark.parametrize(("mode", "seed"), [("4-reyes", 3), ("8-reyes", 11)])
async def test_four_players_play_a_whole_game_and_the_record_replays_to_the_same_score(
    four_players: list[User], mode: str, seed: int
) -> None:
    table = await database_sync_to_async(started_table)(four_players, mode, seed)
    comms = await connect_all(table, four_players)
    states: list[dict[str, Any]] = [{}, {}, {}, {}]
    await latest_states(comms, states, [0, 1, 2, 3])
    rnd = random.Random(seed)
    for _ in range(3000):
        v = max(s["v"] for s in states)
        await wait_for_version(comms, states, v)
        if states[0]["phase"] == "terminada":
            break
        movers = [i for i in range(4) if states[i]["you"]["legal"]]
        assert movers, states[0]
        seat = rnd.choice(movers)
        me = states[seat]
        action = random_action(me["you"]["legal"], me["you"]["cards"], rnd)
        await comms[seat].send_to(text_data=json.dumps({"type": "action", "v": me["v"], **action}))
        await wait_for_version(comms, states, v + 1)
    assert states[0]["phase"] == "terminada"
    stored = await database_sync_to_async(Table.objects.get)(pk=table.pk)
    result = engine.replay_result(stored.record)
    assert result["scores"] == stored.scores == states[0]["scores"]
    assert result["winner"] == stored.winner_team == states[0]["winner"]
    assert stored.status == Table.Status.FINISHED
    assert states[0]["record_url"] == f"/partidas/{table.pk}/registro.json"
    for comm in comms:
        await comm.disconnect()


async def test_a_player_gets_the_state_at_once_on_connecting(four_players: list[User]) -> None:
    table = await database_sync_to_async(started_table)(four_players)
    [comm] = await connect_all(table, four_players[:1])
    state = await receive_state(comm)
    assert state["phase"] == "mus"
    assert state["you"]["seat"] == 0
    assert len(state["you"]["cards"]) == 4
    assert not leaked_cards(state, 0)
    await comm.disconnect()


async def test_a_visitor_who_is_not_logged_in_watches_a_public_table_read_only(
    four_players: list[User],
) -> None:
    table = await database_sync_to_async(started_table)(four_players)
    comm = communicator(table.pk, None)
    connected, _ = await comm.connect()
    assert connected
    state = await receive_state(comm)
    assert state["you"] is None and state["phase"] == "mus"
    assert not leaked_cards(state, None)
    mano = state["mano"]
    assert (await receive(comm))["type"] == "chat_history"
    await comm.send_to(text_data=json.dumps({"type": "action", "v": state["v"], "act": "mus"}))
    error = await receive(comm)
    assert (error["type"], error["code"]) == ("error", "not_seated")
    await receive_state(comm)  # the fresh state after a refusal
    await comm.send_to(text_data=json.dumps({"type": "chat", "text": "hola"}))
    assert (await receive(comm))["code"] == "not_seated"
    # ... and sees the game move like any onlooker.
    await database_sync_to_async(services.act)(
        four_players[mano], table.pk, state["v"], {"act": "mus"}
    )
    while (moved := await receive_state(comm))["v"] == state["v"]:
        pass
    assert moved["v"] == state["v"] + 1 and not leaked_cards(moved, None)
    await comm.disconnect()


async def test_it_refuses_an_anonymous_socket_at_a_private_table(
    four_players: list[User],
) -> None:
    table = await database_sync_to_async(started_table)(four_players)
    await database_sync_to_async(Table.objects.filter(pk=table.pk).update)(private=True)
    comm = communicator(table.pk, None)
    assert await refused_with(comm) == 4401


async def test_it_refuses_a_socket_from_a_foreign_origin(four_players: list[User]) -> None:
    table = await database_sync_to_async(started_table)(four_players)
    cookie = await database_sync_to_async(session_cookie)(four_players[0])
    comm = communicator(table.pk, cookie, origin="http://evil.example")
    connected, _ = await comm.connect()
    assert not connected


async def _player_to_act(table: Table, players: list[User]) -> tuple[Any, dict, int, list[Any]]:
    comms = await connect_all(table, players)
    states = await welcomed(comms)
    await latest_states(comms, states, [0, 1, 2, 3])
    seat = next(i for i in range(4) if states[i]["you"]["legal"])
    return comms[seat], states[seat], seat, comms


BAD_MESSAGES = [
    ("not json", "malformed"),
    ("[1, 2]", "malformed"),
    ('{"type": "dance"}', "unknown_type"),
    ('{"type": "action", "act": "mus"}', "bad_version"),
    ('{"type": "action", "v": "7", "act": "mus"}', "bad_version"),
    ('{"type": "action", "v": 0, "act": "mus"}', "stale"),
    ('{"type": "action", "v": {v}, "act": "bailar"}', "unknown_act"),
    ('{"type": "action", "v": {v}, "act": "mus", "extra": 1}', "malformed"),
    ('{"type": "action", "v": {v}, "act": "envido", "to": 1}', None),
    ('{"type": "action", "v": {v}, "act": "envido", "to": 41}', None),
    ('{"type": "action", "v": {v}, "act": "repartir"}', None),
]


@pytest.mark.parametrize(("raw", "code"), BAD_MESSAGES)
async def test_a_bad_message_gets_an_error_and_a_fresh_state_and_changes_nothing(
    four_players: list[User], raw: str, code: str | None
) -> None:
    table = await database_sync_to_async(started_table)(four_players)
    comm, state, _seat, comms = await _player_to_act(table, four_players)
    before = await database_sync_to_async(Table.objects.get)(pk=table.pk)
    await comm.send_to(text_data=raw.replace("{v}", str(state["v"])))
    error = await receive(comm)
    assert error["type"] == "error"
    assert error["message"]
    if code:
        assert error["code"] == code
    fresh = await receive(comm)
    assert fresh["type"] == "state"
    assert fresh["v"] == state["v"]
    after = await database_sync_to_async(Table.objects.get)(pk=table.pk)
    assert (after.version, after.record) == (before.version, before.record)
    # The connection stays open and usable.
    await comm.send_to(text_data='{"type": "ping"}')
    assert (await receive(comm))["type"] == "pong"
    for c in comms:
        await c.disconnect()


async def test_it_refuses_an_action_out_of_turn(four_players: list[User]) -> None:
    table = await database_sync_to_async(started_table)(four_players)
    _comm, state, seat, comms = await _player_to_act(table, four_players)
    other = (seat + 1) % 4
    await comms[other].send_to(
        text_data=json.dumps({"type": "action", "v": state["v"], "act": "mus"})
    )
    error = await receive(comms[other])
    assert error == {**error, "type": "error", "code": "not_your_turn"}
    for c in comms:
        await c.disconnect()


async def test_an_onlooker_cannot_act_and_sees_no_cards(
    four_players: list[User], make_user: Any
) -> None:
    table = await database_sync_to_async(started_table)(four_players)
    stranger = await database_sync_to_async(make_user)("mirón")
    [comm] = await connect_all(table, [stranger])
    state = await receive_state(comm)
    assert state["you"] is None
    assert not leaked_cards(state, None)
    await comm.send_to(text_data=json.dumps({"type": "action", "v": state["v"], "act": "mus"}))
    error = await receive(comm)
    while error["type"] != "error":
        error = await receive(comm)
    assert error["code"] == "not_seated"
    await comm.disconnect()


async def test_a_private_table_refuses_a_socket_without_the_invitation(
    four_players: list[User], make_user: Any
) -> None:
    table = await database_sync_to_async(services.create_table)(
        four_players[0], "4-reyes", private=True
    )
    stranger = await database_sync_to_async(make_user)("intruso")
    cookie = await database_sync_to_async(session_cookie)(stranger)
    comm = communicator(table.pk, cookie)
    assert await refused_with(comm) == 4403


async def test_simultaneous_discards_sent_against_the_same_version_all_apply(
    four_players: list[User],
) -> None:
    table = await database_sync_to_async(started_table)(four_players)
    comms = await connect_all(table, four_players)
    states: list[dict[str, Any]] = [{}, {}, {}, {}]
    await latest_states(comms, states, [0, 1, 2, 3])
    for _ in range(4):  # everybody says mus, in turn
        seat = next(i for i in range(4) if states[i]["you"]["legal"])
        v = states[seat]["v"]
        await comms[seat].send_to(text_data=json.dumps({"type": "action", "v": v, "act": "mus"}))
        await wait_for_version(comms, states, v + 1)
    assert states[0]["phase"] == "descarte"
    v = states[0]["v"]
    for seat in range(4):
        cards = states[seat]["you"]["cards"][:2]
        message = {"type": "action", "v": v, "act": "descarte", "cards": cards}
        await comms[seat].send_to(text_data=json.dumps(message))
    await wait_for_version(comms, states, v + 4)
    stored = await database_sync_to_async(Table.objects.get)(pk=table.pk)
    discards = [a for a in stored.record["hands"][0]["actions"] if a["act"] == "descarte"]
    assert len(discards) == 4
    assert states[0]["phase"] == "mus"
    for comm in comms:
        while not await comm.receive_nothing(timeout=0.05):
            assert (await receive(comm))["type"] != "error"
        await comm.disconnect()


async def test_an_action_against_an_earlier_step_is_refused_as_stale(
    four_players: list[User],
) -> None:
    table = await database_sync_to_async(started_table)(four_players)
    comm, state, _seat, comms = await _player_to_act(table, four_players)
    await comm.send_to(text_data=json.dumps({"type": "action", "v": state["v"], "act": "corto"}))
    while (await receive_state(comm))["v"] == state["v"]:
        pass
    # The lances have begun: an opening bet sent against the mus version is out of date.
    await comm.send_to(
        text_data=json.dumps({"type": "action", "v": state["v"], "act": "envido", "to": 2})
    )
    while (message := await receive(comm))["type"] != "error":
        pass
    assert message["code"] == "stale"
    for c in comms:
        await c.disconnect()


async def test_a_player_renamed_mid_game_keeps_their_seat(four_players: list[User]) -> None:
    """Sockets find their seat by user id: a username changed by staff mid-game must not turn
    the player into an onlooker."""
    table = await database_sync_to_async(started_table)(four_players)
    comms = await connect_all(table, four_players)
    for comm in comms:
        await receive_state(comm)
    renamed = four_players[2]
    renamed.username = "nuevo-nombre"
    await database_sync_to_async(renamed.save)(update_fields=["username"])
    await database_sync_to_async(services.broadcast)(table.pk)
    state = await receive_state(comms[2])
    assert state["you"] is not None and state["you"]["seat"] == 2
    assert len(state["you"]["cards"]) == 4
    for comm in comms:
        await comm.disconnect()


async def test_a_player_at_a_live_table_stays_online_while_their_socket_pings(
    four_players: list[User],
) -> None:
    """Presence was only touched by HTTP requests: after five minutes at a table a player
    dropped off «who is online». The socket's ping keeps them there."""
    from games.services import presence

    table = await database_sync_to_async(started_table)(four_players)
    [comm] = await connect_all(table, four_players[:1])
    await receive_state(comm)
    player = four_players[0].pk
    stale = {str(player): 1.0}  # last seen long ago
    await database_sync_to_async(presence.client().zadd)(presence.online_key(), stale)
    assert player not in {u.pk for u in await database_sync_to_async(presence.online_players)()}
    await comm.send_to(text_data=json.dumps({"type": "ping"}))
    while (await receive(comm))["type"] != "pong":
        pass
    online = await database_sync_to_async(presence.online_players)()
    assert player in {u.pk for u in online}
    await comm.disconnect()
