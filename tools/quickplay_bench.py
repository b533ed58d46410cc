"""Quick play measured: scripted players press «Jugar ya» against a running site.

    python manage.py quickplay_bench --players 40 --seconds 60 [--url URL] [--spread 150]

Each player is a user with a session written straight into the site's database (and, with
`--spread`, a rating drawn around 1500, so the matcher's windows matter). From then on everything
goes through the public protocol (docs/protocol.md): the player arrives at a random moment of the
`--seconds`, posts the «Jugar ya» form (`POST /jugar/`); if the answer is not already its table
it opens its queue page's socket (`/ws/jugador/?cola=1`) and waits to be told `matched`; then it
opens its table's socket and waits for the first `state` of the dealt game. Two figures per
player: from the press to that state (waiting for three more players included), and from the
press of the fourth player of its table to that state (the site's own reaction).

The cost of the queue per match is measured in this process, against the same database, with the
services the site runs (`cost_per_match`): queries and milliseconds of the three joins that wait
and of the fourth that seats and deals the table, and of the clock's sweep over a queue whose
players cannot sit down yet.
"""

from __future__ import annotations

import asyncio
import random
import secrets
import statistics
import time
import urllib.error
import urllib.parse
import urllib.request
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import orjson

from accounts.models import User
from accounts.sessions import session_cookie
from games.models import Table
from games.services import (
    cancel_game,
    expire_invitations,
    join_queue,
    leave_queue,
    reap_queue_sockets,
    sweep_queue,
)
from rankings.models import PlayerRating


@dataclass
class Player:
    user_id: int
    cookie: str
    arrives: float  # seconds after the start
    pressed: float = 0.0
    table: int | None = None
    dealt: float | None = None
    via_redirect: bool = False
    error: str = ""
    #: The types of the messages its queue page's socket got, in order.
    heard: list[str] = field(default_factory=list)


@dataclass
class Result:
    players: list[Player]
    wall: float
    tables: dict[int, list[Player]] = field(default_factory=dict)


def setup_players(n: int, mode: str, run: str, spread: float, rng: random.Random) -> list[User]:
    users = [
        User(username=f"qp-{run}-{i}", display_name=f"Cola {i}", password="!quick-play-bench")
        for i in range(n)
    ]
    User.objects.bulk_create(users)
    users = list(User.objects.filter(username__startswith=f"qp-{run}-").order_by("pk"))
    if spread:
        PlayerRating.objects.bulk_create(
            PlayerRating(user=u, mode=mode, rating=rng.gauss(1500, spread), games=40) for u in users
        )
    return users


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None


_opener = urllib.request.build_opener(_NoRedirect)


def press_jugar_ya(url: str, cookie: str, mode: str) -> str:
    """Post the «Jugar ya» form as a browser would; the page it sends the player to."""
    token = secrets.token_hex(16)  # a CSRF cookie of our own, sent back in the header
    request = urllib.request.Request(
        f"{url}/jugar/",
        data=urllib.parse.urlencode({"mode": mode}).encode(),
        headers={
            "Cookie": f"{cookie}; csrftoken={token}",
            "X-CSRFToken": token,
            "Origin": url,
            "Content-Type": "application/x-www-form-urlencoded",
        },
        method="POST",
    )
    try:
        with _opener.open(request, timeout=30) as response:
            return str(response.headers.get("Location", ""))
    except urllib.error.HTTPError as exc:
        if exc.code in (301, 302, 303):
            return str(exc.headers.get("Location", ""))
        raise


async def _socket(url: str, path: str, cookie: str) -> Any:
    from websockets.asyncio.client import connect

    ws_url = url.replace("http://", "ws://").replace("https://", "wss://") + path
    return await connect(ws_url, additional_headers={"Cookie": cookie, "Origin": url})


async def play_now(url: str, player: Player, mode: str, start: float, stay: float) -> None:
    """One scripted player: arrive, press «Jugar ya», wait for the table, see the deal."""
    await asyncio.sleep(max(0.0, start + player.arrives - time.monotonic()))
    player.pressed = time.monotonic()
    location = await asyncio.to_thread(press_jugar_ya, url, player.cookie, mode)
    if location.startswith("/mesas/"):
        player.table = int(location.strip("/").split("/")[1])
        player.via_redirect = True
    elif location != "/jugar/":
        player.error = f"sent to {location!r}"
        return
    else:
        ws = await _socket(url, "/ws/jugador/?cola=1", player.cookie)
        try:
            async with asyncio.timeout(stay):
                async for raw in ws:
                    message = orjson.loads(raw)
                    player.heard.append(message["type"])
                    if message["type"] == "matched":
                        player.table = message["table"]
                        break
                    if message["type"] == "left":
                        player.error = message.get("code", "left")
                        break
        except TimeoutError:
            return  # still waiting when the run ended
        finally:
            await ws.close()
    if player.table is None:
        return
    ws = await _socket(url, f"/ws/mesas/{player.table}/", player.cookie)
    try:
        async with asyncio.timeout(30):
            async for raw in ws:
                message = orjson.loads(raw)
                if message["type"] == "state" and message["status"] == Table.Status.PLAYING:
                    player.dealt = time.monotonic()
                    break
    finally:
        await ws.close()


async def run_players(url: str, players: list[Player], mode: str, stay: float) -> float:
    start = time.monotonic()
    await asyncio.gather(*(play_now(url, p, mode, start, stay) for p in players))
    return time.monotonic() - start


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def summary(values: list[float]) -> str:
    ms = [v * 1000 for v in values]
    if not ms:
        return "none"
    return (
        f"median {statistics.median(ms):.0f} ms  p95 {percentile(ms, 0.95):.0f} ms  "
        f"max {max(ms):.0f} ms  (n={len(ms)})"
    )


def report(result: Result) -> str:
    seated = [p for p in result.players if p.dealt is not None]
    by_table: dict[int, list[Player]] = defaultdict(list)
    for p in seated:
        assert p.table is not None
        by_table[p.table].append(p)
    press_to_deal = [p.dealt - p.pressed for p in seated if p.dealt]
    # Tables the fourth player's own «Jugar ya» seated (their request answered with the table),
    # and those the clock's sweep seated once the rating windows had widened enough.
    at_press = {t: four for t, four in by_table.items() if any(p.via_redirect for p in four)}
    by_sweep = {t: four for t, four in by_table.items() if t not in at_press}
    after_fourth = [
        p.dealt - max(q.pressed for q in four)
        for four in at_press.values()
        for p in four
        if p.dealt
    ]
    widened = [
        p.dealt - max(q.pressed for q in four)
        for four in by_sweep.values()
        for p in four
        if p.dealt
    ]
    waiting = [p for p in result.players if p.table is None and not p.error]
    errors = [p.error for p in result.players if p.error]
    lines = [
        f"{len(result.players)} players over {result.wall:.1f} s: {len(by_table)} tables dealt "
        f"({len(at_press)} at the fourth's press, {len(by_sweep)} by the sweep once windows "
        f"widened), {len(waiting)} still waiting at the end, {len(errors)} errors "
        f"{sorted(set(errors))}",
        f"press «Jugar ya» -> own table dealt:          {summary(press_to_deal)}",
        f"fourth's press -> each player sees the deal:  {summary(after_fourth)}",
        f"last press -> deal, tables of the sweep:      {summary(widened)}",
    ]
    return "\n".join(lines)


# --------------------------------------------------------------------------------------------
# The queue's cost per match, in this process.
# --------------------------------------------------------------------------------------------
def cost_per_match(matches: int, mode: str, run: str) -> str:
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    users = setup_players(4 * matches + 8, mode, f"{run}c", 0, random.Random(1))
    waits: list[tuple[int, float]] = []
    seats: list[tuple[int, float]] = []
    for i in range(matches):
        for j, user in enumerate(users[4 * i : 4 * i + 4]):
            with CaptureQueriesContext(connection) as queries:
                began = time.perf_counter()
                table = join_queue(user, mode)
                spent = time.perf_counter() - began
            (seats if j == 3 else waits).append((len(queries), spent))
            assert (table is not None) == (j == 3)
    # The sweep over players who cannot sit down yet (8 of them, 150 points apart).
    blocked = users[4 * matches :]
    for k, user in enumerate(blocked):
        PlayerRating.objects.update_or_create(
            user=user, mode=mode, defaults={"rating": 1000 + 150 * k, "games": 40}
        )
        join_queue(user, mode)
    sweeps: list[tuple[int, float]] = []
    for _ in range(20):
        with CaptureQueriesContext(connection) as queries:
            began = time.perf_counter()
            sweep_queue()
            sweeps.append((len(queries), time.perf_counter() - began))
    for user in blocked:
        leave_queue(user)
    # The clock's whole share when nobody waits (what `games.sweep_deadlines` adds every second).
    idle: list[tuple[int, float]] = []
    for _ in range(20):
        with CaptureQueriesContext(connection) as queries:
            began = time.perf_counter()
            reap_queue_sockets()
            sweep_queue()
            expire_invitations()
            idle.append((len(queries), time.perf_counter() - began))

    def line(what: str, rows: list[tuple[int, float]]) -> str:
        n = statistics.median(q for q, _ in rows)
        ms = statistics.median(t for _, t in rows) * 1000
        return f"{what}: median {n:.0f} queries, {ms:.1f} ms (n={len(rows)})"

    return "\n".join(
        [
            line("join that waits (1st-3rd)", waits),
            line("join that seats and deals (4th)", seats),
            line("sweep with 8 waiting who cannot match", sweeps),
            line("sweep, sockets and invitations with nobody waiting", idle),
        ]
    )


def teardown(run: str) -> int:
    cancelled = 0
    for table_id in Table.objects.filter(
        seats__user__username__startswith=f"qp-{run}", status=Table.Status.PLAYING
    ).values_list("pk", flat=True):
        cancelled += int(cancel_game(table_id, Table.CancelReason.SYSTEM, note="banco de pruebas"))
    return cancelled


def main(
    players: int,
    seconds: float,
    url: str,
    mode: str,
    spread: float,
    matches: int,
    seed: int,
    write: Callable[[str], None] = print,
) -> None:
    run = secrets.token_hex(3)
    rng = random.Random(seed)
    users = setup_players(players, mode, run, spread, rng)
    scripted = [Player(u.pk, session_cookie(u), rng.uniform(0, seconds)) for u in users]
    wall = asyncio.run(run_players(url.rstrip("/"), scripted, mode, stay=seconds + 45))
    write(f"quick play, {mode}, ratings spread ±{spread:.0f} (run {run})")
    write(report(Result(scripted, wall)))
    for p in scripted:
        if p.table is None and not p.error:
            leave_queue(User.objects.get(pk=p.user_id))
    write("cost per match (in process, same database):")
    write(cost_per_match(matches, mode, run))
    teardown(run)
