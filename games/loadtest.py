"""Load test: N tables of four bot clients playing over real WebSockets against a running site.

Setup (users, sessions, started tables) is written straight into the site's database, because
signing up thousands of players through the password hasher would measure the hasher. From then
on everything goes through the public protocol (docs/protocol.md): each client holds its own
WebSocket with its own session cookie, reads its `state` messages and answers with `action`
messages chosen by the engine's bot from its own view, after a human-like pause.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import statistics
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from accounts.models import User
from accounts.sessions import session_cookie

from . import services
from .engine import bot
from .models import Seat, Table


@dataclass
class Stats:
    latencies: list[float] = field(default_factory=list)
    # Latencies of actions sent once every client had connected (plus 2 s): the steady state,
    # without the connection ramp-up, which is a different load (handshakes, sessions).
    steady_from: float = 0.0
    steady: list[float] = field(default_factory=list)
    ended: float = 0.0
    client_cpu: float = 0.0
    sent: int = 0
    states: int = 0
    errors: Counter[str] = field(default_factory=Counter)
    connect_failures: int = 0
    connect_kinds: Counter[str] = field(default_factory=Counter)  # failures by exception name
    disconnects: int = 0
    finished_tables: set[int] = field(default_factory=set)


@dataclass
class Client:
    user_id: int
    username: str
    table_id: int
    cookie: str
    url: str


def setup_tables(n: int, mode: str, run: str) -> list[Client]:
    """Create 4n players with sessions and n started tables; return the clients."""
    users = [
        User(username=f"lt-{run}-{i}", display_name=f"Carga {i}", password="!load-test")
        for i in range(4 * n)
    ]
    User.objects.bulk_create(users, batch_size=1000)
    users = list(User.objects.filter(username__startswith=f"lt-{run}-").order_by("pk"))
    clients: list[Client] = []
    for t in range(n):
        four = users[4 * t : 4 * t + 4]
        table = Table.objects.create(mode=mode, host=four[0], private=True, rated=False)
        Seat.objects.bulk_create([Seat(table=table, seat=i, user=u) for i, u in enumerate(four)])
        services.start_game(four[0], table.pk)
        for user in four:
            clients.append(Client(user.pk, user.username, table.pk, session_cookie(user), ""))
    return clients


def teardown_tables(run: str) -> int:
    cancelled = 0
    ids = Table.objects.filter(
        host__username__startswith=f"lt-{run}-", status=Table.Status.PLAYING
    ).values_list("pk", flat=True)
    for table_id in ids:
        cancelled += int(services.cancel_game(table_id, reason="prueba de carga"))
    return cancelled


async def play(client: Client, stats: Stats, stop_at: float, think: float, seed: int) -> None:
    from websockets.asyncio.client import connect

    rng = random.Random(seed)
    ws_url = client.url.replace("http://", "ws://").replace("https://", "wss://")
    ws_url = f"{ws_url}/ws/mesas/{client.table_id}/"
    try:
        ws = await connect(
            ws_url,
            additional_headers={"Cookie": client.cookie, "Origin": client.url},
            open_timeout=60,
            max_size=2**22,
        )
    except Exception as exc:
        stats.connect_failures += 1
        stats.connect_kinds[type(exc).__name__] += 1
        return
    pending: tuple[int, float] | None = None  # (v sent against, monotonic time sent)
    acting: asyncio.Task[None] | None = None
    latest: dict[str, Any] = {}

    async def act_later() -> None:
        nonlocal pending
        await asyncio.sleep(rng.uniform(0.5, 1.5) * think)
        # Decide on the newest state: the table may have moved on while we were thinking.
        state = latest
        if time.monotonic() >= stop_at or not (state.get("you") or {}).get("legal"):
            return
        action = bot.decide(state, rng).to_dict()
        action.pop("seat", None)
        pending = (state["v"], time.monotonic())
        stats.sent += 1
        await ws.send(json.dumps({"type": "action", "v": state["v"], **action}))

    try:
        while time.monotonic() < stop_at:
            try:
                raw = await asyncio.wait_for(
                    ws.recv(), timeout=max(0.1, stop_at - time.monotonic())
                )
            except TimeoutError:
                break
            message = json.loads(raw)
            kind = message.get("type")
            if kind == "error":
                stats.errors[message.get("code", "?")] += 1
                pending = None
                continue
            if kind != "state":
                continue
            stats.states += 1
            latest = message
            if pending is not None and message["v"] > pending[0]:
                stats.latencies.append(time.monotonic() - pending[1])
                if pending[1] >= stats.steady_from:
                    stats.steady.append(stats.latencies[-1])
                pending = None
            if message["phase"] in ("terminada", "cancelada"):
                stats.finished_tables.add(client.table_id)
                continue
            you = message.get("you") or {}
            if you.get("legal") and pending is None and (acting is None or acting.done()):
                acting = asyncio.create_task(act_later())
    except Exception:
        stats.disconnects += 1
    finally:
        if acting is not None:
            acting.cancel()
        await ws.close()


def server_processes() -> dict[str, list[int]]:
    groups: dict[str, list[int]] = {"daphne": [], "celery": [], "postgres": [], "redis": []}
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                cmd = f.read().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if "loadtest" in cmd:
            continue
        if "daphne" in cmd:
            groups["daphne"].append(int(pid))
        elif "celery" in cmd:
            groups["celery"].append(int(pid))
        elif cmd.startswith("postgres") or "/postgres " in cmd:
            groups["postgres"].append(int(pid))
        elif "redis-server" in cmd:
            groups["redis"].append(int(pid))
    return groups


def cpu_seconds(pids: list[int]) -> float:
    ticks = os.sysconf("SC_CLK_TCK")
    total = 0
    for pid in pids:
        try:
            with open(f"/proc/{pid}/stat") as f:
                parts = f.read().rsplit(")", 1)[1].split()
            total += int(parts[11]) + int(parts[12])
        except OSError:
            continue
    return total / ticks


def rss_mb(pids: list[int]) -> float:
    total = 0
    for pid in pids:
        try:
            with open(f"/proc/{pid}/status") as f:
                for line in f:
                    if line.startswith("VmRSS:"):
                        total += int(line.split()[1])
        except OSError:
            continue
    return total / 1024


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    k = min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))
    return ordered[k]


async def run_clients(
    clients: list[Client], seconds: float, think: float, connect_per_second: int
) -> tuple[Stats, float]:
    stats = Stats()
    start = time.monotonic()
    cpu0 = time.process_time()
    ramp = len(clients) / connect_per_second
    stats.steady_from = start + ramp + 2
    stop_at = start + seconds + ramp
    tasks = []
    for i, client in enumerate(clients):
        tasks.append(asyncio.create_task(play(client, stats, stop_at, think, i)))
        if i % 20 == 19:
            await asyncio.sleep(20 / connect_per_second)
    await asyncio.gather(*tasks, return_exceptions=True)
    stats.client_cpu = time.process_time() - cpu0
    stats.ended = time.monotonic()
    return stats, stats.ended - start


def report(
    stats: Stats,
    wall: float,
    n_tables: int,
    urls: list[str],
    cpu: dict[str, float],
    rss: dict[str, float],
) -> str:
    lat_ms = [x * 1000 for x in stats.latencies]
    steady_ms = [x * 1000 for x in stats.steady]
    steady_seconds = max(0.001, stats.ended - stats.steady_from)
    lines = [
        f"tables: {n_tables}  clients: {4 * n_tables}  servers: {', '.join(urls)}",
        f"wall time: {wall:.1f} s (including connection ramp-up)",
        f"actions sent: {stats.sent}  accepted (latency samples): {len(lat_ms)}  "
        f"actions/s: {len(lat_ms) / wall:.1f}",
        f"state messages received: {stats.states}  ({stats.states / wall:.0f}/s)",
        "latency send→state ms, whole run: " + _latencies(lat_ms),
        f"steady state (after the ramp-up, {steady_seconds:.0f} s): "
        f"{len(steady_ms) / steady_seconds:.1f} actions/s, latency ms " + _latencies(steady_ms),
        f"errors: {sum(stats.errors.values())} {dict(stats.errors)}  "
        f"connect failures: {stats.connect_failures} {dict(stats.connect_kinds)}  "
        f"dropped: {stats.disconnects}",
        f"games finished during the run: {len(stats.finished_tables)}",
        "server CPU (% of one core over the run) and memory (RSS MB at the end):",
    ]
    for group in ("daphne", "celery", "postgres", "redis"):
        lines.append(f"  {group:9s} cpu {100 * cpu[group] / wall:6.1f}%   rss {rss[group]:8.1f} MB")
    lines.append(f"load client (this process) cpu {100 * stats.client_cpu / wall:6.1f}%")
    return "\n".join(lines)


def _latencies(ms: list[float]) -> str:
    return (
        f"p50 {percentile(ms, 0.5):.1f}  p95 {percentile(ms, 0.95):.1f}  "
        f"p99 {percentile(ms, 0.99):.1f}  max {max(ms, default=float('nan')):.1f}  "
        f"mean {statistics.fmean(ms) if ms else float('nan'):.1f}"
    )
