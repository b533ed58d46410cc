"""Outage drill: PostgreSQL and Redis restarted under live tables (docs/deploy.md, «Caídas»).

    python -m tools.outage --tables 50 [--down 5] [--json]          (docs/performance.md)

Everything runs on throwaway services of its own, never the machine's: a PostgreSQL cluster made
with the Debian binaries (`initdb` in a temporary folder, its own port) and a `redis-server` on
its own port; a daphne process and a Celery worker with beat against them; N tables of four bot
clients over real WebSockets (tools/loadtest.py's players, made outage-aware: they reconnect and
ask for the table again, as the table page does). Then, mid-game:

1. PostgreSQL with no traffic: clients paused, PostgreSQL restarted, then 200 page requests and
   200 socket actions, every failure counted (the target is none);
2. PostgreSQL stopped for `--down` seconds under play, then started;
3. Redis the same.

For each outage: every action answered (a state or an error, never silence on an open socket),
the recovery time (from the service being back until every table in play has moved on: that
includes the players' thinking, about a second) and the failures after it. At the end every
game's record is replayed: it must give the score stored with it, and no game may have been
cancelled.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

ROOT = Path(__file__).resolve().parent.parent
#: Game-level refusals a client may get by racing the others (not failures of the site).
GAME_CODES = {"stale", "game_over", "not_your_turn", "already_ready", "conflict"}
UNANSWERED_AFTER = 10.0  # seconds an open socket may take to answer an action
RESYNC_SECONDS = 2.0  # the table page's RESYNC_MS (static/js/table/socket.js)


def _pg_bin(name: str) -> str:
    found = sorted(Path("/usr/lib/postgresql").glob(f"*/bin/{name}"))
    if not found:
        raise SystemExit(f"no {name} in /usr/lib/postgresql/*/bin (Debian's postgresql)")
    return str(found[-1])


class DrillTimeout(Exception):
    """The drill ran past `--timeout`: everything it started is stopped all the same."""


def _kill_group(proc: subprocess.Popen[bytes], grace: float = 15.0) -> None:
    """SIGTERM to `proc`'s process group (it was started in a session of its own), then SIGKILL
    to what is left of it after `grace` seconds."""
    if proc.poll() is None:
        with suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGTERM)
        with suppress(subprocess.TimeoutExpired):
            proc.wait(grace)
    with suppress(ProcessLookupError):  # the group's other members, even when the leader is gone
        os.killpg(proc.pid, signal.SIGKILL)
    with suppress(subprocess.TimeoutExpired):
        proc.wait(5)


class Postgres:
    """A throwaway PostgreSQL cluster in `base`, on `port` (run as `postgres` when we are root).
    It writes without fsync: a drill loses nothing by that, and spares the shared disk."""

    #: `-c` options of the server besides its port, socket folder and address.
    server_options = "-c fsync=off"

    def __init__(self, base: Path, port: int) -> None:
        self.dir, self.port, self.log = base / "pg", port, base / "postgres.log"

    def _run(self, *cmd: str, timeout: float = 120) -> None:
        as_postgres = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []
        subprocess.run(
            [*as_postgres, *cmd], check=True, capture_output=True, cwd="/tmp", timeout=timeout
        )

    def create(self) -> None:
        self.dir.mkdir()
        if os.geteuid() == 0:
            os.chmod(self.dir.parent, 0o755)
            shutil.chown(self.dir, "postgres")
            self.log.touch()
            shutil.chown(self.log, "postgres")
        self._run(_pg_bin("initdb"), "-D", str(self.dir), "-U", "postgres", "--auth=trust")
        self.start()
        self._run(_pg_bin("createdb"), "-h", "127.0.0.1", "-p", str(self.port), "musweb")

    def start(self) -> None:
        options = (
            f"-p {self.port} -k {self.dir} -c listen_addresses=127.0.0.1 {self.server_options}"
        )
        self._run(
            _pg_bin("pg_ctl"),
            "-D",
            str(self.dir),
            "-l",
            str(self.log),
            "-w",
            "-t",
            "60",
            "-o",
            options,
            "start",
        )

    def stop(self) -> None:
        """A fast shutdown, as `pg_ctlcluster … restart` does: every connection is ended."""
        self._run(_pg_bin("pg_ctl"), "-D", str(self.dir), "-m", "fast", "-w", "-t", "60", "stop")

    def destroy(self) -> None:
        """Stopped whatever happened: fast, else immediate, else the postmaster killed."""
        if not (self.dir / "postmaster.pid").exists():
            return
        for mode in ("fast", "immediate"):
            with suppress(subprocess.SubprocessError, OSError):
                self._run(_pg_bin("pg_ctl"), "-D", str(self.dir), "-m", mode, "-w", "stop")
                return
        with suppress(OSError, ValueError):
            pid = int((self.dir / "postmaster.pid").read_text().split()[0])
            os.kill(pid, signal.SIGKILL)


class Redis:
    """A throwaway `redis-server` on `port`, persisting nothing."""

    def __init__(self, base: Path, port: int) -> None:
        self.port, self.log, self.dir = port, base / "redis.log", base
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        with self.log.open("a") as out:
            self.proc = subprocess.Popen(
                [
                    "redis-server",
                    "--port",
                    str(self.port),
                    "--bind",
                    "127.0.0.1",
                    "--save",
                    "",
                    "--appendonly",
                    "no",
                    "--dir",
                    str(self.dir),
                ],
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        _wait_port(self.port, self.proc, self.log)

    def stop(self) -> None:
        """`redis-cli shutdown nosave`, as the issue did."""
        subprocess.run(
            ["redis-cli", "-p", str(self.port), "shutdown", "nosave"],
            capture_output=True,
            timeout=30,
        )
        if self.proc is not None:
            with suppress(subprocess.TimeoutExpired):
                self.proc.wait(10)
            _kill_group(self.proc, 0)

    def destroy(self) -> None:
        if self.proc is not None:
            _kill_group(self.proc, 5)


def _wait_port(port: int, proc: subprocess.Popen[bytes], log: Path, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"exited early:\n{log.read_text()[-3000:]}")
        with suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=0.5):
            return
        time.sleep(0.1)
    raise RuntimeError(f"nothing listens on {port}:\n{log.read_text()[-3000:]}")


@contextmanager
def site(env: dict[str, str], port: int, base: Path) -> Iterator[list[subprocess.Popen[bytes]]]:
    """daphne (as scripts/run.sh starts it) and a Celery worker with beat, each in a process
    group of its own that is ended, whatever happens, on the way out."""
    procs: list[subprocess.Popen[bytes]] = []
    commands = {
        "daphne": [
            sys.executable,
            "-m",
            "musweb.server",
            "-b",
            "127.0.0.1",
            "-p",
            str(port),
            "musweb.asgi:application",
        ],
        "celery": [
            sys.executable,
            "-m",
            "musweb.worker",
            "live,heavy",  # one worker for both queues (docs/deploy.md)
            "--beat",
            "--pool=solo",
            "--loglevel=INFO",
            "--without-gossip",
            "--without-mingle",
            "--without-heartbeat",
            f"--schedule={base / 'celerybeat-schedule'}",
        ],
    }
    try:
        for name, cmd in commands.items():
            with (base / f"{name}.log").open("w") as out:
                procs.append(
                    subprocess.Popen(
                        cmd,
                        cwd=ROOT,
                        env=env,
                        stdout=out,
                        stderr=subprocess.STDOUT,
                        start_new_session=True,
                    )
                )
        yield procs
    finally:
        for proc in procs:
            with suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGTERM)
        for proc in procs:
            _kill_group(proc)


def wait_healthy(
    url: str, procs: list[subprocess.Popen[bytes]], base: Path, timeout: float
) -> float:
    """Until `/salud/` says everything is up: PostgreSQL, Redis, a worker answering and a sweep
    run by beat (the site can take half a minute to start on a busy machine). Seconds it took."""
    started = time.monotonic()
    last: Any = None
    while time.monotonic() - started < timeout:
        for proc, name in zip(procs, ("daphne", "celery"), strict=True):
            if proc.poll() is not None:
                log = (base / f"{name}.log").read_text()[-3000:]
                raise RuntimeError(f"{name} exited ({proc.returncode}):\n{log}")
        try:
            with urllib.request.urlopen(url + "/salud/", timeout=5) as response:
                last = orjson.loads(response.read())
                if last.get("ok"):
                    return time.monotonic() - started
        except urllib.error.HTTPError as exc:
            last = exc.code
        except OSError as exc:
            last = exc
        time.sleep(0.5)
    raise RuntimeError(f"the site was not healthy within {timeout:.0f} s: {last}")


# ------------------------------------------------------------------------------------------------
# The players.
# ------------------------------------------------------------------------------------------------
@dataclass
class Phase:
    """What happened from `started` (monotonic) on: one outage, or the steady play before."""

    name: str
    started: float
    back: float | None = None  # when the service was up again
    sent: int = 0
    answered: int = 0  # by a state that moved past it or by an error (`unavailable` included)
    unanswered: int = 0  # an open socket left an action without a state or an error
    cut: int = 0  # the socket closed (1013, or dropped) before an answer: the client resyncs
    errors: Counter[str] = field(default_factory=Counter)
    closes: Counter[str] = field(default_factory=Counter)
    connect_failures: int = 0
    failures_after: int = 0  # once recovered: unavailable, failed connections, closed sockets
    recovered: float | None = None  # seconds from `back` until every table had moved on
    pages: Counter[int] = field(default_factory=Counter)
    slowest: list[tuple[float, int]] = field(default_factory=list)  # (seconds, table), 3 slowest


@dataclass
class Drill:
    url: str
    phase: Phase
    phases: list[Phase] = field(default_factory=list)
    moved: dict[int, float] = field(default_factory=dict)  # table -> when its version last rose
    versions: dict[int, int] = field(default_factory=dict)  # table -> highest version seen
    over: set[int] = field(default_factory=set)
    joined: set[int] = field(default_factory=set)  # the players who got a state
    paused: bool = False
    stop: bool = False

    def begin(self, name: str) -> Phase:
        self.phase = Phase(name, time.monotonic())
        self.phases.append(self.phase)
        return self.phase

    def failure_after_recovery(self) -> None:
        if self.phase.recovered is not None:
            self.phase.failures_after += 1


async def player(
    drill: Drill, table_id: int, cookie: str, seed: int, think: float, delay: float
) -> None:
    """One player at one table, for the whole drill, from `delay` seconds on: reconnects
    whenever its socket closes, as the table page does; returns once the drill stops or the game
    is over."""
    from websockets.asyncio.client import connect

    rng = random.Random(seed)
    await asyncio.sleep(delay)
    ws_url = drill.url.replace("http://", "ws://") + f"/ws/mesas/{table_id}/"
    while not drill.stop and table_id not in drill.over:
        try:
            ws = await connect(
                ws_url,
                additional_headers={"Cookie": cookie, "Origin": drill.url},
                open_timeout=10,
                close_timeout=2,
                max_size=2**22,
            )
        except Exception:
            if drill.stop:
                return
            drill.phase.connect_failures += 1
            drill.failure_after_recovery()
            await asyncio.sleep(rng.uniform(1.0, 2.0))  # the page: 1-2 s
            continue
        code = await _play(drill, ws, table_id, rng, think, seed)
        if code is not None and not drill.stop:
            drill.phase.closes[str(code)] += 1
            drill.failure_after_recovery()
            await asyncio.sleep(rng.uniform(1.0, 2.0))  # the page: 1-2 s


async def _play(
    drill: Drill, ws: Any, table_id: int, rng: random.Random, think: float, who: int
) -> Any:
    """Play on one socket; the close code when it closed under us, None when we stopped."""
    from games.engine import bot

    pending: tuple[int, float, Phase] | None = None
    latest: dict[str, Any] = {}
    acting: asyncio.Task[None] | None = None
    resyncing: asyncio.Task[None] | None = None

    async def act_later() -> None:
        nonlocal pending
        await asyncio.sleep(rng.uniform(0.5, 1.5) * think)
        while drill.paused and not drill.stop:  # noqa: ASYNC110
            await asyncio.sleep(0.1)
        state = latest
        if drill.stop or pending is not None or not (state.get("you") or {}).get("legal"):
            return
        action = bot.decide(state, rng).to_dict()
        action.pop("seat", None)
        pending = (state["v"], time.monotonic(), drill.phase)
        drill.phase.sent += 1
        await ws.send(orjson.dumps({"type": "action", "v": state["v"], **action}).decode())

    async def resync() -> None:  # as the table page does after `unavailable`: until a state
        while True:
            await asyncio.sleep(RESYNC_SECONDS)
            await ws.send('{"type": "sync"}')

    def answered() -> None:
        nonlocal pending
        if pending is not None:
            pending[2].answered += 1
            pending = None

    try:
        while not drill.stop:
            try:
                raw = await asyncio.wait_for(ws.recv(), timeout=1.0)
            except TimeoutError:
                if pending is not None and time.monotonic() - pending[1] > UNANSWERED_AFTER:
                    pending[2].unanswered += 1
                    pending = None
                    await ws.send('{"type": "sync"}')
                continue
            message = orjson.loads(raw)
            if message.get("type") == "error":
                code = message.get("code", "?")
                drill.phase.errors[code] += 1
                if code not in GAME_CODES:
                    drill.failure_after_recovery()
                answered()
                if code == "unavailable" and (resyncing is None or resyncing.done()):
                    resyncing = asyncio.create_task(resync())
                continue
            if message.get("type") != "state":
                continue
            latest = message
            drill.joined.add(who)
            if resyncing is not None:
                resyncing.cancel()
            if message["v"] > drill.versions.get(table_id, -1):
                drill.versions[table_id] = message["v"]
                drill.moved[table_id] = time.monotonic()
            if pending is not None and message["v"] > pending[0]:
                answered()
            if message["phase"] in ("terminada", "cancelada"):
                drill.over.add(table_id)
                return None
            legal = (message.get("you") or {}).get("legal")
            if legal and pending is None and (acting is None or acting.done()):
                acting = asyncio.create_task(act_later())
    except Exception:
        if drill.stop:
            return None
        if pending is not None:
            pending[2].cut += 1
        return getattr(ws, "close_code", None) or "dropped"
    finally:
        for task in (acting, resyncing):
            if task is not None:
                task.cancel()
        with suppress(Exception):
            await ws.close()
    return None


# ------------------------------------------------------------------------------------------------
# The drill.
# ------------------------------------------------------------------------------------------------
def _get(url: str, cookie: str) -> int:
    request = urllib.request.Request(url, headers={"Cookie": cookie})
    try:
        with urllib.request.urlopen(request, timeout=15) as response:
            return int(response.status)
    except urllib.error.HTTPError as exc:
        return int(exc.code)
    except OSError:
        return 0


async def _until_all_in(drill: Drill, players: int, wait: float) -> float:
    """Until every player got a state on a socket: they are in. Seconds it took."""
    started = time.monotonic()
    while len(drill.joined) < players:
        if time.monotonic() - started > wait:
            raise RuntimeError(f"{players - len(drill.joined)} players never got a state")
        await asyncio.sleep(0.2)
    return time.monotonic() - started


async def _recovery(drill: Drill, phase: Phase, wait: float) -> None:
    """Until every table in play has moved on since the service came back (at most `wait` s)."""
    assert phase.back is not None
    deadline = time.monotonic() + wait
    while time.monotonic() < deadline:
        playing = [t for t in drill.versions if t not in drill.over]
        if all(drill.moved.get(t, 0) > phase.back for t in playing):
            times = sorted(((drill.moved[t] - phase.back, t) for t in playing), reverse=True)
            phase.recovered = times[0][0] if times else 0.0
            phase.slowest = [(round(s, 1), t) for s, t in times[:3]]
            return
        await asyncio.sleep(0.1)


async def _outage(
    drill: Drill, name: str, stop: Any, start: Any, down: float, steady: float
) -> Phase:
    phase = drill.begin(name)
    await asyncio.to_thread(stop)
    await asyncio.sleep(down)
    await asyncio.to_thread(start)
    phase.back = time.monotonic()
    await _recovery(drill, phase, 60)
    await asyncio.sleep(steady)
    return phase


async def _quiet_restart(
    drill: Drill, pg: Postgres, actions: int, pages: int, cookies: dict[int, str]
) -> Phase:
    """PostgreSQL restarted with no traffic; then `pages` page requests (the lobby and the table
    pages, signed in: each reads the session and tables) and `actions` socket actions."""
    drill.paused = True
    await asyncio.sleep(3)  # what was sent is answered
    phase = drill.begin("postgres-quiet")
    await asyncio.to_thread(pg.stop)
    await asyncio.to_thread(pg.start)
    phase.back = time.monotonic()
    phase.recovered = 0.0  # every failure from here on counts
    await asyncio.sleep(1)
    tables = sorted(cookies)
    for i in range(pages):
        table = tables[i % len(tables)]
        path = "/" if i % 2 else f"/mesas/{table}/"
        phase.pages[await asyncio.to_thread(_get, drill.url + path, cookies[table])] += 1
    drill.paused = False
    waited = time.monotonic()
    while phase.sent < actions and not drill.stop and time.monotonic() - waited < 120:  # noqa: ASYNC110
        await asyncio.sleep(0.2)
    await asyncio.sleep(3)  # their answers
    return phase


async def run(drill: Drill, clients: list[Any], pg: Postgres, rd: Redis, args: Any) -> float:
    """The players in, then each outage; the seconds the players took to get in."""
    # The players come in at --connect-rate sockets a second, as tools/loadtest.py's do: all at
    # once they are a connection storm (docs/performance.md), not what this drill measures.
    players = [
        asyncio.create_task(
            player(drill, c.table_id, c.cookie, i, args.think, i / args.connect_rate)
        )
        for i, c in enumerate(clients)
    ]
    cookies = {c.table_id: c.cookie for c in clients}
    try:
        joined = await _until_all_in(drill, len(clients), 180)
        drill.phase.recovered = 0.0  # every failure from here on counts
        await asyncio.sleep(args.warmup)
        await _quiet_restart(drill, pg, args.quiet_actions, args.quiet_pages, cookies)
        await _outage(drill, "postgres", pg.stop, pg.start, args.down, args.steady)
        await _outage(drill, "redis", rd.stop, rd.start, args.down, args.steady)
    finally:
        drill.stop = True
        _, late = await asyncio.wait(players, timeout=30)
        for task in late:
            task.cancel()
        await asyncio.gather(*players, return_exceptions=True)
    return joined


def check_games(run_name: str, seen: dict[int, int]) -> dict[str, Any]:
    """Every table of the drill: its record replays to the score and phase stored with it, its
    version is at least the highest a client was sent (nothing sent that was not stored), none
    was cancelled, and no turn was played by the clock (nobody charged for an outage)."""
    from games import engine
    from games.engine.record import result as summary
    from games.models import Table

    tables = list(Table.objects.filter(host__username__startswith=f"lt-{run_name}-"))
    corrupt, behind, clocked, by_clock = [], [], [], 0
    for t in tables:
        try:
            replayed = engine.replay(t.record)
        except Exception:
            corrupt.append(t.pk)
            continue
        result = summary(replayed)
        if result["scores"] != list(t.scores) or replayed.phase != t.phase:
            corrupt.append(t.pk)
        if t.version < seen.get(t.pk, 0):
            behind.append(t.pk)
        for h, hand in enumerate(t.record["hands"]):
            for a, action in enumerate(hand["actions"]):
                if action.get("by") == "clock":
                    by_clock += 1
                    clocked.append(f"table {t.pk} hand {h} action {a}: {action}")
    return {
        "tables": len(tables),
        "statuses": dict(Counter(t.status for t in tables)),
        "finished": sum(t.status == Table.Status.FINISHED for t in tables),
        "corrupt": corrupt,
        "behind": behind,
        "by_clock": by_clock,
        "clocked": clocked[:10],
        "moves": sum(t.version for t in tables),
    }


def verdict(drill: Drill, games: dict[str, Any], tables: int) -> list[str]:
    """What must always hold, each broken rule a line (none: the drill passed)."""
    broken = []
    for p in drill.phases:
        if p.unanswered:
            broken.append(f"{p.name}: {p.unanswered} actions never answered")
        if p.back is not None and p.recovered is None:
            broken.append(f"{p.name}: the tables did not all move on within 60 s")
        if p.failures_after:
            broken.append(f"{p.name}: {p.failures_after} failures after recovery")
    quiet = next((p for p in drill.phases if p.name == "postgres-quiet"), None)
    if quiet is not None and set(quiet.pages) - {200}:
        broken.append(f"postgres-quiet: pages {dict(quiet.pages)}")
    if games["tables"] != tables or games["corrupt"] or games["behind"]:
        broken.append(f"games lost or corrupt: {games}")
    if "cancelada" in games["statuses"]:
        broken.append(f"games cancelled: {games['statuses']}")
    if games["by_clock"]:
        broken.append(f"{games['by_clock']} turns played by the clock")
    return broken


def report(drill: Drill, games: dict[str, Any], tables: int, times: dict[str, float]) -> str:
    lines = [
        f"outage drill: {tables} tables of four bot clients over WebSockets "
        f"(site healthy after {times['healthy']:.1f} s, players in after {times['joined']:.1f} s)"
    ]
    for p in drill.phases:
        recovered = "never" if p.recovered is None else f"{p.recovered:.1f} s"
        if p.back is None:
            recovered = "-"
        lines.append(
            f"  {p.name:15} actions sent {p.sent:5}  answered {p.answered:5}  unanswered "
            f"{p.unanswered}  cut by a close {p.cut}  recovery {recovered}  "
            f"failures after recovery {p.failures_after}"
        )
        extra = []
        if p.errors:
            extra.append("errors " + ", ".join(f"{k} {v}" for k, v in p.errors.most_common()))
        if p.closes:
            extra.append("closes " + ", ".join(f"{k} {v}" for k, v in p.closes.most_common()))
        if p.connect_failures:
            extra.append(f"failed connections {p.connect_failures}")
        if p.slowest:
            extra.append("slowest " + ", ".join(f"table {t} {s} s" for s, t in p.slowest))
        if p.pages:
            extra.append("pages " + ", ".join(f"{k}: {v}" for k, v in sorted(p.pages.items())))
        if extra:
            lines.append("                  " + "; ".join(extra))
    lines.append(
        f"  games: {games['tables']} tables, {games['statuses']}, {games['moves']} moves stored, "
        f"{len(games['corrupt'])} whose record does not replay to its score, "
        f"{len(games['behind'])} behind what was sent, {games['by_clock']} turns played by the clock"
    )
    lines.append(
        f"  clocks moved on after sweep gaps of {', '.join(games['catch_ups']) or 'none'} s"
    )
    lines += [f"    played by the clock: {c}" for c in games["clocked"]]
    return "\n".join(lines)


def _raise(exc: type[BaseException]) -> Any:
    def handler(signum: int, frame: Any) -> None:
        raise exc(f"signal {signum}")

    return handler


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=50)
    parser.add_argument("--down", type=float, default=5, help="seconds each service is down")
    parser.add_argument("--warmup", type=float, default=15)
    parser.add_argument("--steady", type=float, default=10, help="seconds of play after each")
    parser.add_argument("--think", type=float, default=1.0)
    parser.add_argument("--connect-rate", type=float, default=25, help="new sockets a second")
    parser.add_argument("--quiet-actions", type=int, default=200)
    parser.add_argument("--quiet-pages", type=int, default=200)
    parser.add_argument("--port", type=int, default=8700, help="daphne's")
    parser.add_argument("--pg-port", type=int, default=5450)
    parser.add_argument("--redis-port", type=int, default=6450)
    parser.add_argument("--timeout", type=float, default=600, help="the whole drill, at most")
    parser.add_argument("--json", action="store_true", help="also print the figures as JSON")
    parser.add_argument("--keep", action="store_true", help="keep the services' logs")
    args = parser.parse_args(argv)

    base = Path(tempfile.mkdtemp(prefix="musweb-outage-"))
    pg, rd = Postgres(base, args.pg_port), Redis(base, args.redis_port)
    env = {
        **os.environ,
        "DATABASE_URL": f"postgres://postgres@127.0.0.1:{args.pg_port}/musweb",
        "REDIS_URL": f"redis://127.0.0.1:{args.redis_port}/0",
        "DJANGO_SETTINGS_MODULE": "musweb.settings",
        "DJANGO_DEBUG": "1",
        "PYTHONUNBUFFERED": "1",
        "LOG_LEVEL": "WARNING",
    }
    for key in ("CHANNELS_PREFIX", "CACHE_PREFIX", "CELERY_QUEUE"):
        env.pop(key, None)
    os.environ.update(env)
    # Whatever ends the drill (a failure, Ctrl-C, SIGTERM, the timeout), what it started is
    # stopped on the way out.
    signal.signal(signal.SIGTERM, _raise(SystemExit))
    signal.signal(signal.SIGALRM, _raise(DrillTimeout))
    signal.alarm(int(args.timeout))
    url = f"http://127.0.0.1:{args.port}"
    drill = Drill(url, Phase("play", time.monotonic()))
    drill.phases.append(drill.phase)
    try:
        pg.create()
        rd.start()
        subprocess.run(
            [sys.executable, "manage.py", "migrate", "-v0"],
            cwd=ROOT,
            env=env,
            check=True,
            timeout=300,
        )
        import django

        django.setup()
        from tools import loadtest

        with site(env, args.port, base) as procs:
            times = {"healthy": wait_healthy(url, procs, base, 300)}
            # The tables only now, and their players straight away: a seat waits for its player
            # MUS_RECONNECT_SECONDS from the deal, then the game is cancelled.
            clients = loadtest.setup_tables(args.tables, "4-reyes", "drill")
            drill.phase.started = time.monotonic()
            times["joined"] = asyncio.run(run(drill, clients, pg, rd, args))
        from django.db import connections

        connections.close_all()
        games = check_games("drill", drill.versions)
        # The sweeps after each outage that moved the clocks on (games.services.clockwork).
        games["catch_ups"] = re.findall(
            r"sweeps stopped for ([0-9.]+) s", (base / "celery.log").read_text()
        )
    finally:
        signal.alarm(0)
        rd.destroy()
        pg.destroy()
        if args.keep:
            shutil.rmtree(base / "pg", ignore_errors=True)
            print(f"logs in {base}")
        else:
            shutil.rmtree(base, ignore_errors=True)
    print(report(drill, games, args.tables, times))
    broken = verdict(drill, games, args.tables)
    for line in broken:
        print("FAILED:", line)
    if args.json:
        print(
            json.dumps(
                {
                    "phases": [_figures(p) for p in drill.phases],
                    "games": games,
                    "times": times,
                    "broken": broken,
                }
            )
        )
    return 1 if broken else 0


def _figures(p: Phase) -> dict[str, Any]:
    return {
        "name": p.name,
        "sent": p.sent,
        "answered": p.answered,
        "unanswered": p.unanswered,
        "cut": p.cut,
        "recovered": p.recovered,
        "failures_after": p.failures_after,
        "errors": dict(p.errors),
        "closes": dict(p.closes),
        "connect_failures": p.connect_failures,
        "pages": {str(k): v for k, v in p.pages.items()},
    }


if __name__ == "__main__":
    sys.exit(main())
