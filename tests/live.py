"""A real site for browser and multi-process tests: daphne (and a Celery worker) in subprocesses.

pytest-django's live server speaks WSGI only; the table needs WebSockets, so these fixtures start
the same processes `make run` starts, pointed at the test database and the test run's Redis
prefixes. Tests that use them must be `django_db(transaction=True)` so their data is committed.
`production_topology` starts what `make run-prod` starts: nginx in front of daphne processes.
"""

from __future__ import annotations

import os
import re
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings
from django.db import connection

ROOT = Path(__file__).resolve().parent.parent
ARTIFACTS = ROOT / "test-artifacts"
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
]


#: Whether the test running now is marked `slow` (tests/conftest.py sets it for every test).
#: Starting daphne, a Celery worker or a browser in one that is not fails it: `make test-fast`
#: (`-m "not slow"`) must leave out every test that starts a process.
current_test_is_slow = False


def _require_slow(what: str) -> None:
    if not current_test_is_slow:
        pytest.fail(f"a test that starts {what} must be marked slow", pytrace=False)


def wait_until(
    predicate: Callable[[], bool],
    timeout: float = 20,
    every: float = 0.1,
    message: str = "condition not met in time",
) -> None:
    """Poll ``predicate`` until it holds; fail the test with ``message`` if it still does not
    after ``timeout`` seconds (for what another process does: a worker's task, a bot's move)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(every)
    raise AssertionError(message)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def free_ports(n: int) -> int:
    """The first of ``n`` consecutive free ports (for scripts that number their servers)."""
    for _ in range(100):
        first = free_port()
        try:
            for port in range(first + 1, first + n):
                with socket.socket() as s:
                    s.bind(("127.0.0.1", port))
        except OSError:
            continue
        return first
    raise RuntimeError(f"no {n} consecutive free ports")


def child_env(**extra: str) -> dict[str, str]:
    db = settings.DATABASES["default"]
    env = dict(os.environ)
    env.update(
        {
            "DATABASE_URL": f"postgres://{db['USER']}:{db['PASSWORD']}@{db['HOST']}:{db['PORT'] or 5432}/{connection.settings_dict['NAME']}",
            "DJANGO_SETTINGS_MODULE": "musweb.settings",
            "DJANGO_DEBUG": "1",
            "PYTHONUNBUFFERED": "1",
        }
    )
    env.update(extra)
    return env


def _wait_for_port(port: int, proc: subprocess.Popen[Any], log: Path, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"server exited early:\n{log.read_text()[-3000:]}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError(f"server did not listen on {port}:\n{log.read_text()[-3000:]}")


def _stop(proc: subprocess.Popen[Any], timeout: float = 10) -> None:
    proc.terminate()
    try:
        proc.wait(timeout)
    except subprocess.TimeoutExpired:
        proc.kill()


@contextmanager
def daphne_server(
    port: int | None = None, args: tuple[str, ...] = (), **env: str
) -> Iterator[tuple[str, subprocess.Popen[Any]]]:
    """A real daphne serving the site: its URL and its process (to kill it); `args` are more
    of its command-line options."""
    _require_slow("daphne")
    port = port or free_port()
    ARTIFACTS.mkdir(exist_ok=True)
    log = ARTIFACTS / f"daphne-{port}.log"
    with log.open("w") as out:
        proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "musweb.server",  # daphne as scripts/run.sh starts it
                "-b",
                "127.0.0.1",
                "-p",
                str(port),
                *args,
                "musweb.asgi:application",
            ],
            cwd=ROOT,
            env=child_env(**env),
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    try:
        _wait_for_port(port, proc, log)
        yield f"http://127.0.0.1:{port}", proc
    finally:
        _stop(proc)


@contextmanager
def daphne_process(port: int | None = None, **env: str) -> Iterator[str]:
    with daphne_server(port, **env) as (url, _proc):
        yield url


@dataclass
class Worker:
    proc: subprocess.Popen[Any]
    log: Path

    def finished(self, task: str) -> int:
        """How many runs of the task registered as ``task`` have ended so far (its log says)."""
        pattern = rf"Task {re.escape(task)}\[[^\]]+\] (?:succeeded|raised)"
        return len(re.findall(pattern, self.log.read_text()))


@contextmanager
def celery_worker(
    *, beat: bool = False, role: str = "live,heavy", nice: int = 0, **env: str
) -> Iterator[Worker]:
    """A real worker (`musweb.worker`) of `role`: by default one that consumes both queues, the
    live game's and the heavy work's; with `beat`, also the periodic tasks (the clock's sweep);
    `nice`, run niced by that much (as scripts/run.sh runs the heavy worker)."""
    _require_slow("a Celery worker")
    ARTIFACTS.mkdir(exist_ok=True)
    log = ARTIFACTS / f"celery-worker-{role.replace(',', '+')}.log"
    # Each worker its own beat schedule file: a file left by an earlier worker (stopped mid-write,
    # or with other last-run times) must not change when this one's sweeps run.
    schedule_file = ARTIFACTS / f"celerybeat-schedule-{free_port()}"
    schedule = ["--beat", f"--schedule={schedule_file}"] if beat else []
    with log.open("w") as out:
        proc = subprocess.Popen(
            [
                *(["nice", "-n", str(nice)] if nice else []),
                sys.executable,
                "-m",
                "musweb.worker",
                role,
                "--pool=solo",
                "--loglevel=INFO",
                "--without-gossip",
                "--without-mingle",
                "--without-heartbeat",
                *schedule,
            ],
            cwd=ROOT,
            env=child_env(**env),
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    try:
        deadline = time.monotonic() + 30
        while "ready" not in log.read_text() and time.monotonic() < deadline:
            if proc.poll() is not None:
                raise RuntimeError(log.read_text()[-3000:])
            time.sleep(0.2)
        yield Worker(proc, log)
    finally:
        _stop(proc)
        for leftover in ARTIFACTS.glob(f"{schedule_file.name}*"):
            leftover.unlink()


@dataclass
class Topology:
    """The production topology (scripts/run_prod.py) started by `production_topology`."""

    url: str
    run_dir: Path
    proc: subprocess.Popen[Any]

    def daphne_pids(self, kind: str = "daphne") -> dict[int, int]:
        """Port -> pid of each daphne process of a kind running now (the script's pid files):
        "daphne" for the live ones (the sockets), "pages" for the pages'."""
        pids: dict[int, int] = {}
        for pid_file in self.run_dir.glob(f"{kind}-*.pid"):
            try:
                pids[int(pid_file.stem.removeprefix(f"{kind}-"))] = int(pid_file.read_text())
            except (OSError, ValueError):
                continue  # being rewritten by a restart
        return pids


@contextmanager
def production_topology(processes: int = 2, pages: int = 1, **env: str) -> Iterator[Topology]:
    """`make run-prod` on free ports: nginx in front of ``processes`` daphne processes for the
    sockets and ``pages`` for the pages, a Celery worker and beat, DEBUG off, on the test
    database and the test run's Redis prefixes. The site signs sessions with this process's
    secret key, so the tests' session cookies work."""
    _require_slow("the production topology")
    port = free_port()
    run_dir = ARTIFACTS / f"prod-{port}"
    ARTIFACTS.mkdir(exist_ok=True)
    log = ARTIFACTS / f"run-prod-{port}.log"
    with log.open("w") as out:
        proc = subprocess.Popen(
            ["bash", "scripts/run_prod.sh"],
            cwd=ROOT,
            env=child_env(
                DJANGO_DEBUG="0",
                DJANGO_SECRET_KEY=settings.SECRET_KEY,
                ALLOWED_HOSTS="127.0.0.1,localhost",
                SECURE_SSL_REDIRECT="0",
                PORT=str(port),
                DAPHNE_PROCESSES=str(processes),
                PAGES_PROCESSES=str(pages),
                DAPHNE_PORT=str(free_ports(processes + pages)),
                RUN_DIR=str(run_dir),
                STATIC_ROOT=str(run_dir / "static"),
                CELERY_CONCURRENCY="1",
                **env,
            ),
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    try:
        # Migrations (none to apply), collectstatic, then every process answering.
        deadline = time.monotonic() + 240
        while "Barajamos (production topology)" not in log.read_text():
            if proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"run_prod.sh did not start:\n{log.read_text()[-3000:]}")
            time.sleep(0.3)
        yield Topology(f"http://127.0.0.1:{port}", run_dir, proc)
    finally:
        _stop(proc, timeout=60)
        shutil.rmtree(run_dir / "static", ignore_errors=True)


@pytest.fixture
def live_site(transactional_db: None) -> Iterator[str]:
    with daphne_process() as url:
        yield url


@pytest.fixture
def browser() -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    _require_slow("a browser")
    if not Path(CHROMIUM).exists():
        pytest.fail(f"{CHROMIUM} is missing: `make test` installs Debian's chromium")
    with sync_playwright() as pw:
        instance = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        try:
            yield instance
        finally:
            instance.close()


def screenshot(page: Any, name: str) -> Path:
    ARTIFACTS.mkdir(exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    return path
