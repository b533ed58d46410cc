"""A real site for browser and multi-process tests: daphne (and a Celery worker) in subprocesses.

pytest-django's live server speaks WSGI only; the table needs WebSockets, so these fixtures start
the same processes `make run` starts, pointed at the test database and the test run's Redis
prefixes. Tests that use them must be `django_db(transaction=True)` so their data is committed.
"""

from __future__ import annotations

import os
import re
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


def _stop(proc: subprocess.Popen[Any]) -> None:
    proc.terminate()
    try:
        proc.wait(10)
    except subprocess.TimeoutExpired:
        proc.kill()


@contextmanager
def daphne_server(
    port: int | None = None, **env: str
) -> Iterator[tuple[str, subprocess.Popen[Any]]]:
    """A real daphne serving the site: its URL and its process (to kill it)."""
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
def celery_worker(*, beat: bool = False, **env: str) -> Iterator[Worker]:
    """A real worker; with `beat`, also the periodic tasks (the turn clock's sweep)."""
    _require_slow("a Celery worker")
    ARTIFACTS.mkdir(exist_ok=True)
    log = ARTIFACTS / "celery-worker.log"
    # Each worker its own beat schedule file: a file left by an earlier worker (stopped mid-write,
    # or with other last-run times) must not change when this one's sweeps run.
    schedule_file = ARTIFACTS / f"celerybeat-schedule-{free_port()}"
    schedule = ["--beat", f"--schedule={schedule_file}"] if beat else []
    with log.open("w") as out:
        proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "celery",
                "-A",
                "musweb",
                "worker",
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
