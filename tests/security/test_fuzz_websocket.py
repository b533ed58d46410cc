"""Fuzzing the table WebSocket: whatever a client sends, the game does not move, the socket stays
open and every reply is well formed.

Random and malformed messages go, through the real ASGI application (Channels, the Redis channel
layer, PostgreSQL), from a seated player who is not to act: no action from that seat can be
legal, so the table's version and record must never change. Chat lines can be legal: they are
expected to come back as a `chat` message (or be refused by the rate limit).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from typing import Any

import pytest
from channels.db import database_sync_to_async
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from accounts.models import User
from games import services
from games.consumers import MAX_MESSAGE_BYTES
from games.engine.actions import ACTS
from games.models import Table
from games.services import chat
from tests.factories import session_cookie, started_table
from tests.sockets import communicator

SENTINEL = json.dumps({"type": "ping", "fuzz": "end"})

# -- what gets sent ----------------------------------------------------------------------------
scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=30)
)
json_values = st.recursive(
    scalars,
    lambda children: (
        st.lists(children, max_size=5) | st.dictionaries(st.text(max_size=8), children, max_size=5)
    ),
    max_leaves=15,
)
unicode_text = st.text(
    alphabet=st.characters(min_codepoint=0x80, blacklist_categories=("Cs",)), min_size=1
)
acts = st.sampled_from(sorted(ACTS)) | st.sampled_from(["", "MUS", "mus ", "bailar", "seat"])
keys = st.sampled_from(["seat", "extra", "v2", "", "Type", "__proto__"]) | st.text(max_size=6)


def huge(n_min: int = 3500, n_max: int = 6000) -> st.SearchStrategy[str]:
    return st.integers(n_min, n_max).map(lambda n: "ñ" * n)


def action_shaped(version: int) -> st.SearchStrategy[dict[str, Any]]:
    """Actions with wrong types, wrong values and extra keys; some perfectly well formed."""
    base = st.fixed_dictionaries(
        {"type": st.just("action")},
        optional={
            "v": st.sampled_from([version, version - 1, version + 1, 0, -1, True]) | json_values,
            "act": acts | json_values,
            "to": st.integers(-50, 100) | json_values,
            "cards": st.lists(st.sampled_from(["1o", "12e", "5c", "7b", "13x", ""]), max_size=6)
            | json_values,
        },
    )
    with_extra = st.tuples(base, st.dictionaries(keys, json_values, min_size=1, max_size=3)).map(
        lambda pair: {**pair[1], **pair[0]}
    )
    return base | with_extra


def well_formed_action(version: int) -> st.SearchStrategy[dict[str, Any]]:
    """Actions a client could really send, for the current version: illegal only for the seat."""
    return st.fixed_dictionaries(
        {"type": st.just("action"), "v": st.just(version), "act": st.sampled_from(sorted(ACTS))},
        optional={
            "to": st.integers(2, 40),
            "cards": st.lists(st.sampled_from(["1o", "12e", "5c", "7b"]), max_size=4),
        },
    )


chat_shaped = st.fixed_dictionaries(
    {"type": st.just("chat")},
    optional={"text": st.text(max_size=350) | unicode_text | huge(200, 1200) | json_values},
) | st.tuples(
    st.fixed_dictionaries({"type": st.just("chat"), "text": st.text(max_size=20)}),
    st.dictionaries(keys.filter(lambda k: k not in ("type", "text")), json_values, min_size=1),
).map(lambda pair: {**pair[1], **pair[0]})

other_types = st.fixed_dictionaries(
    {
        "type": st.sampled_from(["ping", "sync", "dance", "", "ACTION", "state", "error"])
        | json_values
    },
    optional={"v": json_values, "act": json_values, "x": json_values},
)


def nested(depth: int, kind: str) -> str:
    return "[" * depth + "]" * depth if kind == "list" else '{"a":' * depth + "1" + "}" * depth


def messages(version: int) -> st.SearchStrategy[str]:
    as_json = st.one_of(
        action_shaped(version),
        well_formed_action(version),
        chat_shaped,
        st.just({"type": "chat", "text": "¡Buena mano!"}),
        other_types,
        json_values,
    ).map(lambda value: json.dumps(value))
    return st.one_of(
        as_json,
        as_json,
        as_json,
        st.text(max_size=200),
        unicode_text.map(lambda t: t[:500]),
        huge(),
        huge().map(lambda s: json.dumps({"type": "chat", "text": s})),
        st.tuples(st.integers(1, 2100), st.sampled_from(["list", "dict"])).map(
            lambda p: nested(*p)
        ),
        st.just(json.dumps({"type": "action", "v": version, "act": "mus", "seat": 0})),
    )


# -- what must come back -----------------------------------------------------------------------
def expected_replies(raw: str) -> list[str]:
    """The reply types the protocol promises for `raw` (docs/protocol.md).

    `error+state` is an error followed by a fresh state; `chat` is a delivered chat line, or an
    error alone when the chat line is refused.
    """
    if len(raw.encode()) > MAX_MESSAGE_BYTES:
        return ["error:too_long", "state"]
    try:
        message = json.loads(raw)
    except ValueError:
        return ["error:malformed", "state"]
    if not isinstance(message, dict):
        return ["error:malformed", "state"]
    kind = message.get("type")
    if kind == "action":
        return ["error:*", "state"]
    if kind == "chat":
        if set(message) - {"type", "text"}:
            # The protocol says a refused chat line gets the error alone; the consumer also sends
            # a state after this one. Both are well formed.
            return ["error:malformed", "state?"]
        try:
            chat.clean_text(message.get("text"))
        except services.ServiceError as exc:
            return [f"error:{exc.code}"]
        return ["chat-or-rate"]
    if kind == "ping":
        return ["pong"]
    if kind == "sync":
        return ["state"]
    return ["error:unknown_type", "state"]


def check_reply(expected: str, reply: dict[str, Any], version: int) -> None:
    if expected.startswith("error:"):
        assert set(reply) == {"type", "code", "message"}, reply
        assert reply["type"] == "error"
        assert isinstance(reply["code"], str) and reply["code"]
        assert isinstance(reply["message"], str) and reply["message"]
        code = expected.split(":", 1)[1]
        assert code in ("*", reply["code"]), reply
        # From a seat that is not to act, nothing is ever accepted.
        assert reply["code"] != "ok"
    elif expected == "state":
        assert reply["type"] == "state", reply
        assert reply["v"] == version
    elif expected == "chat-or-rate":
        if reply["type"] == "error":
            assert reply["code"] == "chat_rate", reply
        else:
            assert reply["type"] == "chat", reply
            assert isinstance(reply["text"], str) and 0 < len(reply["text"]) <= chat.MAX_LENGTH
    else:
        assert reply["type"] == expected, reply


def check_replies(raw: str, replies: list[dict[str, Any]], version: int) -> None:
    """The replies to `raw` are the promised ones, in order.

    Besides them the socket may get the table's own `state` broadcasts (another seat connecting,
    say): any `state` at all must show the unchanged table, and the one that follows an error
    must come right after it.
    """
    expected = expected_replies(raw)
    for reply in replies:
        if reply.get("type") == "state":
            check_reply("state", reply, version)
    wanted = [e for e in expected if e not in ("state", "state?")]
    got = [r for r in replies if r.get("type") != "state"]
    assert len(got) == len(wanted), (raw[:200], replies)
    for want, reply in zip(wanted, got, strict=True):
        check_reply(want, reply, version)
    if "state" in expected:
        if got:
            after = next(i for i, r in enumerate(replies) if r is got[0]) + 1
            assert after < len(replies) and replies[after]["type"] == "state", replies
        else:
            assert any(r["type"] == "state" for r in replies), replies


async def exchange(comm: Any, raw: str) -> list[dict[str, Any]]:
    """Send `raw`, then a ping; return every reply before the ping's pong."""
    # Straight to the application: the test communicator refuses an empty text frame, which a
    # real client can send.
    await comm.send_input({"type": "websocket.receive", "text": raw})
    await comm.send_to(text_data=SENTINEL)
    replies: list[dict[str, Any]] = []
    pongs_to_skip = 1 if expected_replies(raw) == ["pong"] else 0
    while True:
        output = await comm.receive_output(timeout=10)
        # A closed socket would show up here as a websocket.close.
        assert output["type"] == "websocket.send", output
        reply = json.loads(output["text"])
        if reply.get("type") == "pong":
            if pongs_to_skip == 0:
                if expected_replies(raw) == ["chat-or-rate"] and not [
                    r for r in replies if r.get("type") != "state"
                ]:
                    # A chat line comes back through the channel layer, so it may arrive
                    # after the pong that was answered directly.
                    replies.append(json.loads(await comm.receive_from(timeout=10)))
                return replies
            pongs_to_skip -= 1
        replies.append(reply)


@pytest.mark.django_db(transaction=True)
def test_random_and_malformed_messages_never_move_the_game_or_close_the_socket(
    four_players: list[User],
) -> None:
    table = started_table(four_players)
    game = services.game_of(table)
    assert game is not None and game.phase == "mus"
    [to_act] = game.to_act()
    sender = four_players[(to_act + 1) % 4]  # seated, never to act in the mus round
    before = (table.version, table.record)

    loop = asyncio.new_event_loop()
    run: Callable[[Any], Any] = loop.run_until_complete
    try:
        comm = communicator(table.pk, session_cookie(sender))
        connected, _ = run(comm.connect())
        assert connected
        first = json.loads(run(comm.receive_from(timeout=5)))
        assert first["type"] == "state" and first["v"] == table.version
        while json.loads(run(comm.receive_from(timeout=5)))["type"] != "chat_history":
            pass

        @settings(
            max_examples=60,
            deadline=None,
            suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
            database=None,
        )
        @given(raw=messages(table.version))
        def one_message(raw: str) -> None:
            replies = run(exchange(comm, raw))
            check_replies(raw, replies, table.version)
            stored = Table.objects.get(pk=table.pk)
            assert (stored.version, stored.record) == before
            assert stored.status == Table.Status.PLAYING

        try:
            one_message()
            # Still connected and answering after all of it.
            run(comm.send_to(text_data=json.dumps({"type": "sync"})))
            while (last := json.loads(run(comm.receive_from(timeout=5))))["type"] != "state":
                pass
            assert last["v"] == table.version
        finally:
            run(comm.disconnect())
    finally:
        run(database_sync_to_async(lambda: None)())
        run(loop.shutdown_asyncgens())
        loop.close()


@pytest.mark.django_db(transaction=True)
@pytest.mark.asyncio
async def test_a_chat_line_with_unknown_fields_gets_the_error_alone(
    four_players: list[User],
) -> None:
    table = await database_sync_to_async(started_table)(four_players)
    cookie = await database_sync_to_async(session_cookie)(four_players[0])
    comm = communicator(table.pk, cookie)
    connected, _ = await comm.connect()
    assert connected
    await comm.receive_from(timeout=5)  # state
    await comm.receive_from(timeout=5)  # chat_history
    await comm.send_to(text_data=json.dumps({"type": "chat", "text": "hola", "seat": 3}))
    await comm.send_to(text_data=SENTINEL)
    replies = [json.loads(await comm.receive_from(timeout=5)) for _ in range(2)]
    await comm.disconnect()
    assert [r["type"] for r in replies] == ["error", "pong"]
