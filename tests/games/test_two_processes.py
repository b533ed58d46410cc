"""One table served by two daphne processes at once (docs/deploy.md: a table's sockets land on
whichever process the proxy picks). Each player holds a socket on both; the moves alternate
between the processes, and every one of them lands exactly once, in order, seen by all eight
sockets: whatever either process keeps in memory, it never commits from a stale table."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import ExitStack
from typing import Any

import pytest
from websockets.sync.client import ClientConnection, connect

from accounts.models import User
from games.models import Table
from tests.factories import session_cookie, started_table
from tests.live import daphne_process
from tests.sockets import keep_going, leaked_cards

pytestmark = [
    pytest.mark.slow,
    pytest.mark.django_db(transaction=True),
    pytest.mark.filterwarnings("ignore:connect\\(\\) must be used as a context manager"),
]

MOVES = 200


@pytest.fixture
def two_sites(transactional_db: None) -> Iterator[list[str]]:
    """Two daphne processes on the same database and Redis; turns long enough that the clock
    never plays for these players."""
    with ExitStack() as stack:
        yield [
            stack.enter_context(daphne_process(MUS_TURN_SECONDS="600")),
            stack.enter_context(daphne_process(MUS_TURN_SECONDS="600")),
        ]


def open_socket(url: str, table: Table, user: User) -> ClientConnection:
    return connect(
        f"{url.replace('http://', 'ws://')}/ws/mesas/{table.pk}/",
        additional_headers={"Cookie": session_cookie(user), "Origin": url},
        open_timeout=15,
    )


def next_state(sock: ClientConnection, seat: int, after: int = -1) -> dict[str, Any]:
    """The next `state` above version `after`; no message on the way shows another's cards."""
    while True:
        message = json.loads(sock.recv(timeout=20))
        assert not leaked_cards(message, seat), message
        assert message["type"] != "error", message
        if message["type"] == "state" and message["v"] > after:
            return message


def recorded(table: Table) -> list[tuple[int, str]]:
    table.refresh_from_db()
    return [(a["seat"], a["act"]) for hand in table.record["hands"] for a in hand["actions"]]


def test_moves_alternating_between_two_processes_each_land_once_and_in_order(
    two_sites: list[str], four_players: list[User]
) -> None:
    table = started_table(four_players)
    # sockets[p][seat]: seat's socket on process p.
    sockets = [[open_socket(url, table, user) for user in four_players] for url in two_sites]
    states = [[next_state(s, seat) for seat, s in enumerate(row)] for row in sockets]
    sent: list[tuple[int, str]] = []
    discarded: set[int] = set()
    moves = 0
    while moves < MOVES and states[0][0]["phase"] != "terminada":
        process = moves % 2
        mover = next(seat for seat in range(4) if states[process][seat]["you"]["legal"])
        state = states[process][mover]
        move = keep_going(state, discarded)
        sockets[process][mover].send(json.dumps({"type": "action", "v": state["v"], **move}))
        for p in (0, 1):
            for seat in range(4):
                states[p][seat] = next_state(sockets[p][seat], seat, after=state["v"])
        versions = {s["v"] for row in states for s in row}
        assert versions == {state["v"] + 1}, f"move {moves}: the sockets saw versions {versions}"
        if states[0][0]["phase"] == "descarte":
            discarded.add(states[0][0]["hand_no"])
        if move["act"] != "repartir":  # «Seguir» is not an action of the record
            sent.append((mover, move["act"]))
        moves += 1
    for row in sockets:
        for sock in row:
            sock.close()

    assert moves >= 100, f"the game ended after {moves} moves"
    assert recorded(table) == sent  # 0 lost, 0 doubled, in the order they were sent
    assert table.version == states[0][0]["v"]
