"""Time the rankings pages against the current database (server time, in process).

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/musweb_bench python manage.py bench_pages

Each page is requested --runs times (after --warmup requests) with Django's test client, which
runs the whole middleware stack, the view and the template, without any network. Prints, per
page, the median and 90th percentile of the wall-clock time, the median CPU time of this
process (Python: middleware, view, ORM, template; the rest of the wall time is PostgreSQL and
waiting), the SQL time and the number of queries. The load average is printed too: on a busy
machine the wall time grows with it.
"""

from __future__ import annotations

import os
import statistics
import time
from collections.abc import Callable

from django.core.management.base import CommandError
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from games.models import Table
from rankings.models import PlayerRating


def pick_players() -> tuple[str, str]:
    """The usernames of a typical (median number of games) and of the busiest 4-reyes player."""
    ladder = PlayerRating.objects.filter(mode="4-reyes")
    count = ladder.count()
    if not count:
        raise CommandError("No rated players: run seed_bench_data first.")
    typical = ladder.order_by("games", "id").values_list("user__username", flat=True)[count // 2]
    busiest = ladder.order_by("-games", "id").values_list("user__username", flat=True)[0]
    return typical, busiest


def main(runs: int = 50, warmup: int = 5, write: Callable[[str], None] = print) -> None:
    typical, busiest = pick_players()
    game = (
        Table.objects.filter(status=Table.Status.FINISHED, private=False)
        .order_by("-finished_at")
        .values_list("pk", flat=True)
        .first()
    )
    board = reverse("rankings:leaderboard")
    history = reverse("game_history")
    pages: list[tuple[str, str, dict[str, str]]] = [
        ("leaderboard 4 reyes, page 1", f"{board}?modo=4-reyes", {}),
        ("leaderboard 8 reyes, page 1", f"{board}?modo=8-reyes", {}),
        (
            "leaderboard page 100 (HTMX)",
            f"{board}?modo=4-reyes&pagina=100",
            {"HX-Request": "true"},
        ),
        (
            "leaderboard search (HTMX)",
            f"{board}?modo=4-reyes&q={typical[:4]}",
            {"HX-Request": "true"},
        ),
        (
            "leaderboard search, one player",
            f"{board}?modo=4-reyes&q={typical}",
            {"HX-Request": "true"},
        ),
        ("profile, typical player", reverse("accounts:profile", args=[typical]), {}),
        ("profile, busiest player", reverse("accounts:profile", args=[busiest]), {}),
        ("history, typical player", f"{history}?jugador={typical}", {}),
        ("history, busiest player", f"{history}?jugador={busiest}", {}),
        (
            "history, busiest, won, page 3 (HTMX)",
            f"{history}?jugador={busiest}&resultado=ganadas&pagina=3",
            {"HX-Request": "true"},
        ),
        ("history, everybody", history, {}),
    ]
    if game:
        pages.append(("game page with replay", reverse("game_detail", args=[game]), {}))
    client = Client(HTTP_HOST="localhost")
    write(
        f"{PlayerRating.objects.count()} ladder rows; typical player {typical},"
        f" busiest {busiest}; {runs} runs each"
    )
    write(f"load average at start: {os.getloadavg()[0]:.2f}")
    write(f"{'page':40} {'median ms':>9} {'p90 ms':>7} {'CPU ms':>7} {'SQL ms':>7} {'queries':>7}")
    for label, url, headers in pages:
        for _ in range(warmup):
            _get(client, url, headers)
        times, cpu = [], []
        for _ in range(runs):
            t0, c0 = time.perf_counter(), time.process_time()
            _get(client, url, headers)
            times.append((time.perf_counter() - t0) * 1000)
            cpu.append((time.process_time() - c0) * 1000)
        sql = []
        for _ in range(min(runs, 5)):
            with CaptureQueriesContext(connection) as queries:
                _get(client, url, headers)
            sql.append(sum(float(q["time"]) for q in queries.captured_queries) * 1000)
        times.sort()
        p90 = times[min(len(times) - 1, int(len(times) * 0.9))]
        write(
            f"{label:40} {statistics.median(times):9.1f} {p90:7.1f}"
            f" {statistics.median(cpu):7.1f} {statistics.median(sql):7.1f} {len(queries):7d}"
        )
    write(f"load average at the end: {os.getloadavg()[0]:.2f}")


def _get(client: Client, url: str, headers: dict[str, str]) -> None:
    response = client.get(url, headers=headers)
    if response.status_code != 200:
        raise CommandError(f"{url} answered {response.status_code}")
