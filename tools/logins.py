"""People logging in during a load test (`manage.py loadtest --logins-per-second R`).

Each log-in is a browser's: a new connection asks for the log-in page (its CSRF cookie and the
form's token), then posts the form and must be answered with the redirect a successful log-in
gives. Only the post is timed: it is the request that checks the password with the site's own
hasher. The accounts are written straight into the database with one real hash of their common
password (computed once here, with the site's hasher), so every post checks a real hash.
"""

from __future__ import annotations

import asyncio
import re
import time
from collections import Counter
from dataclasses import dataclass, field
from urllib.parse import urlencode

from django.conf import settings
from django.contrib.auth.hashers import make_password

from accounts.models import User

PASSWORD = "carga-Sota-Caballo-7"
LOGIN_PATH = "/cuentas/entrar/"
#: A log-in not answered within this long counts as failed (a queue that never drains).
TIMEOUT = 60.0
_TOKEN = re.compile(rb'name="csrfmiddlewaretoken" value="([^"]+)"')


@dataclass
class Logins:
    latencies: list[float] = field(default_factory=list)  # seconds from the post to its answer
    started: int = 0
    failures: Counter[str] = field(default_factory=Counter)


def setup_accounts(run: str, n: int) -> list[str]:
    """`n` accounts named `lt-{run}-login-{i}`, their password `PASSWORD`; their usernames."""
    encoded = make_password(PASSWORD)
    names = [f"lt-{run}-login-{i}" for i in range(n)]
    User.objects.bulk_create(
        [
            User(username=name, display_name=f"Entrada {i}", password=encoded)
            for i, name in enumerate(names)
        ],
        batch_size=1000,
    )
    return names


async def _exchange(host: str, request: bytes) -> tuple[bytes, bytes]:
    """One request over a new connection (`Connection: close`): the answer's head and body."""
    hostname, _, port = host.partition(":")
    reader, writer = await asyncio.open_connection(hostname, int(port or 80))
    try:
        writer.write(request)
        answer = await reader.read()
    finally:
        writer.close()
    head, _, body = answer.partition(b"\r\n\r\n")
    return head, body


def _cookies(head: bytes) -> dict[str, str]:
    found = {}
    for line in head.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"set-cookie":
            key, _, rest = value.strip().decode().partition("=")
            found[key] = rest.split(";", 1)[0]
    return found


async def log_in(base: str, username: str, logins: Logins) -> None:
    """One person logging in at `base`; the post's latency or why it failed goes to `logins`."""
    host = base.split("://", 1)[1].split("/", 1)[0]
    logins.started += 1
    try:
        async with asyncio.timeout(TIMEOUT):
            head, body = await _exchange(
                host,
                f"GET {LOGIN_PATH} HTTP/1.1\r\nHost: {host}\r\nAccept-Language: es\r\n"
                "Connection: close\r\n\r\n".encode(),
            )
            csrf = _cookies(head).get("csrftoken")
            token = _TOKEN.search(body)
            if not head.startswith(b"HTTP/1.1 200") or csrf is None or token is None:
                logins.failures["log-in page: " + head.split(b"\r\n", 1)[0].decode()] += 1
                return
            form = urlencode(
                {
                    "csrfmiddlewaretoken": token.group(1).decode(),
                    "username": username,
                    "password": PASSWORD,
                }
            ).encode()
            request = (
                f"POST {LOGIN_PATH} HTTP/1.1\r\nHost: {host}\r\nOrigin: http://{host}\r\n"
                f"Cookie: csrftoken={csrf}\r\nAccept-Language: es\r\n"
                "Content-Type: application/x-www-form-urlencoded\r\n"
                f"Content-Length: {len(form)}\r\nConnection: close\r\n\r\n"
            ).encode() + form
            posted = time.monotonic()
            head, _body = await _exchange(host, request)
            status = head.split(b"\r\n", 1)[0].decode()
            if not status.startswith(
                "HTTP/1.1 302"
            ) or settings.SESSION_COOKIE_NAME not in _cookies(head):
                logins.failures[f"post answered {status!r}"] += 1
                return
            logins.latencies.append(time.monotonic() - posted)
    except TimeoutError:
        logins.failures[f"no answer within {TIMEOUT:.0f} s"] += 1
    except OSError as exc:
        logins.failures[type(exc).__name__] += 1


async def keep_logging_in(
    sites: list[str],
    usernames: list[str],
    per_second: float,
    start_at: float,
    stop_at: float,
    logins: Logins,
) -> None:
    """From `start_at` until `stop_at`, a log-in every 1/`per_second` s whatever the earlier
    ones are doing (people do not wait for each other), round the accounts and the sites."""
    await asyncio.sleep(max(0.0, start_at - time.monotonic()))
    tasks = []
    i = 0
    while (now := time.monotonic()) < stop_at:
        site, username = sites[i % len(sites)], usernames[i % len(usernames)]
        tasks.append(asyncio.create_task(log_in(site, username, logins)))
        i += 1
        await asyncio.sleep(max(0.0, start_at + i / per_second - now))
    await asyncio.gather(*tasks)
