"""Site and floor side by side in one sitting (docs/performance.md, «Against the stack's floor»).

    python -m tools.bench_matrix --daphne 1,2 --via direct,nginx --tables 240 --seconds 40 \
        [--capacity] [--floor ../shared/bench/ceiling]

Per configuration (daphne processes × direct or through nginx): the production topology
(scripts/run_prod.sh, DEBUG off) on ports and a bench database of its own (`synchronous_commit =
off`, as the documented runs) with one secret key shared with the load client (whose sessions
the site must accept: a mismatch is close code 4401); /salud/ awaited; `--tables` tables played
by tools/loadtest.py's clients in this process; with `--capacity`, the most tables within p99
150 ms (up from `--start` by `--step`, one bisection); everything stopped before the next.
With `--floor PATH` (an outside bench, never part of the repository) the floor's daphne
processes beside, the same way (behind a nginx of the site's configuration for "nginx"); without
it, or when PATH has no wsload.py, the floor is skipped and the table says so.

Over the steady state (sockets open, + 2 s; wsload: 3 s): moves/s, p50/p99 from a move sent to
the next state, daphne CPU per move (user + system over the window ÷ its moves, as wsload counts
the floor's), PostgreSQL per move as its bench backends' CPU (/proc) and `active_time`
(pg_stat_database, waits included; pg_stat_statements is not preloaded on these machines).
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import math
import os
import secrets
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

import psycopg
from psycopg import sql

from musweb.env import database_from_url

ROOT = Path(__file__).resolve().parent.parent
P99_LIMIT_MS = 150.0
#: The issue's targets (#34): daphne CPU per move within 1.2× the floor's; ≥ 0.7 of the floor's
#: tables within the p99 limit (through nginx, one daphne).
CPU_TARGET, CAPACITY_TARGET = 1.2, 0.7


@dataclass
class Figures:
    tables: int
    moves_per_s: float
    p50_ms: float
    p99_ms: float
    daphne_ms: float  # daphne CPU per move
    pg_cpu_ms: float = math.nan  # the bench database's backends' CPU per move
    pg_active_ms: float = math.nan  # their pg_stat_database.active_time per move
    errors: int = 0  # error messages from the site (e.g. «stale»: two acts raced)
    failures: int = 0  # sockets that did not open

    def line(self) -> str:
        text = f"{self.tables} tables: {self.moves_per_s:.1f} moves/s, p50 {self.p50_ms:.1f} "
        text += f"p99 {self.p99_ms:.1f} ms, daphne {self.daphne_ms:.2f} ms/move"
        if math.isnan(self.pg_cpu_ms):
            return text  # (the floor's)
        text += f", PostgreSQL {self.pg_cpu_ms:.2f} CPU · {self.pg_active_ms:.2f} active ms/move"
        return text + f", {self.errors} errors, {self.failures} sockets refused"


Capacity = tuple[int, int | None]  # (most tables found within the limit, fewest beyond it)


@dataclass
class Row:
    daphne: int
    via: str
    site: Figures | None = None
    floor: Figures | None = None
    capacity: Capacity | None = None
    floor_capacity: Capacity | None = None


@dataclass
class Sitting:
    args: argparse.Namespace
    env: dict[str, str]
    commands: list[str] = field(default_factory=list)

    def ran(self, argv: list[str], cwd: Path = ROOT) -> None:
        """Note a command as one would type it from the project's root (ROOT)."""
        text = shlex.join(argv).replace(f"{ROOT}/", "" if cwd == ROOT else "$ROOT/")
        self.commands.append(text if cwd == ROOT else f"(cd {cwd} && {text})")


def say(text: str) -> None:
    print(f"bench-matrix: {time.strftime('%H:%M:%S')} {text}", file=sys.stderr, flush=True)


# The search and the table.
def find_capacity(p99_at: Callable[[int], float], start: int, step: int, ceiling: int) -> Capacity:
    """Up from `start` by `step` while the p99 is within the limit (down by `step` if `start`
    is not), then one bisection between the last within and the first beyond. (good, None): the
    ceiling reached within; (0, bad): not even the fewest tried."""

    def within(tables: int) -> bool:
        return p99_at(tables) <= P99_LIMIT_MS  # (nan, no moves at all: not within)

    tables = min(start, ceiling)
    good, bad = (tables, None) if within(tables) else (0, tables)
    while bad is None and tables + step <= ceiling:
        tables += step
        good, bad = (tables, None) if within(tables) else (good, tables)
    while not good and tables - step > 0:
        tables -= step
        good, bad = (tables, bad) if within(tables) else (0, tables)
    if good and bad is not None and bad - good > 1:
        middle = (good + bad) // 2
        good, bad = (middle, bad) if within(middle) else (good, middle)
    return good, bad


def capacity_text(found: Capacity | None) -> str:
    if found is None:
        return "–"
    good, bad = found
    return f"≥ {good}" if bad is None else f"{good} (< {bad})" if good else f"< {bad}"


def _f(value: float, digits: int = 1) -> str:
    return "–" if math.isnan(value) else f"{value:.{digits}f}"


def table(rows: list[Row], no_floor: str) -> str:
    """The Markdown table for docs/performance.md."""
    lines = [
        "| configuration | tables | moves/s | p50 ms | p99 ms | daphne CPU ms/move "
        "| PostgreSQL ms/move: CPU · active | floor: moves/s · p50 · p99 · CPU ms/move "
        f"| daphne CPU ÷ floor's (≤ {CPU_TARGET}) | tables within p99 {P99_LIMIT_MS:.0f} ms: "
        f"site · floor | ÷ floor's (≥ {CAPACITY_TARGET}) |",
        "| --- |" + " ---: |" * 10,
    ]
    for row in rows:
        s, f = row.site, row.floor
        if s is None:
            continue
        floor, cpu, capacity = no_floor, "–", "–"
        if f is not None:
            floor = f"{_f(f.moves_per_s)} · {_f(f.p50_ms)} · {_f(f.p99_ms, 0)} · "
            floor += _f(f.daphne_ms, 2)
            cpu = _f(s.daphne_ms / f.daphne_ms, 2) if f.daphne_ms else "–"
        if row.capacity and row.floor_capacity and row.floor_capacity[0]:
            capacity = _f(row.capacity[0] / row.floor_capacity[0], 2)
        lines.append(
            f"| {row.daphne} daphne, {row.via} | {s.tables} | {_f(s.moves_per_s)} "
            f"| {_f(s.p50_ms)} | {_f(s.p99_ms, 0)} | {_f(s.daphne_ms, 2)} "
            f"| {_f(s.pg_cpu_ms, 2)} · {_f(s.pg_active_ms, 2)} | {floor} | {cpu} "
            f"| {capacity_text(row.capacity)} · {capacity_text(row.floor_capacity)} "
            f"| {capacity} |"
        )
    return "\n".join(lines)


# Processes: each in a session of its own, stopped with its group.
def _free_ports(first: int, count: int) -> list[int]:
    """first, first + 1, …: refused if one is taken (another sitting, another site)."""
    for port in (ports := list(range(first, first + count))):
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                raise SystemExit(f"bench-matrix: port {port} already in use")
    return ports


def _wait(url: str, proc: subprocess.Popen[bytes], log: Path, timeout: float, ok: int) -> None:
    """Until `url` answers with status `ok` (0: any status at all)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            text = log.read_text(errors="replace")[-3000:]
            raise SystemExit(f"bench-matrix: {proc.args!r} exited:\n{text}")
        try:
            with urllib.request.urlopen(url, timeout=5) as answer:
                status = answer.status
        except urllib.error.HTTPError as error:
            status = error.code
        except OSError:
            status = -1
        if status == ok or (not ok and status > 0):
            return
        time.sleep(0.3)
    raise SystemExit(f"bench-matrix: {url} did not answer {ok or ''} in {timeout:.0f} s")


def _stop(proc: subprocess.Popen[bytes], grace: float = 60) -> None:
    """SIGTERM to its group (run_prod.py then stops its children in order, and they die with
    it anyway), SIGKILL to what is left after `grace` seconds."""
    for sig, wait in ((signal.SIGTERM, grace), (signal.SIGKILL, 5.0)):
        with suppress(ProcessLookupError):
            os.killpg(proc.pid, sig)
        with suppress(subprocess.TimeoutExpired):
            proc.wait(wait)


def _spawn(
    sitting: Sitting, argv: list[str], log: Path, cwd: Path = ROOT
) -> subprocess.Popen[bytes]:
    sitting.ran(argv, cwd)
    env = dict(sitting.env)
    if cwd != ROOT:
        env.pop("DJANGO_SETTINGS_MODULE")  # (the floor picks its own only when none is set)
    with log.open("ab") as out:
        return subprocess.Popen(
            argv, cwd=cwd, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True
        )


@dataclass
class Site:
    port: int  # nginx's
    daphne: dict[int, int]  # port -> pid

    def urls(self, via: str) -> list[str]:
        ports = [self.port] if via == "nginx" else list(self.daphne)
        return [f"http://127.0.0.1:{p}" for p in ports]


@contextmanager
def topology(sitting: Sitting, daphne: int) -> Iterator[Site]:
    """The site's production topology (scripts/run_prod.sh) until the block ends: `daphne`
    live processes (the ones measured) and the pages' one after them, idle here."""
    port, *ports, _pages = _free_ports(sitting.args.port, daphne + 2)
    run_dir = sitting.args.run_dir / f"site-{daphne}"
    run_dir.mkdir(parents=True, exist_ok=True)
    argv = ["env", f"PORT={port}", f"DAPHNE_PROCESSES={daphne}", f"DAPHNE_PORT={ports[0]}"]
    argv += ["PAGES_PROCESSES=1", "CELERY_CONCURRENCY=1", f"RUN_DIR={run_dir}"]
    argv += ["bash", "scripts/run_prod.sh"]
    log = run_dir / "run_prod.log"
    proc = _spawn(sitting, argv, log)
    try:
        for p in [*ports, port]:
            _wait(f"http://127.0.0.1:{p}/salud/", proc, log, 240, 200)
        yield Site(port, {p: int((run_dir / f"daphne-{p}.pid").read_text()) for p in ports})
    finally:
        _stop(proc)


@contextmanager
def floor_servers(sitting: Sitting, daphne: int, via: str) -> Iterator[tuple[list[str], list[int]]]:
    """The floor's daphne processes (behind a nginx when `via` is nginx): (wsload's URLs, pids)."""
    port, *ports = _free_ports(sitting.args.port + 10, daphne + 1)
    run_dir = sitting.args.run_dir / f"floor-{daphne}-{via}"
    (run_dir / "tmp").mkdir(parents=True, exist_ok=True)
    daphne_bin = str(Path(sys.executable).with_name("daphne"))
    procs: list[subprocess.Popen[bytes]] = []
    try:
        for p in ports:
            argv = [daphne_bin, "-b", "127.0.0.1", "-p", str(p), "ceiling_asgi:application"]
            log = run_dir / f"daphne-{p}.log"
            procs.append(_spawn(sitting, argv, log, sitting.args.floor))
            _wait(f"http://127.0.0.1:{p}/", procs[-1], log, 60, 0)
        urls = [f"ws://127.0.0.1:{p}" for p in ports]
        if via == "nginx":
            procs.append(_floor_nginx(sitting, run_dir, port, ports))
            _wait(f"http://127.0.0.1:{port}/ws/", procs[-1], run_dir / "nginx.log", 15, 0)
            urls = [f"ws://127.0.0.1:{port}"]
        yield urls, [p.pid for p in procs[:daphne]]
    finally:
        for proc in reversed(procs):
            _stop(proc, 15)


def _floor_nginx(
    sitting: Sitting, run_dir: Path, port: int, ports: list[int]
) -> subprocess.Popen[bytes]:
    """The site's nginx configuration (deploy/nginx, by run_prod.py nginx-site) in front of the
    floor: its /ws/ location passes the floor's /ws/TABLE/SEAT/ on as it is."""
    site = [sys.executable, "scripts/run_prod.py", "nginx-site", "--listen", str(port)]
    site += [f"--upstream=127.0.0.1:{p}" for p in ports]
    site += ["--static-root", str(run_dir), "--access-log", str(run_dir / "access.log")]
    sitting.ran(site)
    text = subprocess.run(site, cwd=ROOT, capture_output=True, text=True, check=True).stdout
    (run_dir / "barajamos.conf").write_text(text)
    template = (ROOT / "deploy" / "nginx" / "nginx.conf").read_text()
    (conf := run_dir / "nginx.conf").write_text(template.replace("@RUN_DIR@", str(run_dir)))
    nginx = shutil.which("nginx") or shutil.which("nginx", path="/usr/sbin:/sbin") or "nginx"
    argv = [nginx, "-e", str(run_dir / "error.log"), "-c", str(conf)]
    return _spawn(sitting, argv, run_dir / "nginx.log")


# One run of each.
def pg_active_ms(dsn: str, database: str) -> float:
    """pg_stat_database.active_time of `database` so far (ms; a backend reports it within a
    second of going idle, so both ends of a window lag alike)."""
    query = "SELECT active_time FROM pg_stat_database WHERE datname = %s"
    with psycopg.connect(dsn, autocommit=True) as conn:
        row = conn.execute(query, (database,)).fetchone()
    return float(row[0]) if row and row[0] is not None else math.nan


def site_run(sitting: Sitting, site: Site, via: str, tables: int, seconds: float) -> Figures:
    """One load test (tools/loadtest.py's set-up and clients, in this process): its figures."""
    from django.db import connection

    from tools import loadtest  # (it needs django.setup(), which `main` does first)

    args = sitting.args
    database = str(connection.settings_dict["NAME"])
    urls = site.urls(via)
    run = secrets.token_hex(3)
    clients = loadtest.setup_tables(tables, args.mode, run)
    for i, client in enumerate(clients):
        client.url = urls[i % len(urls)]
    loadtest.analyse_without_autovacuum()
    argv = [".venv/bin/python", "manage.py", "loadtest", f"--tables={tables}"]
    argv += [f"--seconds={seconds:g}", f"--connect-rate={args.connect_rate}"]
    sitting.ran([*argv, f"--think={args.think:g}", *(f"--url={u}" for u in urls)])

    def groups() -> dict[str, list[int]]:
        postgres = loadtest.server_processes(database)["postgres"]
        return {"daphne": list(site.daphne.values()), "postgres": postgres}

    async def play() -> tuple[loadtest.Stats, dict[str, float], float]:
        stats = loadtest.Stats()
        playing = loadtest.run_clients(clients, seconds, args.think, args.connect_rate, stats=stats)
        task = asyncio.create_task(playing)
        await asyncio.sleep(0)  # (run_clients sets the steady state's start)
        await asyncio.sleep(max(0.0, stats.steady_from - time.monotonic()))
        cpu0 = {g: loadtest.cpu_seconds(p) for g, p in groups().items()}
        active0 = await asyncio.to_thread(pg_active_ms, args.dsn, database)
        # Up to the run's end, without the sockets closing after it (their leaving costs too).
        await asyncio.sleep(max(0.0, stats.steady_from - 2 + seconds - time.monotonic()))
        cpu = loadtest.cpu_during(cpu0, groups())
        active = await asyncio.to_thread(pg_active_ms, args.dsn, database) - active0
        await task
        return stats, cpu, active

    gc.collect()
    gc.freeze()  # as loadtest.main: the client's collector's pauses counted as latency otherwise
    try:
        stats, cpu, active = asyncio.run(play())
    finally:
        gc.unfreeze()
        loadtest.teardown_tables(run)
    moves = len(stats.steady)
    ms, per = [x * 1000 for x in stats.steady], (1000 / moves if moves else math.nan)
    p50, p99 = loadtest.percentile(ms, 0.5), loadtest.percentile(ms, 0.99)
    figures = Figures(tables, moves / max(0.001, seconds - 2), p50, p99, cpu["daphne"] * per)
    figures.pg_cpu_ms, figures.pg_active_ms = cpu["postgres"] * per, active / 1000 * per
    figures.errors, figures.failures = sum(stats.errors.values()), stats.connect_failures
    return figures


def floor_run(
    sitting: Sitting, urls: list[str], pids: list[int], tables: int, seconds: float
) -> Figures:
    """One wsload run against the floor (its --pids: the floor's daphne processes)."""
    args = sitting.args
    argv = [sys.executable, "wsload.py", *(f"--url={u}" for u in urls), f"--tables={tables}"]
    argv += [f"--seconds={seconds:g}", f"--connect-rate={args.connect_rate}"]
    argv += [f"--pids={','.join(map(str, pids))}"]
    sitting.ran(argv, cwd=args.floor)
    limit = 4 * tables / args.connect_rate + seconds + 120
    done = subprocess.run(argv, cwd=args.floor, capture_output=True, text=True, timeout=limit)
    if done.returncode:
        raise SystemExit(f"bench-matrix: wsload failed:\n{done.stderr[-3000:]}")
    data = json.loads(done.stdout.strip().splitlines()[-1])
    return Figures(
        tables, data["moves_per_s"], data["p50_ms"], data["p99_ms"], data["server_ms_per_move"]
    )


# The sitting.
def bench_database(sitting: Sitting) -> None:
    """The bench database, made if missing, migrated, with `synchronous_commit = off` as the
    documented runs (the commit's fsync on a virtual disk is most of the tail)."""
    for argv in (["scripts/ensure_database.py"], ["manage.py", "migrate", "--noinput", "-v0"]):
        sitting.ran([sys.executable, *argv])
        subprocess.run([sys.executable, *argv], cwd=ROOT, env=sitting.env, check=True)
    statement = sql.SQL("ALTER DATABASE {} SET synchronous_commit = off")
    with psycopg.connect(sitting.args.dsn, autocommit=True) as conn:
        text = statement.format(sql.Identifier(sitting.args.database)).as_string(conn)
        conn.execute(text.encode())
    sitting.ran(["psql", sitting.args.dsn, "-c", text])


def configuration(sitting: Sitting, row: Row) -> None:
    """One row: the site, then the floor, each started for it and stopped after it."""
    args = sitting.args
    say(f"{row.daphne} daphne, {row.via}: the site")
    with topology(sitting, row.daphne) as site:
        on_site = partial(site_run, sitting, site, row.via)
        row.site, row.capacity = measure(args, on_site, args.start, args.ceiling)
    if args.floor_present:
        say(f"{row.daphne} daphne, {row.via}: the floor")
        with floor_servers(sitting, row.daphne, row.via) as (urls, pids):
            # The floor holds more than the site: its search starts where the site's ended.
            start = max(args.start, row.capacity[0] if row.capacity else 0)
            on_floor = partial(floor_run, sitting, urls, pids)
            row.floor, row.floor_capacity = measure(args, on_floor, start, args.floor_ceiling)


def measure(
    args: argparse.Namespace, run: Callable[[int, float], Figures], start: int, top: int
) -> tuple[Figures, Capacity | None]:
    """The run at --tables and, with --capacity, the search (counting that run if it meets it)."""
    first = run(args.tables, args.seconds)
    say(f"  {first.line()}")
    seen = {first.tables: first.p99_ms}

    def p99_at(tables: int) -> float:
        if tables not in seen:
            figures = run(tables, args.capacity_seconds)
            say(f"  capacity: {figures.line()}")
            seen[tables] = figures.p99_ms
        return seen[tables]

    return first, find_capacity(p99_at, start, args.step, top) if args.capacity else None


def parse(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add = parser.add_argument
    add("--daphne", default="1,2", help="daphne processes, each a configuration (default 1,2)")
    add("--via", default="direct,nginx", help="direct, nginx or both (default both)")
    add("--tables", type=int, default=240)
    add("--seconds", type=float, default=40, help="each run after its sockets opened")
    add("--connect-rate", type=int, default=50, help="new sockets a second")
    add("--think", type=float, default=1.0, help="the site's clients' (the floor's: 0.5–1.5 s)")
    add("--mode", default="4-reyes")
    add("--capacity", action="store_true", help="and the most tables within p99 150 ms")
    add("--capacity-seconds", type=float, default=25, help="each run of the search")
    add("--start", type=int, default=150, help="the search's first number of tables")
    add("--step", type=int, default=60)
    add("--ceiling", type=int, default=600, help="the most tables the site's search tries")
    add("--floor-ceiling", type=int, default=900)
    add("--floor", type=Path, help="the floor's folder (ceiling_asgi.py, wsload.py)")
    add("--port", type=int, default=8700, help="the site's nginx; daphne +1, +2; the floor +10…")
    add("--database-url", default="postgres://postgres@127.0.0.1:5432/musweb_bench")
    add("--run-dir", type=Path, default=ROOT / "run" / "bench-matrix", help="logs, pid files")
    args = parser.parse_args(argv)
    args.daphne = [int(x) for x in args.daphne.split(",")]
    args.via = args.via.split(",")
    if not set(args.via) <= {"direct", "nginx"} or min(args.daphne) < 1:
        parser.error("--via takes direct and/or nginx; --daphne numbers from 1")
    args.run_dir = args.run_dir.resolve()
    args.floor = args.floor and args.floor.resolve()
    args.floor_present = bool(args.floor) and (args.floor / "wsload.py").exists()
    args.database = str(database_from_url(args.database_url)["NAME"])
    args.dsn = args.database_url.rsplit("/", 1)[0] + "/postgres"  # (for ALTER and the stats)
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse(argv)
    os.environ.update(
        DATABASE_URL=args.database_url,
        # One key for the site and the load client: the site must accept the client's sessions.
        DJANGO_SECRET_KEY=os.environ.get("DJANGO_SECRET_KEY") or secrets.token_urlsafe(50),
        DJANGO_DEBUG="0",
        ALLOWED_HOSTS="127.0.0.1,localhost",
        SECURE_SSL_REDIRECT="0",
        DJANGO_SETTINGS_MODULE="musweb.settings",
        PYTHONUNBUFFERED="1",
    )
    os.chdir(ROOT)
    sitting, no_floor = Sitting(args, dict(os.environ)), "–"
    if not args.floor_present:
        no_floor = f"no floor at {args.floor}" if args.floor else "no floor (no --floor)"
        say(f"{no_floor}: the floor is skipped")
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # (the `finally`s stop it all)
    bench_database(sitting)
    import django

    django.setup()
    rows = [Row(d, via) for d in args.daphne for via in args.via]
    started = time.monotonic()
    try:
        for row in rows:
            configuration(sitting, row)
    finally:  # (a sitting stopped halfway still shows what it measured)
        rows = [row for row in rows if row.site]
        print(table(rows, no_floor))
    minutes, when = (time.monotonic() - started) / 60, time.strftime("%Y-%m-%d %H:%M %Z")
    print(f"\n{len(rows)} configuration(s) in {minutes:.1f} min, {when}. The commands from the")
    print("project's root (ROOT); the load test ran in this process with tools/loadtest.py's")
    print("functions, as `manage.py loadtest` runs them; one DJANGO_SECRET_KEY for all:\n```sh")
    print(f"export DATABASE_URL={args.database_url} DJANGO_DEBUG=0 DJANGO_SECRET_KEY=...")
    print("\n".join(dict.fromkeys(sitting.commands)) + "\n```")
    return 0


if __name__ == "__main__":
    sys.exit(main())
