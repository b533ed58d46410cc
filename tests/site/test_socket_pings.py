"""daphne's pings are spread over time (musweb.server): sockets that only listen and opened
together are not all pinged in the same instant, whose burst of pings and pongs held up every
live table on the server (docs/journal/performance.md, «The lobby through nginx, fourth
session»)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time

import pytest
from websockets.asyncio.client import connect

from tests.live import daphne_server

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]

SOCKETS = 30
INTERVAL = 5  # seconds: daphne's --ping-interval in this test (the site runs with 20)


class Pings(logging.Handler):
    """The instants at which each socket got its first ping (websockets logs every frame)."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.first: dict[int, float] = {}
        self.everyone = asyncio.Event()

    def emit(self, record: logging.LogRecord) -> None:
        if record.getMessage().startswith("< PING"):
            self.first.setdefault(id(record.websocket), time.monotonic())  # type: ignore[attr-defined]
            if len(self.first) == SOCKETS:
                self.everyone.set()


async def watch_lobby(base: str, pings: Pings) -> None:
    logger = logging.getLogger(f"tests.pings.{id(pings)}")
    logger.setLevel(logging.DEBUG)
    logger.propagate = False
    logger.addHandler(pings)
    sockets = [
        await connect(f"ws://{base}/ws/sala/?lang=es", origin=f"http://{base}", logger=logger)
        for _ in range(SOCKETS)
    ]
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(pings.everyone.wait(), 2 * INTERVAL + 2)
    for socket in sockets:
        await socket.close()


def test_sockets_that_open_together_are_not_all_pinged_at_once() -> None:
    with daphne_server(args=("--ping-interval", str(INTERVAL))) as (url, _proc):

        async def watch() -> Pings:
            pings = Pings()  # (its event belongs to this loop)
            await watch_lobby(url.removeprefix("http://"), pings)
            return pings

        pings = asyncio.run(watch())
    assert len(pings.first) == SOCKETS  # every socket is still pinged within its interval
    times = sorted(pings.first.values())
    # daphne alone pings all thirty in one check (within a few milliseconds of each other).
    assert times[-1] - times[0] > 0.5
    # Spread, they come at the checks (one a second), a fifth of them at each; a loaded machine
    # can run late checks together (21 of 30 within 0.1 s was seen with an interval of 3 s).
    same_instant = max(sum(1 for t in times if abs(t - u) < 0.1) for u in times)
    assert same_instant < SOCKETS * 4 // 5
