"""Scripted tournament players for the tests that run the real stack: each holds its own session
and, like a person with the tournament page open, polls the page's live part (HTMX's request:
`HX-Request`, the table it knows of as `mesa`); when the answer sends it to a new table
(`HX-Redirect`) it joins that table's WebSocket and plays it to its end with the engine's bot,
then goes back to polling, until the page stops polling (the tournament is over)."""

from __future__ import annotations

import asyncio
import json
import random
import re
import time
import urllib.request
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from games.engine import bot

POLL_SECONDS = 0.5


@dataclass
class Player:
    base: str  # the site, http://127.0.0.1:port
    tournament_id: int
    username: str
    cookie: str
    #: Which of its tables (1 for its first…) the player never comes to.
    absent_from: set[int] = field(default_factory=set)
    tables: list[int] = field(default_factory=list)
    actions: int = 0
    errors: Counter[str] = field(default_factory=Counter)


def _poll(player: Player, known: int) -> tuple[int, str, str]:
    """The tournament page's polled part: (status, HX-Redirect or "", body)."""
    url = f"{player.base}/torneos/{player.tournament_id}/?mesa={known}"
    request = urllib.request.Request(url, headers={"Cookie": player.cookie, "HX-Request": "true"})
    with urllib.request.urlopen(request, timeout=30) as response:
        return response.status, response.headers.get("HX-Redirect", ""), response.read().decode()


async def play_tournament(player: Player, deadline: float, seed: int) -> None:
    rng = random.Random(seed)
    known = 0
    while time.monotonic() < deadline:
        _status, redirect, body = await asyncio.to_thread(_poll, player, known)
        if redirect:
            known = int(re.search(r"/mesas/(\d+)/", redirect).group(1))
            player.tables.append(known)
            if len(player.tables) not in player.absent_from:
                await play_table(player, known, deadline, rng)
            continue
        if "hx-trigger" not in body:
            return  # the page no longer polls: the tournament is over
        await asyncio.sleep(POLL_SECONDS)
    raise AssertionError(f"{player.username}: the tournament did not end in time")


async def play_table(player: Player, table_id: int, deadline: float, rng: random.Random) -> None:
    """Play one table through the public protocol (docs/protocol.md) until its game is over."""
    from websockets.asyncio.client import connect

    ws_url = player.base.replace("http://", "ws://") + f"/ws/mesas/{table_id}/"
    headers = {"Cookie": player.cookie, "Origin": player.base}
    async with connect(ws_url, additional_headers=headers, open_timeout=30) as ws:
        pending: int | None = None
        async with asyncio.timeout(max(1.0, deadline - time.monotonic())):
            async for raw in ws:
                message: dict[str, Any] = json.loads(raw)
                if message["type"] == "error":
                    player.errors[message["code"]] += 1
                    pending = None
                    continue
                if message["type"] != "state":
                    continue
                if message["phase"] in ("terminada", "cancelada"):
                    return
                if pending is not None and message["v"] <= pending:
                    continue  # older than the state our action answered: it is on its way
                pending = None
                if not (message.get("you") or {}).get("legal"):
                    continue
                action = bot.decide(message, rng).to_dict()
                action.pop("seat", None)
                pending = message["v"]
                player.actions += 1
                await ws.send(json.dumps({"type": "action", "v": message["v"], **action}))


async def play_all(players: list[Player], seconds: float) -> None:
    deadline = time.monotonic() + seconds
    await asyncio.gather(*(play_tournament(p, deadline, seed) for seed, p in enumerate(players)))
