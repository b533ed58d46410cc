"""The load test itself: real bot clients over real WebSockets against a real daphne process."""

from __future__ import annotations

import asyncio
import time

import pytest
from asgiref.sync import sync_to_async
from django.db import connection

from accounts.models import User
from games import services
from games.models import Table
from games.services import lobby
from tests.live import celery_worker, daphne_process, daphne_server, free_port
from tools import loadtest, logins

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


def test_the_players_of_a_finished_game_move_on_to_a_new_table_and_play_it() -> None:
    # Games end during a run (an órdago can end one in a minute): their four players start the
    # next table, so the number of tables in play stays the one asked for.
    clients = loadtest.setup_tables(1, "4-reyes", "t2")
    first = clients[0].table_id
    moved = Table.objects.filter(pk=first, version__gt=Table.objects.get(pk=first).version)

    async def run(url: str) -> loadtest.Stats:
        for client in clients:
            client.url = url
        playing = asyncio.create_task(loadtest.run_clients(clients, 8, 0.2, 50))
        # Once the clients play the first table (a move of theirs went through), it is cancelled.
        deadline = time.monotonic() + 20
        while not await moved.aexists():
            assert time.monotonic() < deadline, "the clients never played their first table"
            await asyncio.sleep(0.05)
        if not await sync_to_async(services.cancel_game)(first, Table.CancelReason.SYSTEM):
            # An órdago accepted in the first moves ended the game on its own (CI saw it).
            status = await Table.objects.filter(pk=first).values_list("status", flat=True).aget()
            assert status == Table.Status.FINISHED
        stats, _wall = await playing
        return stats

    with daphne_process() as url:
        stats = asyncio.run(run(url))
    # (the new game may end too within the seconds, after an órdago: then there is a third)
    # (and a game ending just as the run stops may get no successor)
    assert first in stats.finished_tables
    assert 1 <= stats.tables_started <= len(stats.finished_tables) <= stats.tables_started + 1
    # (a move sent just as the game was cancelled is refused with «game_over», as it should be)
    assert stats.connect_failures == 0 and set(stats.errors) <= {"game_over"}
    later = Table.objects.filter(host__username__startswith="lt-t2-").exclude(pk=first)
    assert later.count() == stats.tables_started
    # The four played the new tables through their sockets: their versions moved past the start.
    assert sum(t.version for t in later) >= 3
    for table in later:
        assert sorted(table.seats.values_list("user_id", flat=True)) == sorted(
            c.user_id for c in clients
        )
    playing = later.filter(status=Table.Status.PLAYING).count()
    assert playing <= 1
    assert loadtest.teardown_tables("t2") == playing


def test_with_reconnect_the_clients_come_back_after_a_server_restart_and_play_on() -> None:
    # A connection storm (docs/performance.md): daphne is killed mid-game and started again on
    # the same port; every socket comes back like a browser's and every table plays again.
    # The run gives the browser's backoff after the kill at 4 s (waits of about 0.5, 1, 2, 4
    # and 8 s, ±25 %: tries near 4.5, 5.5, 7.5, 11.5 and 19.5 s) one more try and time to move:
    # on a loaded machine daphne's restart can miss the try near 11.5 s, and a 14 s run once
    # left a table no time to play again (every socket back, no move yet).
    seconds = 24
    clients = loadtest.setup_tables(2, "4-reyes", "t3")
    port = free_port()

    async def run() -> loadtest.Stats:
        for client in clients:
            client.url = f"http://127.0.0.1:{port}"
        stats = loadtest.Stats()
        playing = asyncio.create_task(
            loadtest.run_clients(clients, seconds, 0.2, 50, reconnect=True, stats=stats)
        )
        with daphne_server(port) as (_url, proc):
            await asyncio.sleep(4)
            # Kill with all eight sockets open: the players of a game that just ended may be
            # between its table and the next (once, only six dropped).
            for _ in range(100):
                if stats.open_sockets == 8:
                    break
                await asyncio.sleep(0.1)
            proc.kill()  # SIGKILL: no close frames, the sockets just die
            proc.wait()
        with daphne_server(port):
            return (await playing)[0]

    stats = asyncio.run(run())
    assert stats.disconnects >= 8  # all eight sockets
    assert not stats.down_since and not stats.table_down_since
    assert len(stats.reconnected) == stats.disconnects and stats.connect_failures == 0
    assert len(stats.resumed) >= 2 and all(0 < s < seconds for s in stats.resumed)
    text = loadtest.report(stats, seconds, 2, [clients[0].url], {}, {})
    assert "dropped sockets back: " in text and "never came back" in text
    loadtest.teardown_tables("t3")


def test_the_load_test_counts_only_its_own_sites_processes() -> None:
    # Other checkouts' daphne processes and other databases' backends on the same machine must
    # not be charged to the site under test.
    with daphne_process():
        groups = loadtest.server_processes("no-such-database")
    assert groups["daphne"]  # the test's own daphne runs from this checkout
    names = []
    for pid in groups["postgres"]:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            names.append(f.read().replace(b"\0", b" ").decode())
    assert names and not any("no-such-database" not in n and "127.0.0.1(" in n for n in names)


def test_lobby_viewers_are_pushed_the_public_tables_or_poll_for_them() -> None:
    # `--lobby-viewers N --public-tables`: the viewers' sockets get the lobby (beat pushes it);
    # `--lobby-poll`: they ask for the fragment every 2 s as before, and each poll is timed.
    lobby.forget()
    clients = loadtest.setup_tables(2, "4-reyes", "t5", public=True)
    assert not Table.objects.filter(pk=clients[0].table_id).values_list("private", flat=True)[0]
    with celery_worker(beat=True, MUS_LOBBY_SECONDS="1"), daphne_process() as url:
        for client in clients:
            client.url = url
        pushed, _ = asyncio.run(loadtest.run_clients(clients, 5, 0.3, 100, viewers=3))
        polled, wall = asyncio.run(loadtest.run_clients(clients, 5, 0.3, 100, viewers=3, poll=True))
    assert pushed.viewers_open == 3 and not pushed.viewer_failures
    assert pushed.viewer_messages >= 3 and pushed.viewer_bytes > 0  # the whole lobby at least
    assert polled.viewers_open == 3 and not polled.viewer_failures
    assert len(polled.polls) >= 6 and polled.viewer_bytes > 0
    text = loadtest.report(polled, wall, 2, [url], {}, {})
    assert "lobby viewers: 3 open" in text and "lobby polls: " in text
    loadtest.teardown_tables("t5")
    lobby.forget()


def test_a_run_vacuums_and_gives_the_planner_fresh_statistics_when_autovacuum_is_off() -> None:
    """Without autovacuum (the CI machines' PostgreSQL) nothing else would: the planner kept the
    first run's sizes and read the whole players' table for each seat, and the sockets' table
    grew dead rows with every run."""
    with connection.cursor() as cursor:
        cursor.execute("SHOW autovacuum")
        autovacuum = cursor.fetchone()[0]
        said = loadtest.analyse_without_autovacuum()
        cursor.execute("SELECT pg_stat_clear_snapshot()")
        cursor.execute(
            "SELECT relname, last_analyze, last_vacuum FROM pg_stat_user_tables"
            " WHERE relname = ANY(%s)",
            [list(loadtest.FILLED)],
        )
        done = {name for name, analysed, vacuumed in cursor.fetchall() if analysed and vacuumed}
    if autovacuum == "on":
        assert said == ""
    else:
        assert said.startswith("autovacuum is off")
        assert done == set(loadtest.FILLED)


def test_with_logins_per_second_people_log_in_through_the_form_while_the_tables_play() -> None:
    # `--logins-per-second`: from the steady state on, a browser's log-in (the page for its CSRF
    # token, then the form) at that rate, each answered with the redirect of a good password.
    clients = loadtest.setup_tables(1, "4-reyes", "t6")
    accounts = logins.setup_accounts("t6", 3)
    assert all(
        u.check_password(logins.PASSWORD) for u in User.objects.filter(username__in=accounts)
    )
    with daphne_process() as url:
        for client in clients:
            client.url = url
        stats, wall = asyncio.run(
            loadtest.run_clients(clients, 5, 0.3, 50, logins_per_second=4, login_accounts=accounts)
        )
    assert stats.logins.started >= 8 and not stats.logins.failures
    assert len(stats.logins.latencies) == stats.logins.started
    assert stats.latencies and not stats.errors
    signed_in = User.objects.filter(username__in=accounts, last_login__isnull=False).count()
    assert signed_in == 3
    text = loadtest.report(stats, wall, 1, [url], {}, {})
    assert f"log-ins: {stats.logins.started} started" in text and "log-in post" in text
    loadtest.teardown_tables("t6")
