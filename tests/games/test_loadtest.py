"""The load test itself: real bot clients over real WebSockets against a real daphne process."""

from __future__ import annotations

import asyncio

import pytest

from games import loadtest
from games.models import Table
from tests.live import daphne_process

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]


def test_the_load_test_plays_tables_through_the_public_protocol_and_reports_it() -> None:
    clients = loadtest.setup_tables(2, "4-reyes", "t1")
    with daphne_process() as url:
        for client in clients:
            client.url = url
        stats, wall = asyncio.run(loadtest.run_clients(clients, 6, 0.2, 50))
    assert not stats.errors and stats.connect_failures == 0 and stats.disconnects == 0
    assert stats.sent >= 10 and len(stats.latencies) >= 10
    assert stats.steady and all(0 < x < 10 for x in stats.latencies)
    # Every accepted action moved a table on: the versions in the database agree.
    tables = Table.objects.filter(host__username__startswith="lt-t1-")
    assert sum(t.version for t in tables) >= len(stats.latencies)
    cpu = {g: 0.0 for g in ("daphne", "celery", "postgres", "redis")}
    text = loadtest.report(stats, wall, 2, [url], cpu, cpu)
    assert "steady state" in text and "load client" in text
    # (a game may have ended within the seconds, an órdago accepted: only the others are left)
    playing = tables.filter(status=Table.Status.PLAYING).count()
    assert loadtest.teardown_tables("t1") == playing
    assert not Table.objects.filter(status=Table.Status.PLAYING).exists()
