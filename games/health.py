"""The site's health (`/salud/` and `python manage.py health`, docs/deploy.md): can this process
reach PostgreSQL and Redis, does a Celery worker of each queue answer (the live game's and the
heavy work's), and how long ago did the clock's sweep run (beat sends it every second, the live
worker runs it).

`/salud/` answers 503 when this process cannot serve (PostgreSQL or Redis down), which a proxy
or the table page (while it reconnects) reads; the worker and the sweep are reported for a
monitor, in `ok`, without taking the site out of a proxy.
"""

from __future__ import annotations

import time
from typing import Any

import redis
from celery import current_app
from django.conf import settings
from django.db import connection
from django.http import HttpRequest, JsonResponse
from django.utils import timezone

from .services import OUTAGES, clockwork

PATH = "/salud/"
#: The sweep runs every MUS_SWEEP_SECONDS; older than this, beat or the worker is not working.
SWEEP_STALE_SECONDS = 10.0


def _timed(check: Any) -> dict[str, Any]:
    started = time.monotonic()
    try:
        extra = check() or {}
    except Exception as exc:  # a health check reports, it never fails
        return {"ok": False, "error": f"{type(exc).__name__}: {exc}".strip()[:300]}
    return {"ok": True, "ms": round(1000 * (time.monotonic() - started), 1), **extra}


def _postgres() -> None:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
    except OUTAGES:
        connection.close()
        raise


def _redis() -> None:
    client = redis.Redis.from_url(settings.REDIS_URL, socket_timeout=1, socket_connect_timeout=1)
    try:
        client.ping()
    finally:
        client.close()


def _worker(role: str) -> Any:
    """A worker of `role` (`musweb.worker`: its hostname is `ROLE@host`, or `live+heavy@host`
    for one doing both) answers a ping; only those whose hostname matches are asked."""

    def check() -> dict[str, Any]:
        replies = current_app.control.ping(
            timeout=1.0, limit=1, pattern=f"*{role}*@*", matcher="glob"
        )
        if not replies:
            raise ConnectionError(f"no Celery worker of the {role} queue answered within 1 s")
        return {"workers": [name for reply in replies for name in reply]}

    return check


def _beat() -> dict[str, Any]:
    ran = clockwork.last_sweep()
    if ran is None:
        raise ConnectionError("the sweep has never run")
    age = (timezone.now() - ran).total_seconds()
    if age > SWEEP_STALE_SECONDS:
        raise ConnectionError(f"the last sweep ran {age:.0f} s ago")
    return {"last_sweep_seconds": round(age, 1)}


def report(*, workers: bool = True) -> dict[str, Any]:
    """Each service's check; `serving` when this process can serve (PostgreSQL and Redis), `ok`
    when everything is. The worker is asked only with Redis up (and `workers`)."""
    result: dict[str, Any] = {"postgres": _timed(_postgres), "redis": _timed(_redis)}
    down = {"ok": False, "error": "not checked: Redis is down"}
    # The live game's worker (the clock, bots, the lobby) and the heavy work's (analyses).
    for name, role in (("worker", "live"), ("heavy_worker", "heavy")):
        result[name] = _timed(_worker(role)) if workers and result["redis"]["ok"] else down
        if not workers:
            result[name] = {"ok": None, "error": "not checked"}
    result["beat"] = (
        _timed(_beat)
        if result["postgres"]["ok"]
        else {"ok": False, "error": "not checked: PostgreSQL is down"}
    )
    serving = result["postgres"]["ok"] and result["redis"]["ok"]
    checks = [v["ok"] for v in result.values() if v["ok"] is not None]
    return {"ok": all(checks), "serving": serving, **result}


def health_view(request: HttpRequest) -> JsonResponse:
    """`/salud/`: the report as JSON, 200 when this process can serve, else 503. `?workers=0`
    leaves out asking the Celery workers (a second at most)."""
    data = report(workers=request.GET.get("workers") != "0")
    response = JsonResponse(data, status=200 if data["serving"] else 503)
    response["Cache-Control"] = "no-store"
    return response
