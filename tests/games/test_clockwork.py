"""After an outage nobody is charged for it (services.clockwork), presence comes from heartbeats,
and the health check says what is up (games/health.py)."""

from __future__ import annotations

import json
from datetime import timedelta
from io import StringIO
from typing import Any

import celery.beat
import pytest
import redis
from django.core.management import call_command
from django.db import OperationalError
from django.test import Client
from django.utils import timezone

from accounts.models import User
from games import health, services
from games.clock import SeatClock, TurnClock
from games.models import Connection, Seat, ServerProcess, SweepMark, Table
from games.services import clockwork, connections
from games.tasks import sweep_deadlines
from musweb.celery import Scheduler
from tests.factories import started_table

pytestmark = [pytest.mark.django_db(transaction=True)]


def swept_ago(seconds: float) -> None:
    SweepMark.objects.update_or_create(
        name=clockwork.SWEEP, defaults={"ran_at": timezone.now() - timedelta(seconds=seconds)}
    )


def test_a_turn_that_ran_out_while_the_sweeps_were_down_is_not_played_by_the_clock(
    four_players: list[User],
) -> None:
    table = started_table(four_players)
    # The turn ran out 5 s ago, in an outage of 40 s: the player had 35 s of it left.
    Table.objects.filter(pk=table.pk).update(deadline=timezone.now() - timedelta(seconds=5))
    swept_ago(40)
    sweep_deadlines()
    after = Table.objects.get(pk=table.pk)
    assert after.version == table.version  # nothing played for the player
    left = (after.deadline - timezone.now()).total_seconds()
    assert 30 < left < 36
    assert (timezone.now() - SweepMark.objects.get().ran_at).total_seconds() < 5


def test_a_reconnection_window_is_not_spent_by_an_outage(four_players: list[User]) -> None:
    table = started_table(four_players)
    now = timezone.now()
    # Seat 1 went away 10 s before an outage of 30 s, with a window of 20 s: it ran out in it.
    Seat.objects.filter(table=table, seat=1).update(
        connections=0,
        disconnected_at=now - timedelta(seconds=40),
        reconnect_deadline=now - timedelta(seconds=20),
    )
    Connection.objects.filter(table=table, user=four_players[1]).delete()
    swept_ago(30)
    sweep_deadlines()
    table.refresh_from_db()
    assert table.status == Table.Status.PLAYING  # not cancelled for abandonment
    seat = Seat.objects.get(table=table, seat=1)
    assert 7 < (seat.reconnect_deadline - timezone.now()).total_seconds() <= 10
    assert 9 < (timezone.now() - seat.disconnected_at).total_seconds() < 13


def test_sweeps_on_time_move_no_clock(four_players: list[User]) -> None:
    table = started_table(four_players)
    deadline = Table.objects.get(pk=table.pk).deadline
    swept_ago(1)
    assert clockwork.catch_up() == 0
    assert Table.objects.get(pk=table.pk).deadline == deadline


def test_a_busy_workers_late_sweeps_move_no_clock(four_players: list[User]) -> None:
    # Under load the sweep's message expires while the worker runs other tasks: 3-12 s between
    # sweeps with PostgreSQL and Redis up, and the turns that ran out in it are played.
    table = started_table(four_players)
    Table.objects.filter(pk=table.pk).update(deadline=timezone.now() - timedelta(seconds=2))
    swept_ago(12)
    sweep_deadlines()
    assert Table.objects.get(pk=table.pk).version == table.version + 1  # the clock played it


def test_a_gap_longer_than_the_setting_is_an_outage(
    four_players: list[User], settings: Any
) -> None:
    settings.MUS_SWEEP_GAP_SECONDS = 8
    table = started_table(four_players)
    deadline = Table.objects.get(pk=table.pk).deadline
    swept_ago(12)
    assert 10 < clockwork.catch_up() < 12
    assert (Table.objects.get(pk=table.pk).deadline - deadline).total_seconds() > 10


def test_a_short_gap_after_a_sweep_failed_on_postgresql_is_an_outage(
    four_players: list[User], monkeypatch: pytest.MonkeyPatch
) -> None:
    table = started_table(four_players)
    deadline = Table.objects.get(pk=table.pk).deadline
    swept_ago(1)
    clockwork._outage_seen = False

    def down() -> float:
        raise OperationalError("connection failed: server closed the connection unexpectedly")

    with monkeypatch.context() as patched:
        patched.setattr(clockwork, "catch_up", down)
        assert isinstance(sweep_deadlines.apply().result, OperationalError)  # as the worker runs it
    swept_ago(6)  # PostgreSQL came back 6 s after the last sweep that ran
    sweep_deadlines()
    assert (Table.objects.get(pk=table.pk).deadline - deadline).total_seconds() > 4
    # Once caught up, the next short gap is a busy worker again.
    swept_ago(6)
    assert clockwork.catch_up() == 0


def test_a_short_gap_in_which_beat_could_not_send_the_sweep_is_an_outage(
    four_players: list[User], monkeypatch: pytest.MonkeyPatch
) -> None:
    table = started_table(four_players)
    deadline = Table.objects.get(pk=table.pk).deadline
    swept_ago(6)

    def redis_down(*args: Any, **kwargs: Any) -> None:
        raise redis.exceptions.ConnectionError("Error 111 connecting to 127.0.0.1:6379.")

    monkeypatch.setattr(celery.beat.PersistentScheduler, "apply_async", redis_down)
    beat = Scheduler.__new__(Scheduler)  # what beat does every second, without its schedule file
    with pytest.raises(redis.exceptions.ConnectionError):
        beat.apply_async(None)
    assert 4 < clockwork.catch_up() < 6
    assert (Table.objects.get(pk=table.pk).deadline - deadline).total_seconds() > 4


def test_after_an_outage_server_processes_get_a_full_timeout_to_beat_again(
    four_players: list[User],
) -> None:
    table = started_table(four_players)
    services.socket_opened(table.pk, four_players[0].pk, "vivo-0", process="vivo")
    ServerProcess.objects.create(name="vivo", beat_at=timezone.now() - timedelta(seconds=60))
    swept_ago(60)
    sweep_deadlines()
    assert Connection.objects.filter(process="vivo").exists()  # not dropped at once
    assert Seat.objects.get(table=table, seat=0).reconnect_deadline is None


def test_a_socket_that_closed_while_the_database_was_down_is_dropped_after_the_outage(
    four_players: list[User],
) -> None:
    table = started_table(four_players)
    Connection.objects.filter(table=table).delete()
    services.socket_opened(table.pk, four_players[0].pk, "abierto")
    services.socket_opened(table.pk, four_players[1].pk, "cerrado")
    connections.beat()
    # The socket «cerrado» closed during the outage: forgotten here, its row left behind.
    connections._LOCAL.pop("cerrado")
    connections.reconcile()  # the first beat after the outage
    assert list(Connection.objects.values_list("channel", flat=True)) == ["abierto"]
    assert Seat.objects.get(table=table, seat=1).connections == 0


def test_the_health_check_reports_each_service_and_answers_503_when_one_is_down(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    SweepMark.objects.create(name=clockwork.SWEEP, ran_at=timezone.now())
    client = Client()
    response = client.get("/salud/?workers=0")
    assert response.status_code == 200
    data = response.json()
    assert data["serving"] and data["postgres"]["ok"] and data["redis"]["ok"]
    assert data["beat"]["ok"] and data["beat"]["last_sweep_seconds"] < 5

    def down(*args: Any, **kwargs: Any) -> None:
        raise redis.exceptions.ConnectionError("Error 111 connecting to 127.0.0.1:6379")

    monkeypatch.setattr(redis.Redis, "ping", down)
    response = client.get("/salud/")
    assert response.status_code == 503
    data = response.json()
    assert not data["serving"] and not data["ok"]
    assert "ConnectionError" in data["redis"]["error"]
    assert data["worker"]["ok"] is False  # not asked: the broker is Redis


def test_the_health_command_prints_the_same_and_fails_when_something_is_down() -> None:
    swept_ago(60)  # beat or the worker stopped a minute ago
    out = StringIO()
    with pytest.raises(SystemExit) as failed:
        call_command("health", "--json", stdout=out)
    assert failed.value.code == 1
    data = json.loads(out.getvalue())
    assert data["postgres"]["ok"] and data["redis"]["ok"]
    assert not data["beat"]["ok"] and "the last sweep ran" in data["beat"]["error"]
    out = StringIO()
    with pytest.raises(SystemExit):
        call_command("health", stdout=out)
    assert "postgres     ok" in out.getvalue() and "beat         FAIL" in out.getvalue()
    # No worker in this test: neither the live game's nor the heavy work's answers.
    assert "worker       FAIL" in out.getvalue() and "heavy_worker FAIL" in out.getvalue()
    assert health.report(workers=False)["serving"]


def test_the_catch_up_moves_a_tables_stored_clock_as_the_turn_clock_says(
    four_players: list[User],
) -> None:
    """`services.clock.shift_all` (every table in one statement) is `TurnClock.shifted`."""
    table = started_table(four_players)
    now = timezone.now()
    Seat.objects.filter(table=table, seat=1).update(
        connections=0,
        disconnected_at=now - timedelta(seconds=50),
        reconnect_deadline=now + timedelta(seconds=10),
    )
    Seat.objects.filter(table=table, seat=2).update(
        connections=0,
        disconnected_at=now - timedelta(seconds=3),
        reconnect_deadline=now + timedelta(seconds=57),
    )
    Table.objects.filter(pk=table.pk).update(deadline=now - timedelta(seconds=4))

    def stored() -> Any:
        seats = Seat.objects.filter(table=table).order_by("seat")
        return services.load_table(table.pk).deadline, [
            (s.disconnected_at, s.reconnect_deadline) for s in seats
        ]

    deadline, seats = stored()
    before = TurnClock(
        deadline=deadline,
        turn_seconds=30,
        recuento_seconds=15,
        budget_seconds=60,
        seats={i: SeatClock(away_since=a, away_until=u) for i, (a, u) in enumerate(seats)},
    )
    swept_ago(21)  # MUS_SWEEP_SECONDS (1) more than the time lost
    lost = clockwork.catch_up(now)
    assert lost == pytest.approx(20, abs=1)
    expected = before.shifted(timedelta(seconds=lost), now)
    deadline, seats = stored()
    assert deadline == expected.deadline
    assert seats == [(expected.seat(i).away_since, expected.seat(i).away_until) for i in range(4)]
