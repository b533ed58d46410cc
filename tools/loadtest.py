"""Load test: N tables of four bot clients playing over real WebSockets against a running site.

    python manage.py loadtest --tables N --seconds S [--url URL ...]   (docs/performance.md)

Setup (users, sessions, started tables) is written straight into the site's database, because
signing up thousands of players through the password hasher would measure the hasher; so is the
next table of four players whose game ended (`Successors`). From then on everything goes through
the public protocol (docs/protocol.md): each client holds its own WebSocket with its own session
cookie, reads its `state` messages and answers with `action` messages chosen by the engine's bot
from its own view, after a human-like pause.
"""

from __future__ import annotations

import asyncio
import gc
import os
import random
import secrets
import statistics
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import orjson
from asgiref.sync import sync_to_async
from django.db import connection

from accounts.models import User
from accounts.sessions import session_cookie
from games import services
from games.engine import bot
from games.models import Seat, Table

from . import logins as login_clients


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
    open_sockets: int = 0  # table sockets open right now (a storm test kills when all are)
    finished_tables: set[int] = field(default_factory=set)
    tables_started: int = 0  # by `Successors`, for the players of finished games
    # With `reconnect` (a connection storm, docs/performance.md): when each player's socket
    # dropped and each table stopped, until the socket is open again / the table plays again.
    down_since: dict[int, float] = field(default_factory=dict)  # user id -> first drop
    table_down_since: dict[int, float] = field(default_factory=dict)  # table id -> first drop
    reconnected: list[float] = field(default_factory=list)  # seconds from drop to open again
    resumed: list[float] = field(default_factory=list)  # seconds from drop to a move accepted
    retries: int = 0  # handshakes refused while a dropped socket was coming back
    # Lobby viewers (`--lobby-viewers`): sockets open, messages and bytes they got; or, with
    # `--lobby-poll`, the fragment asked for every 2 s as the lobby did before it was pushed.
    viewers_open: int = 0
    viewer_failures: Counter[str] = field(default_factory=Counter)
    viewer_messages: int = 0
    viewer_bytes: int = 0
    polls: list[float] = field(default_factory=list)  # seconds each poll took
    # People logging in meanwhile (`--logins-per-second`), from the steady state on.
    logins: login_clients.Logins = field(default_factory=login_clients.Logins)


@dataclass
class Client:
    user_id: int
    username: str
    table_id: int
    cookie: str
    url: str
    # The four players of the client's table, host first: when their game ends the host starts
    # the next one for the same four (see `Successors`).
    four: tuple[int, ...]
    mode: str
    public: bool = False


def setup_tables(n: int, mode: str, run: str, public: bool = False) -> list[Client]:
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
        ids = tuple(u.pk for u in four)
        table_id = start_table(ids, mode, public)
        for user in four:
            clients.append(
                Client(
                    user.pk, user.username, table_id, session_cookie(user), "", ids, mode, public
                )
            )
    return clients


def start_table(four: tuple[int, ...], mode: str, public: bool = False) -> int:
    """A new started table for these four players (the first is the host); its id. Private
    unless `public` (then the lobby lists it: `--public-tables`); never rated."""
    host = User.objects.get(pk=four[0])
    table = Table.objects.create(mode=mode, host=host, private=not public, rated=False)
    table_id: int = table.pk
    Seat.objects.bulk_create([Seat(table=table, seat=i, user_id=u) for i, u in enumerate(four)])
    # Set up for its players, like a tournament's table: their seats wait until they connect.
    services.start_game(services.SYSTEM, table_id, by_hand=False)
    return table_id


def teardown_tables(run: str) -> int:
    cancelled = 0
    ids = Table.objects.filter(
        host__username__startswith=f"lt-{run}-", status=Table.Status.PLAYING
    ).values_list("pk", flat=True)
    for table_id in ids:
        cancelled += int(
            services.cancel_game(table_id, Table.CancelReason.SYSTEM, note="prueba de carga")
        )
    return cancelled


class Successors:
    """The table each finished game's four players move on to, so N tables stay in play.

    Without it the load fell during a run (at 500 tables a third of the games ended within two
    minutes). Like the first tables, the new one is written by the load test itself (setup, not
    what is measured); then its players reconnect and play through the public protocol.
    """

    def __init__(self, stats: Stats) -> None:
        self.stats = stats
        self.next: dict[int, asyncio.Future[int]] = {}

    async def after(self, table_id: int, client: Client, stop_at: float) -> int | None:
        future = self.next.get(table_id)
        if future is None:
            future = self.next[table_id] = asyncio.get_running_loop().create_future()
        if client.user_id == client.four[0] and not future.done():
            new_id = await sync_to_async(start_table)(client.four, client.mode, client.public)
            self.stats.tables_started += 1
            future.set_result(new_id)
        try:
            return await asyncio.wait_for(
                asyncio.shield(future), timeout=max(0.0, stop_at - time.monotonic())
            )
        except TimeoutError:
            return None


async def play(
    client: Client,
    stats: Stats,
    stop_at: float,
    think: float,
    seed: int,
    successors: Successors,
    reconnect: bool = False,
) -> None:
    """One player: play the client's table, then, game after game, the table that follows it.

    With ``reconnect`` a socket that drops or is refused comes back to its table with the
    browser's backoff (static/js/table/socket.js: 0.5 s doubling, up to 10 s, ±25 %)."""
    rng = random.Random(seed)
    table_id: int | None = client.table_id
    tries = 0
    while table_id is not None and time.monotonic() < stop_at:
        outcome = await play_table(client, table_id, stats, stop_at, think, rng)
        if outcome == "over":
            tries = 0
            table_id = await successors.after(table_id, client, stop_at)
        elif reconnect and outcome in ("dropped", "refused"):
            tries = 0 if outcome == "dropped" else tries + 1
            await asyncio.sleep(min(10.0, 0.5 * 2**tries) * rng.uniform(0.75, 1.25))
        else:
            return


async def play_table(
    client: Client,
    table_id: int,
    stats: Stats,
    stop_at: float,
    think: float,
    rng: random.Random,
) -> str:
    """Play one table until its game is over ("over"), the run ends ("stopped"), the socket
    drops ("dropped") or its handshake fails ("refused")."""
    from websockets.asyncio.client import connect

    ws_url = client.url.replace("http://", "ws://").replace("https://", "wss://")
    ws_url = f"{ws_url}/ws/mesas/{table_id}/"
    try:
        ws = await connect(
            ws_url,
            additional_headers={"Cookie": client.cookie, "Origin": client.url},
            open_timeout=60,
            max_size=2**22,
        )
    except Exception as exc:
        if client.user_id in stats.down_since:
            stats.retries += 1  # the server is still coming back (a storm): try again
        else:
            stats.connect_failures += 1
            stats.connect_kinds[type(exc).__name__] += 1
        return "refused"
    stats.open_sockets += 1
    dropped_at = stats.down_since.pop(client.user_id, None)
    if dropped_at is not None:
        stats.reconnected.append(time.monotonic() - dropped_at)
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
        await ws.send(orjson.dumps({"type": "action", "v": state["v"], **action}).decode())

    try:
        # One deadline for the whole table, not a timer per message (the client shares the
        # machine with the site: its own CPU counts against the result).
        async with asyncio.timeout_at(max(stop_at, asyncio.get_running_loop().time() + 0.1)):
            async for raw in ws:
                message = orjson.loads(raw)
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
                    down = stats.table_down_since.pop(table_id, None)
                    if down is not None:
                        stats.resumed.append(time.monotonic() - down)
                if message["phase"] in ("terminada", "cancelada"):
                    stats.finished_tables.add(table_id)
                    return "over"
                you = message.get("you") or {}
                if you.get("legal") and pending is None and (acting is None or acting.done()):
                    acting = asyncio.create_task(act_later())
            # The server closed the socket (a restart closes it cleanly): that is a drop too.
            raise ConnectionError("closed by the server")
    except TimeoutError:
        return "stopped"  # the run is over
    except Exception:
        stats.disconnects += 1
        now = time.monotonic()
        stats.down_since.setdefault(client.user_id, now)
        stats.table_down_since.setdefault(table_id, now)
        return "dropped"
    finally:
        stats.open_sockets -= 1
        if acting is not None:
            acting.cancel()
        await ws.close()


def server_processes(database: str | None = None) -> dict[str, list[int]]:
    """The site's processes by kind. Other sites on the machine (another checkout's daphne and
    Celery, its tests' PostgreSQL backends) are left out: daphne and Celery count only when
    they run from this directory, PostgreSQL backends only when they serve ``database``."""
    here = os.getcwd()
    groups: dict[str, list[int]] = {
        "daphne": [],
        "nginx": [],
        "celery": [],
        "postgres": [],
        "redis": [],
    }
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                cmd = f.read().replace(b"\0", b" ").decode(errors="replace")
            cwd = os.readlink(f"/proc/{pid}/cwd")
        except OSError:
            continue
        if "loadtest" in cmd:
            continue
        if "daphne" in cmd or "musweb.server" in cmd:  # (the site runs daphne as musweb.server)
            if cwd == here:
                groups["daphne"].append(int(pid))
        elif cmd.startswith("nginx:"):  # master and workers (`make run-prod`, docs/deploy.md)
            groups["nginx"].append(int(pid))
        elif "celery" in cmd:
            if cwd == here:
                groups["celery"].append(int(pid))
        elif cmd.startswith("postgres") or "/postgres " in cmd:
            # a backend reads "postgres: [CLUSTER:] USER DATABASE HOST(PORT) STATE"
            words = cmd.split()
            host = next((i for i, w in enumerate(words) if "(" in w or w == "[local]"), None)
            if database is None or host is None or words[host - 1] == database:
                groups["postgres"].append(int(pid))
        elif "redis-server" in cmd:
            groups["redis"].append(int(pid))
    return groups


def cpu_seconds(pids: list[int]) -> dict[int, float]:
    """CPU seconds (user + system, all threads) each process has used so far."""
    ticks = os.sysconf("SC_CLK_TCK")
    used: dict[int, float] = {}
    for pid in pids:
        try:
            with open(f"/proc/{pid}/stat") as f:
                parts = f.read().rsplit(")", 1)[1].split()
            used[pid] = (int(parts[11]) + int(parts[12])) / ticks
        except OSError:
            continue
    return used


def cpu_during(
    before: dict[str, dict[int, float]], groups: dict[str, list[int]]
) -> dict[str, float]:
    """CPU seconds per group of `groups` (`server_processes` now) since `before` (`cpu_seconds`
    per group then), counting the processes started meanwhile too: PostgreSQL starts a backend
    for each new database connection."""
    return {
        group: sum(
            seconds - before.get(group, {}).get(pid, 0.0)
            for pid, seconds in cpu_seconds(pids).items()
        )
        for group, pids in groups.items()
    }


def machine_busy() -> tuple[float, float]:
    """(busy, total) CPU seconds of the whole machine so far, all cores (/proc/stat)."""
    ticks = os.sysconf("SC_CLK_TCK")
    with open("/proc/stat") as f:
        fields = [int(x) for x in f.readline().split()[1:]]
    idle = fields[3] + fields[4]  # idle + iowait
    total = sum(fields[:8])  # guest time is already inside user
    return (total - idle) / ticks, total / ticks


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


LOBBY_POLL_SECONDS = 2.0  # what every open lobby did before it was pushed (HTMX `every 2s`)


async def watch_lobby(base: str, stats: Stats, stop_at: float, poll: bool, seed: int) -> None:
    """A visitor looking at the lobby: its socket open, counting what is pushed; or (`poll`)
    asking for the lobby's fragment every 2 s over one kept-alive HTTP connection."""
    rng = random.Random(seed)
    await asyncio.sleep(rng.uniform(0, LOBBY_POLL_SECONDS))
    host = base.split("://", 1)[1].split("/", 1)[0]
    if poll:
        await _poll_lobby(host, stats, stop_at, rng)
        return
    from websockets.asyncio.client import connect

    url = f"ws://{host}/ws/sala/?lang=es"
    try:
        ws = await connect(url, origin=f"http://{host}", open_timeout=60, max_size=None)  # type: ignore[arg-type]
    except Exception as exc:
        stats.viewer_failures[type(exc).__name__] += 1
        return
    stats.viewers_open += 1
    try:
        while (left := stop_at - time.monotonic()) > 0:
            try:
                message = await asyncio.wait_for(ws.recv(), timeout=left)
            except TimeoutError:
                break
            stats.viewer_messages += 1
            stats.viewer_bytes += len(message)
    except Exception as exc:
        stats.viewer_failures[type(exc).__name__] += 1
    finally:
        await ws.close()


async def _poll_lobby(host: str, stats: Stats, stop_at: float, rng: random.Random) -> None:
    hostname, _, port = host.partition(":")
    try:
        reader, writer = await asyncio.open_connection(hostname, int(port or 80))
    except OSError as exc:
        stats.viewer_failures[type(exc).__name__] += 1
        return
    stats.viewers_open += 1
    request = (
        f"GET / HTTP/1.1\r\nHost: {host}\r\nHX-Request: true\r\nAccept-Language: es\r\n\r\n"
    ).encode()
    try:
        while time.monotonic() < stop_at:
            asked = time.monotonic()
            writer.write(request)
            head = await reader.readuntil(b"\r\n\r\n")
            lengths = [
                int(line.split(b":", 1)[1])
                for line in head.split(b"\r\n")
                if line.lower().startswith(b"content-length:")
            ]
            if not head.startswith(b"HTTP/1.1 200") or not lengths:
                status = head.split(b"\r\n", 1)[0].decode(errors="replace")
                stats.viewer_failures[f"poll answered {status!r}"] += 1
                return
            length = lengths[0]
            body = await reader.readexactly(length)
            stats.polls.append(time.monotonic() - asked)
            stats.viewer_bytes += len(body)
            await asyncio.sleep(max(0.0, LOBBY_POLL_SECONDS - (time.monotonic() - asked)))
    except Exception as exc:
        stats.viewer_failures[type(exc).__name__] += 1
    finally:
        writer.close()


async def run_clients(
    clients: list[Client],
    seconds: float,
    think: float,
    connect_per_second: int,
    reconnect: bool = False,
    viewers: int = 0,
    poll: bool = False,
    urls: list[str] | None = None,
    stats: Stats | None = None,
    logins_per_second: float = 0.0,
    login_accounts: list[str] | None = None,
) -> tuple[Stats, float]:
    """Play ``clients`` for ``seconds`` (after the connection ramp); ``stats``, if given, is
    filled while they play (a caller may watch it). With ``logins_per_second``, people log in
    to ``login_accounts`` at that rate through the steady state (`tools.logins`)."""
    if stats is None:
        stats = Stats()
    start = time.monotonic()
    cpu0 = time.process_time()
    ramp = (len(clients) + viewers) / connect_per_second
    stats.steady_from = start + ramp + 2
    stop_at = start + seconds + ramp
    tasks = []
    sites = urls or [client.url for client in clients[:4]] or ["http://127.0.0.1:8000"]
    for i in range(viewers):
        base = sites[i % len(sites)]
        tasks.append(asyncio.create_task(watch_lobby(base, stats, stop_at, poll, 10_000 + i)))
        if i % 20 == 19:
            await asyncio.sleep(20 / connect_per_second)
    logging_in = None
    if logins_per_second > 0 and login_accounts:
        logging_in = asyncio.create_task(
            login_clients.keep_logging_in(
                sites, login_accounts, logins_per_second, stats.steady_from, stop_at, stats.logins
            )
        )
    successors = Successors(stats)
    for i, client in enumerate(clients):
        tasks.append(
            asyncio.create_task(play(client, stats, stop_at, think, i, successors, reconnect))
        )
        if i % 20 == 19:
            await asyncio.sleep(20 / connect_per_second)
    await asyncio.gather(*tasks, return_exceptions=True)
    stats.client_cpu = time.process_time() - cpu0
    stats.ended = time.monotonic()
    if logging_in is not None:
        # The tables' figures end with the run; log-ins still waiting get their answer (or
        # `tools.logins.TIMEOUT`) before the report.
        await logging_in
    return stats, stats.ended - start


def report(
    stats: Stats,
    wall: float,
    n_tables: int,
    urls: list[str],
    cpu: dict[str, float],
    rss: dict[str, float],
    machine: tuple[float, float] | None = None,
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
        *_storm_lines(stats),
        *_viewer_lines(stats, wall),
        *_login_lines(stats),
        f"games finished during the run: {len(stats.finished_tables)}  "
        f"(their players moved on to {stats.tables_started} new tables)",
        "server CPU (% of one core over the run) and memory (RSS MB at the end):",
    ]
    for group in ("daphne", "nginx", "celery", "postgres", "redis"):
        if group not in cpu or (group == "nginx" and not rss[group]):
            continue  # no nginx in front (`make run`)
        lines.append(f"  {group:9s} cpu {100 * cpu[group] / wall:6.1f}%   rss {rss[group]:8.1f} MB")
    lines.append(f"load client (this process) cpu {100 * stats.client_cpu / wall:6.1f}%")
    if machine is not None:
        busy, total = machine
        cores = os.cpu_count() or 1
        lines.append(
            f"whole machine: {100 * busy / max(total, 0.001):.1f}% busy of {cores} cores "
            "(everything above, the kernel and anything else running)"
        )
    return "\n".join(lines)


def _storm_lines(stats: Stats) -> list[str]:
    """What a run with `reconnect` saw of its dropped sockets (nothing if none dropped)."""
    if not stats.disconnects:
        return []
    return [
        f"dropped sockets back: {len(stats.reconnected)} of {stats.disconnects} drops "
        f"({len(stats.down_since)} never came back; {stats.retries} handshakes refused "
        "on the way, retried)",
        "  seconds from the drop to the socket open again: " + _seconds(stats.reconnected),
        f"tables playing again: {len(stats.resumed)} "
        f"({len(stats.table_down_since)} never moved again); seconds from the first drop at "
        "the table to a move accepted there: " + _seconds(stats.resumed),
    ]


def _viewer_lines(stats: Stats, wall: float) -> list[str]:
    """What the lobby's viewers saw (nothing if there were none)."""
    if not stats.viewers_open and not stats.viewer_failures:
        return []
    line = (
        f"lobby viewers: {stats.viewers_open} open, failures {dict(stats.viewer_failures)}; "
        f"received {stats.viewer_bytes / 1e6:.1f} MB ({stats.viewer_bytes / 1e3 / wall:.0f} KB/s)"
    )
    if stats.polls:
        ms = [x * 1000 for x in stats.polls]
        return [line, f"  lobby polls: {len(ms)} ({len(ms) / wall:.0f}/s), ms " + _latencies(ms)]
    return [line, f"  lobby messages pushed: {stats.viewer_messages}"]


def _login_lines(stats: Stats) -> list[str]:
    """What the people logging in saw (nothing if nobody did)."""
    logins = stats.logins
    if not logins.started:
        return []
    seconds = max(0.001, stats.ended - stats.steady_from)
    return [
        f"log-ins: {logins.started} started in the steady state "
        f"({logins.started / seconds:.1f}/s), "
        f"{len(logins.latencies)} signed in, failures {dict(logins.failures)}",
        "  log-in post → redirect ms: " + _latencies([x * 1000 for x in logins.latencies]),
    ]


def _seconds(values: list[float]) -> str:
    return (
        f"p50 {percentile(values, 0.5):.2f}  p95 {percentile(values, 0.95):.2f}  "
        f"max {max(values, default=float('nan')):.2f}"
    )


def _latencies(ms: list[float]) -> str:
    return (
        f"p50 {percentile(ms, 0.5):.1f}  p95 {percentile(ms, 0.95):.1f}  "
        f"p99 {percentile(ms, 0.99):.1f}  max {max(ms, default=float('nan')):.1f}  "
        f"mean {statistics.fmean(ms) if ms else float('nan'):.1f}"
    )


#: The tables each run fills (400 players, their tables and seats) and churns (their sockets).
FILLED = ("accounts_user", "games_table", "games_seat", "games_connection")


def analyse_without_autovacuum() -> str:
    """Vacuumed, with fresh planner statistics, the tables a run fills and churns, if
    PostgreSQL's autovacuum is off (as on the CI machines: `conf.d/90-ci.conf`). Without the
    statistics, after a few runs the planner still believed in the first run's few hundred
    players and joined every seat's user by reading the whole players' table; without the
    vacuum, every socket's row (`games_connection`, a few live rows) left a dead one behind, and
    after ~30 runs each count of a seat's sockets went through 34,000 of them: the site got
    slower with every run (docs/performance.md). A production PostgreSQL does both itself.
    (Outside a transaction: VACUUM refuses to run in one.)"""
    with connection.cursor() as cursor:
        cursor.execute("SHOW autovacuum")
        if cursor.fetchone()[0] == "on":
            return ""
        for table in FILLED:
            cursor.execute(f"VACUUM ANALYZE {connection.ops.quote_name(table)}")
    return "autovacuum is off in this PostgreSQL: vacuumed and analysed " + ", ".join(FILLED)


def main(
    tables: int,
    seconds: float,
    urls: list[str],
    mode: str,
    think: float,
    connect_rate: int,
    keep: bool,
    write: Callable[[str], None] = print,
    reconnect: bool = False,
    viewers: int = 0,
    poll: bool = False,
    public: bool = False,
    logins_per_second: float = 0.0,
) -> None:
    """The whole run: set up, play, measure the servers, report, and cancel the games."""
    run = secrets.token_hex(3)
    started = time.monotonic()
    clients = setup_tables(tables, mode, run, public)
    # Enough accounts that no one logs in twice within a few seconds.
    accounts = login_clients.setup_accounts(run, 50) if logins_per_second > 0 else []
    for i, client in enumerate(clients):
        # Players of one table are spread over the servers: the table must work across them.
        client.url = urls[i % len(urls)].rstrip("/")
    write(
        f"setup: {tables} tables, {len(clients)} players in "
        f"{time.monotonic() - started:.1f} s (run {run})"
    )
    analysed = analyse_without_autovacuum()
    if analysed:
        write(analysed)
    # The client holds thousands of sockets and states: its cyclic collector paused it for up
    # to 80 ms, and every reply waiting meanwhile was counted as the server's latency.
    gc.freeze()
    gc.set_threshold(10_000, 20, 100)
    database = str(connection.settings_dict["NAME"])
    cpu0 = {g: cpu_seconds(p) for g, p in server_processes(database).items()}
    busy0, total0 = machine_busy()
    stats, wall = asyncio.run(
        run_clients(
            clients,
            seconds,
            think,
            connect_rate,
            reconnect,
            viewers,
            poll,
            urls,
            logins_per_second=logins_per_second,
            login_accounts=accounts,
        )
    )
    busy1, total1 = machine_busy()
    groups = server_processes(database)
    cpu = cpu_during(cpu0, groups)
    rss = {g: rss_mb(p) for g, p in groups.items()}
    machine = (busy1 - busy0, total1 - total0)
    write(report(stats, wall, tables, urls, cpu, rss, machine))
    if not keep:
        teardown_tables(run)
