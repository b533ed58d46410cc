"""Turn clocks, disconnections, races and restarts, with real Celery workers and daphne processes."""

from __future__ import annotations

import contextlib
import json
import signal
import threading
import time
from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone
from websockets.sync.client import connect

from accounts.models import User
from games import engine, services
from games.models import Seat, Table
from games.tasks import sweep_deadlines
from tests.factories import session_cookie, started_table
from tests.live import celery_worker, daphne_process, daphne_server, wait_until
from tests.sockets import leaked_cards

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.filterwarnings("ignore:connect\\(\\) must be used as a context manager"),
]


def overdue(table: Table) -> Table:
    Table.objects.filter(pk=table.pk).update(deadline=timezone.now() - timedelta(seconds=1))
    table.refresh_from_db()
    return table


@pytest.mark.slow
def test_a_turn_deadline_plays_the_default_through_a_real_worker_and_beat(
    four_players: list[User], settings: Any
) -> None:
    settings.MUS_TURN_SECONDS = 1
    with celery_worker(beat=True, MUS_SWEEP_SECONDS="1"):
        table = started_table(four_players)
        mano = table.record["first_mano"]
        wait_until(lambda: Table.objects.get(pk=table.pk).version > table.version)
    table.refresh_from_db()
    # Played by the clock, and marked so in the record (docs/game-record.md) and the view.
    assert table.record["hands"][0]["actions"][0] == {"seat": mano, "act": "corto", "by": "clock"}
    assert table.phase == "lance"
    said = services.state_for(table, four_players[0])["said"]
    assert said[0] == {"seat": mano, "act": "corto", "by": "clock"}
    assert engine.replay_result(table.record)["scores"] == list(table.scores)


def test_the_defaults_played_twice_or_for_an_old_turn_change_nothing_more(
    four_players: list[User],
) -> None:
    table = overdue(started_table(four_players))
    assert services.play_defaults(table.pk, table.version - 1) == 0
    assert services.play_defaults(table.pk, table.version) == 1
    after = Table.objects.get(pk=table.pk)
    assert after.version == table.version + 1
    assert services.play_defaults(table.pk, table.version) == 0
    assert Table.objects.get(pk=table.pk).version == after.version


def test_a_sweep_before_the_deadline_does_nothing(four_players: list[User]) -> None:
    table = started_table(four_players)
    assert sweep_deadlines() == 0
    assert services.play_defaults(table.pk, table.version) == 0
    assert Table.objects.get(pk=table.pk).version == table.version


def test_the_beat_sweep_catches_a_deadline_whose_task_was_lost(four_players: list[User]) -> None:
    table = overdue(started_table(four_players))
    assert sweep_deadlines() >= 1
    assert Table.objects.get(pk=table.pk).version == table.version + 1


def test_the_clock_plays_the_defaults_for_every_seat_of_a_simultaneous_vote(
    four_players: list[User],
) -> None:
    table = started_table(four_players)
    game = services.game_of(table)
    for seat in [game.mano, (game.mano + 1) % 4, (game.mano + 2) % 4, (game.mano + 3) % 4]:
        services.apply_action(table, engine.Action(seat, "mus"))
        table.refresh_from_db()
    assert table.phase == "descarte"
    table = overdue(table)
    assert services.play_defaults(table.pk, table.version) == 4
    table.refresh_from_db()
    discards = [a for a in table.record["hands"][0]["actions"] if a["act"] == "descarte"]
    assert len(discards) == 4 and all(len(a["cards"]) == 1 for a in discards)


def test_the_clock_is_stopped_for_a_seat_whose_player_is_away(four_players: list[User]) -> None:
    table = started_table(four_players)
    mano = services.game_of(table).mano
    Seat.objects.filter(table=table, seat=mano).update(
        reconnect_deadline=timezone.now() + timedelta(seconds=60)
    )
    table = overdue(table)
    assert services.play_defaults(table.pk, table.version) == 0
    assert Table.objects.get(pk=table.pk).version == table.version


def to_recuento(table: Table) -> Table:
    """Let the clock play the hand out to its recuento."""
    for _ in range(400):
        table.refresh_from_db()
        if table.phase == "recuento" or table.status != Table.Status.PLAYING:
            break
        services.play_defaults(overdue(table).pk, table.version)
    table.refresh_from_db()
    assert table.phase == "recuento"
    return table


def seguir(table: Table, player: User) -> None:
    table.refresh_from_db()
    services.act(player, table.pk, table.version, {"act": "repartir"})


def test_the_next_hand_comes_when_all_four_have_pressed_seguir(four_players: list[User]) -> None:
    """docs/rules.md §8.2: nobody deals by hand; each player says they are ready."""
    table = to_recuento(started_table(four_players))
    state = services.state_for(table, four_players[2])
    assert state["you"]["legal"] == [{"act": "repartir"}] and state["to_act"] == [0, 1, 2, 3]
    assert (table.deadline - timezone.now()).total_seconds() > 10  # MUS_RECUENTO_SECONDS
    for player in four_players[:3]:
        seguir(table, player)
    table.refresh_from_db()
    assert table.phase == "recuento" and table.ready_seats == [0, 1, 2]
    state = services.state_for(table, four_players[0])
    assert state["ready"] == [0, 1, 2] and state["to_act"] == [3] and state["you"]["legal"] == []
    with pytest.raises(services.ServiceError) as excinfo:
        seguir(table, four_players[0])
    assert excinfo.value.code == "already_ready"
    seguir(table, four_players[3])
    table.refresh_from_db()
    assert table.phase == "mus" and len(table.record["hands"]) == 2 and table.ready_seats == []


def test_the_next_hand_comes_when_the_recuento_clock_runs_out(four_players: list[User]) -> None:
    table = to_recuento(started_table(four_players))
    seguir(table, four_players[1])
    table = overdue(table)
    assert services.play_defaults(table.pk, table.version) == 1
    table.refresh_from_db()
    assert table.phase == "mus" and len(table.record["hands"]) == 2


def test_a_player_who_is_away_does_not_hold_up_the_next_hand(four_players: list[User]) -> None:
    table = to_recuento(started_table(four_players))
    Seat.objects.filter(table=table, user=four_players[0]).update(
        reconnect_deadline=timezone.now() + timedelta(seconds=60)
    )
    assert services.state_for(table, four_players[1])["to_act"] == [1, 2, 3]
    for player in four_players[1:]:
        seguir(table, player)
    table.refresh_from_db()
    assert table.phase == "mus" and len(table.record["hands"]) == 2


def test_two_concurrent_actions_for_the_same_turn_apply_exactly_once(
    four_players: list[User],
) -> None:
    table = started_table(four_players)
    mano = services.game_of(table).mano
    barrier = threading.Barrier(2)
    results: list[str] = []

    def send(act: str) -> None:
        barrier.wait()
        try:
            services.act(four_players[mano], table.pk, table.version, {"act": act})
            results.append("ok")
        except services.ServiceError as exc:
            results.append(exc.code)
        finally:
            from django.db import connection

            connection.close()

    threads = [threading.Thread(target=send, args=(act,)) for act in ("mus", "corto")]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results.count("ok") == 1
    assert {r for r in results if r != "ok"} <= {"conflict", "stale", "not_your_turn"}
    table.refresh_from_db()
    assert len(table.record["hands"][0]["actions"]) == 1


def ws_url(base: str, table: Table) -> str:
    return base.replace("http://", "ws://") + f"/ws/mesas/{table.pk}/"


def open_socket(base: str, table: Table, user: User) -> Any:
    return connect(
        ws_url(base, table),
        additional_headers={"Cookie": session_cookie(user), "Origin": base},
        open_timeout=10,
    )


def next_state(
    sock: Any, seat: int | None = None, timeout: float = 10, after: int = -1
) -> dict[str, Any]:
    """The next `state` with a version above `after` (presence changes resend the same one)."""
    while True:
        message = json.loads(sock.recv(timeout=timeout))
        assert not leaked_cards(message, seat), message
        if message["type"] == "state" and message["v"] > after:
            return message


@pytest.mark.slow
def test_a_daphne_killed_mid_game_leaves_no_phantom_seat(four_players: list[User]) -> None:
    """Its sockets never said goodbye: once the process stops beating, the sweep drops them
    and every seat waits for its player (docs/rules.md §8.3), within seconds."""
    table = started_table(four_players)
    with (
        celery_worker(beat=True, MUS_SWEEP_SECONDS="1", MUS_PROCESS_TIMEOUT_SECONDS="3"),
        daphne_server(MUS_PROCESS_BEAT_SECONDS="1") as (base, proc),
    ):
        socks = [open_socket(base, table, player) for player in four_players]
        for seat, sock in enumerate(socks):
            next_state(sock, seat)
        wait_until(lambda: set(seats(table, "connections")) == {1})
        proc.send_signal(signal.SIGKILL)
        proc.wait(10)
        assert set(seats(table, "connections")) == {1}  # nobody said goodbye
        killed = time.monotonic()
        wait_until(lambda: set(seats(table, "connections")) == {0}, timeout=20)
        waited = time.monotonic() - killed
    assert None not in seats(table, "reconnect_deadline")
    assert waited < 15
    assert Table.objects.get(pk=table.pk).status == Table.Status.PLAYING  # waiting, not gone


def seats(table: Table, field: str) -> list[Any]:
    return list(Seat.objects.filter(table=table).order_by("seat").values_list(field, flat=True))


@pytest.mark.slow
def test_a_table_works_with_its_players_on_two_daphne_processes(four_players: list[User]) -> None:
    table = started_table(four_players)
    with daphne_process() as first, daphne_process() as second:
        bases = [first, second, first, second]
        sockets = [open_socket(bases[i], table, p) for i, p in enumerate(four_players)]
        states = [next_state(s, i) for i, s in enumerate(sockets)]
        for _ in range(6):
            mover = next(i for i in range(4) if states[i]["you"]["legal"])
            legal = states[mover]["you"]["legal"][0]
            action: dict[str, Any] = {
                "type": "action",
                "v": states[mover]["v"],
                "act": legal["act"],
            }
            if legal["act"] == "descarte":
                action["cards"] = states[mover]["you"]["cards"][:1]
            if legal["act"] == "envido":
                action["to"] = legal["min"]
            sockets[mover].send(json.dumps(action))
            target = states[mover]["v"] + 1
            for i, sock in enumerate(sockets):
                while states[i]["v"] < target:
                    states[i] = next_state(sock, i)
        assert len({s["v"] for s in states}) == 1
        for sock in sockets:
            sock.close()


@pytest.mark.slow
def test_restarting_daphne_mid_hand_loses_nothing(four_players: list[User]) -> None:
    table = started_table(four_players)
    mano = services.game_of(table).mano
    with daphne_process() as base:
        sock = open_socket(base, table, four_players[mano])
        before = next_state(sock, mano)
        sock.send(json.dumps({"type": "action", "v": before["v"], "act": "mus"}))
        after = next_state(sock, mano, after=before["v"])
        assert after["v"] == before["v"] + 1
        sock.close()
    port = int(base.rsplit(":", 1)[1])
    with daphne_process(port) as again:
        sock = open_socket(again, table, four_players[mano])
        resumed = next_state(sock, mano)
        assert resumed["v"] == after["v"]
        assert resumed["you"]["cards"] == after["you"]["cards"]
        sock.close()
        nxt = (mano + 1) % 4
        other = open_socket(again, table, four_players[nxt])
        state = next_state(other, nxt)
        assert state["you"]["legal"]
        other.send(json.dumps({"type": "action", "v": state["v"], "act": "corto"}))
        assert next_state(other, nxt, after=state["v"])["v"] == state["v"] + 1
        other.close()


@pytest.mark.slow
def test_a_player_who_reconnects_in_time_gets_the_seat_and_cards_back(
    four_players: list[User], settings: Any
) -> None:
    table = started_table(four_players)
    with daphne_process() as base:
        sock = open_socket(base, table, four_players[2])
        first = next_state(sock, 2)
        sock.close()
        wait_until(lambda: Seat.objects.get(table=table, seat=2).reconnect_deadline is not None)
        watcher = open_socket(base, table, four_players[0])
        seen = next_state(watcher, 0)
        assert seen["seats"][2]["connected"] is False
        assert seen["seats"][2]["away_until"]
        back = open_socket(base, table, four_players[2])
        again = next_state(back, 2)
        assert again["you"]["cards"] == first["you"]["cards"]
        assert Seat.objects.get(table=table, seat=2).reconnect_deadline is None
        assert services.cancel_if_abandoned(table.pk) is False
        assert Table.objects.get(pk=table.pk).status == Table.Status.PLAYING
        back.close()
        watcher.close()


@pytest.mark.slow
def test_a_player_who_does_not_come_back_gets_the_game_cancelled(
    four_players: list[User],
) -> None:
    table = started_table(four_players)
    with (
        daphne_process(MUS_RECONNECT_SECONDS="1") as base,
        celery_worker(beat=True, MUS_SWEEP_SECONDS="1"),
    ):
        watcher = open_socket(base, table, four_players[0])
        next_state(watcher, 0)
        leaver = open_socket(base, table, four_players[3])
        next_state(leaver, 3)
        leaver.close()
        deadline = time.monotonic() + 30
        state: dict[str, Any] = {}
        while time.monotonic() < deadline and state.get("phase") != "cancelada":
            with contextlib.suppress(TimeoutError):  # (the sweep runs once a second)
                state = next_state(watcher, 0)
        assert state["phase"] == "cancelada"
        assert state["record_url"] == f"/partidas/{table.pk}/registro.json"
        watcher.close()
    table.refresh_from_db()
    assert table.status == Table.Status.CANCELLED
    assert table.cancel_reason == "abandono"
    assert not Seat.objects.filter(table=table, active=True).exists()
    assert engine.replay_result(table.record)["winner"] is None
