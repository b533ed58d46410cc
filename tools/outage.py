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
import shutil
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


def _pg_bin(name: str) -> str:
    found = sorted(Path("/usr/lib/postgresql").glob(f"*/bin/{name}"))
    if not found:
        raise SystemExit(f"no {name} in /usr/lib/postgresql/*/bin (Debian's postgresql)")
    return str(found[-1])


class Postgres:
    """A throwaway PostgreSQL cluster in `base`, on `port` (run as `postgres` when we are root)."""

    def __init__(self, base: Path, port: int) -> None:
        self.dir, self.port, self.log = base / "pg", port, base / "postgres.log"

    def _run(self, *cmd: str) -> None:
        as_postgres = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []
        subprocess.run([*as_postgres, *cmd], check=True, capture_output=True, cwd="/tmp")

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
        options = f"-p {self.port} -k {self.dir} -c listen_addresses=127.0.0.1 -c fsync=off"
        self._run(
            _pg_bin("pg_ctl"),
            "-D",
            str(self.dir),
            "-l",
            str(self.log),
            "-w",
            "-o",
            options,
            "start",
        )

    def stop(self) -> None:
        with suppress(subprocess.CalledProcessError):
            self._run(_pg_bin("pg_ctl"), "-D", str(self.dir), "-m", "fast", "-w", "stop")


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
            )
        _wait_port(self.port, self.proc, self.log)

    def stop(self) -> None:
        """`redis-cli shutdown nosave`, as the issue did."""
        subprocess.run(
            ["redis-cli", "-p", str(self.port), "shutdown", "nosave"], capture_output=True
        )
        if self.proc is not None:
            with suppress(subprocess.TimeoutExpired):
                self.proc.wait(10)
            if self.proc.poll() is None:
                self.proc.kill()


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
    """daphne (as scripts/run.sh starts it) and a Celery worker with beat."""
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
            "celery",
            "-A",
            "musweb",
            "worker",
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
                    subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT)
                )
        _wait_port(port, procs[0], base / "daphne.log")
        yield procs
    finally:
        for proc in procs:
            proc.terminate()
        for proc in procs:
            try:
                proc.wait(15)
            except subprocess.TimeoutExpired:
                proc.kill()


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
    answered: int = 0
    unanswered: int = 0  # an open socket left an action without a state or an error
    errors: Counter[str] = field(default_factory=Counter)
    closes: Counter[str] = field(default_factory=Counter)
    connect_failures: int = 0
    failures_after: int = 0  # once recovered: unavailable, failed connections, closed sockets
    recovered: float | None = None  # seconds from `back` until every table had moved on
    pages: Counter[int] = field(default_factory=Counter)


@dataclass
class Drill:
    url: str
    phase: Phase
    phases: list[Phase] = field(default_factory=list)
    moved: dict[int, float] = field(default_factory=dict)  # table -> when its version last rose
    versions: dict[int, int] = field(default_factory=dict)
    over: set[int] = field(default_factory=set)
    paused: bool = False
    stop: bool = False

    def begin(self, name: str) -> Phase:
        self.phase = Phase(name, time.monotonic())
        self.phases.append(self.phase)
        return self.phase

    def failure_after_recovery(self) -> None:
        if self.phase.recovered is not None:
            self.phase.failures_after += 1


async def player(drill: Drill, table_id: int, cookie: str, seed: int, think: float) -> None:
    """One player at one table, for the whole drill: reconnects whenever its socket closes."""
    from websockets.asyncio.client import connect

    rng = random.Random(seed)
    ws_url = drill.url.replace("http://", "ws://") + f"/ws/mesas/{table_id}/"
    while not drill.stop and table_id not in drill.over:
        try:
            ws = await connect(
                ws_url,
                additional_headers={"Cookie": cookie, "Origin": drill.url},
                open_timeout=10,
                max_size=2**22,
            )
        except Exception:
            drill.phase.connect_failures += 1
            drill.failure_after_recovery()
            await asyncio.sleep(rng.uniform(0.5, 1.0))
            continue
        code = await _play(drill, ws, table_id, rng, think)
        if code is not None:
            drill.phase.closes[str(code)] += 1
            drill.failure_after_recovery()
            await asyncio.sleep(rng.uniform(0.5, 1.0))


async def _play(drill: Drill, ws: Any, table_id: int, rng: random.Random, think: float) -> Any:
    """Play on one socket; the close code when it closed under us, None when we stopped."""
    from games.engine import bot

    pending: tuple[int, float, Phase] | None = None
    latest: dict[str, Any] = {}
    acting: asyncio.Task[None] | None = None

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
                if code == "unavailable":  # as the table page does: ask again in a moment
                    asyncio.get_running_loop().call_later(
                        1.0, lambda: asyncio.ensure_future(_sync(ws))
                    )
                continue
            if message.get("type") != "state":
                continue
            latest = message
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
        return getattr(ws, "close_code", None) or "dropped"
    finally:
        if acting is not None:
            acting.cancel()
        with suppress(Exception):
            await ws.close()
    return None


async def _sync(ws: Any) -> None:
    with suppress(Exception):
        await ws.send('{"type": "sync"}')


# ------------------------------------------------------------------------------------------------
# The drill.
# ------------------------------------------------------------------------------------------------
def _get(url: str) -> int:
    try:
        with urllib.request.urlopen(url, timeout=15) as response:
            return int(response.status)
    except urllib.error.HTTPError as exc:
        return int(exc.code)
    except OSError:
        return 0


async def _recovery(drill: Drill, phase: Phase, wait: float) -> None:
    """Until every table in play has moved on since the service came back (at most `wait` s)."""
    assert phase.back is not None
    deadline = time.monotonic() + wait
    while time.monotonic() < deadline:
        playing = [t for t in drill.versions if t not in drill.over]
        if all(drill.moved.get(t, 0) > phase.back for t in playing):
            phase.recovered = max([drill.moved[t] - phase.back for t in playing], default=0.0)
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


async def _quiet_restart(drill: Drill, pg: Postgres, actions: int) -> Phase:
    """PostgreSQL restarted with no traffic; then 200 pages and `actions` socket actions."""
    drill.paused = True
    await asyncio.sleep(3)  # what was sent is answered
    phase = drill.begin("postgres-quiet")
    await asyncio.to_thread(pg.stop)
    await asyncio.to_thread(pg.start)
    phase.back = time.monotonic()
    phase.recovered = 0.0  # every failure from here on counts
    await asyncio.sleep(1)
    for i in range(200):
        phase.pages[await asyncio.to_thread(_get, drill.url + ("/" if i % 2 else "/reglas/"))] += 1
    drill.paused = False
    while phase.sent < actions and not drill.stop:  # noqa: ASYNC110
        await asyncio.sleep(0.2)
    await asyncio.sleep(3)  # their answers
    return phase


async def run(drill: Drill, clients: list[Any], pg: Postgres, rd: Redis, args: Any) -> None:
    players = [
        asyncio.create_task(player(drill, c.table_id, c.cookie, i, args.think))
        for i, c in enumerate(clients)
    ]
    await asyncio.sleep(args.warmup)
    await _quiet_restart(drill, pg, args.quiet_actions)
    await _outage(drill, "postgres", pg.stop, pg.start, args.down, args.steady)
    await _outage(drill, "redis", rd.stop, rd.start, args.down, args.steady)
    drill.stop = True
    await asyncio.gather(*players, return_exceptions=True)


def check_games(run_name: str) -> dict[str, Any]:
    """Every table of the drill: its record replays to its stored score; none cancelled."""
    from games import engine
    from games.models import Table

    tables = Table.objects.filter(host__username__startswith=f"lt-{run_name}-")
    statuses = Counter(tables.values_list("status", flat=True))
    corrupt = [
        t.pk
        for t in tables
        if t.record is None or engine.replay_result(t.record)["scores"] != list(t.scores)
    ]
    return {"tables": tables.count(), "statuses": dict(statuses), "corrupt": corrupt}


def report(drill: Drill, games: dict[str, Any], tables: int) -> str:
    lines = [f"outage drill: {tables} tables of four bot clients over WebSockets"]
    for p in drill.phases:
        recovered = "never" if p.recovered is None else f"{p.recovered:.1f} s"
        lines.append(
            f"  {p.name:15} actions {p.sent:5}  answered {p.answered:5}  unanswered "
            f"{p.unanswered}  recovery {recovered}  failures after recovery {p.failures_after}"
        )
        extra = []
        if p.errors:
            extra.append("errors " + ", ".join(f"{k} {v}" for k, v in p.errors.most_common()))
        if p.closes:
            extra.append("closes " + ", ".join(f"{k} {v}" for k, v in p.closes.most_common()))
        if p.connect_failures:
            extra.append(f"failed connections {p.connect_failures}")
        if p.pages:
            extra.append("pages " + ", ".join(f"{k}: {v}" for k, v in sorted(p.pages.items())))
        if extra:
            lines.append("                  " + "; ".join(extra))
    lines.append(
        f"  games: {games['tables']} tables, {games['statuses']}, "
        f"{len(games['corrupt'])} whose record does not replay to its score"
    )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=50)
    parser.add_argument("--down", type=float, default=5, help="seconds each service is down")
    parser.add_argument("--warmup", type=float, default=15)
    parser.add_argument("--steady", type=float, default=10, help="seconds of play after each")
    parser.add_argument("--think", type=float, default=1.0)
    parser.add_argument("--quiet-actions", type=int, default=200)
    parser.add_argument("--port", type=int, default=8700, help="daphne's")
    parser.add_argument("--pg-port", type=int, default=55432)
    parser.add_argument("--redis-port", type=int, default=6390)
    parser.add_argument("--json", action="store_true", help="also print the figures as JSON")
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
    try:
        pg.create()
        rd.start()
        subprocess.run(
            [sys.executable, "manage.py", "migrate", "-v0"], cwd=ROOT, env=env, check=True
        )
        import django

        django.setup()
        from tools import loadtest

        clients = loadtest.setup_tables(args.tables, "4-reyes", "drill")
        drill = Drill(f"http://127.0.0.1:{args.port}", Phase("play", time.monotonic()))
        drill.phases.append(drill.phase)
        with site(env, args.port, base):
            asyncio.run(run(drill, clients, pg, rd, args))
        from django.db import connections

        connections.close_all()
        games = check_games("drill")
    finally:
        rd.stop()
        pg.stop()
        shutil.rmtree(base, ignore_errors=True)
    print(report(drill, games, args.tables))
    if args.json:
        print(json.dumps({"phases": [_figures(p) for p in drill.phases], "games": games}))
    return 0


def _figures(p: Phase) -> dict[str, Any]:
    return {
        "name": p.name,
        "sent": p.sent,
        "answered": p.answered,
        "unanswered": p.unanswered,
        "recovered": p.recovered,
        "failures_after": p.failures_after,
        "errors": dict(p.errors),
        "closes": dict(p.closes),
        "connect_failures": p.connect_failures,
        "pages": {str(k): v for k, v in p.pages.items()},
    }


if __name__ == "__main__":
    sys.exit(main())
