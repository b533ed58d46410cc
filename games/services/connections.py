"""Sockets coming and going (docs/rules.md §8.3): who may join a table, which sockets each seat
has, and the seat that waits for a player who has none left.

Before the start a seat notes since when its player has had no socket (a host may not start
then, and after MUS_RECONNECT_SECONDS the seat is freed: `tables.free_away_seats`); at the start
(`mark_absent`) a seat with none waits from then, and whether its player ever comes
(`Seat.arrived`) decides between an abandonment and a no-show when the wait runs out.

Every open socket is a `Connection` row naming the server process that holds it; each process
beats (`beat`) every few seconds, and the sockets of a process that went silent (a crash, a
SIGKILL) are dropped by the clock's sweep (`reap_silent_processes`), so a player whose sockets
died with their server is waiting within seconds like one who closed the tab.

A seat waits for its player with a budget for the whole game (`Seat.away_seconds` spent so far,
`Seat.reconnect_deadline` while away), and its turn clock is stopped while it waits
(`Seat.clock_left`): coming back resumes the seconds it had, never a fresh clock. Those rules
are the turn clock's (`games.clock.TurnClock`, its facts written by `services.clock`).
"""

from __future__ import annotations

import os
import secrets
import socket
from collections.abc import Callable, Generator
from dataclasses import dataclass
from datetime import datetime, timedelta
from functools import cache
from typing import Any, NamedTuple

from django.conf import settings
from django.db import connection, transaction
from django.db.models import Model
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from accounts.models import User

from ..models import Connection, Seat, ServerProcess, Table
from . import adb, clock, pipeline, presence
from .access import Session, can_view_in
from .errors import ServiceError, no_table
from .executor import Loop, Step
from .state import ONLOOKER, audience, broadcast
from .storage import load_table

#: This server process, as its sockets' rows name it.
PROCESS = f"{socket.gethostname()}-{os.getpid()}-{secrets.token_hex(4)}"[:64]

# The sockets this process holds (channel -> (table, user)): after its rows were dropped for a
# missed beat (a stalled process, not a dead one), it puts them back.
_LOCAL: dict[str, tuple[int, int]] = {}


@dataclass(frozen=True, slots=True)
class Entry:
    """What a socket that may join a table needs: its audience and the language of its messages."""

    key: str
    language: str
    #: The table as it is with this socket counted.
    table: Table


def join(table_id: int, user: Any, session: Session | None, channel: str) -> Entry:
    """May `user` watch or play at the table? If so, count the socket `channel`.

    Anybody may watch a public table, logged in or not (onlookers see no cards and cannot act
    or chat). Refused (`ServiceError`): a private table for a visitor who is not logged in
    (`login`), and a table that does not exist or is not theirs to see (`no_table`: a private
    table does not reveal that it exists). The others are told a player is here; the joining
    socket is not (it gets a fresh state).
    """
    table = load_table(table_id)
    if user is None or not user.is_authenticated:
        if table is None or table.private:
            raise ServiceError("login", _("Entra con tu cuenta para ver esta mesa."))
        return Entry(ONLOOKER, language_of(user), table)
    if table is None or not can_view_in(table, user, session):
        raise no_table()
    changed = socket_opened(table_id, user.pk, channel)
    presence.touch(user.pk)
    return Entry(audience(table, user), language_of(user), changed or table)


def language_of(user: Any) -> str:
    """The language of a joining socket's messages: its player's, Spanish for a visitor."""
    return getattr(user, "language", "") or "es"


def socket_opened(
    table_id: int, user_id: int, channel: str, process: str = PROCESS
) -> Table | None:
    """Count the socket; the table as it is now if that changed what the others see."""
    counted = _counted(_opening(table_id, user_id, channel, process))
    if process == PROCESS:
        _LOCAL[channel] = (table_id, user_id)
    return _told(counted, skip=channel)


def socket_closed(channel: str) -> None:
    """The socket `channel` closed."""
    _LOCAL.pop(channel, None)
    _told(_counted(_closing(channel)))  # (None: dropped already by the sweep)


def recount(table_id: int, user_id: int, *, skip: str | None = None) -> Table | None:
    """Bring the player's seat at the table in line with their open sockets: a seat left
    without any starts waiting for its player (in a game in play); one that has some again
    stops waiting. The others at the table are told (`skip`: a socket being welcomed), and the
    table they were told of is returned (None: nothing they see changed)."""
    return _told(_counted(_counting(table_id, user_id)), skip=skip)


def _recount(table_id: int, user_id: int) -> bool:
    """`recount` without telling anybody: whether the others must be told."""
    return _counted(_counting(table_id, user_id)).verdict != UNCHANGED


#: What counting a socket leaves to do: nothing others see changed; the others must be told (the
#: seat's count went from none to some or back); or the seat's player comes back or goes away,
#: which changes their clock and reconnection window (`_transition`, the ORM's: the worker
#: thread's, so on the event loop it is left to `recount`).
UNCHANGED, TELL, TRANSITION = "unchanged", "tell", "transition"


class Counted(NamedTuple):
    """A seat's sockets counted: what that leaves to do, and the seat (None: an onlooker)."""

    table_id: int
    user_id: int
    verdict: str
    seat_id: int | None = None
    away: bool = False


async def socket_opening(table_id: int, user_id: int, channel: str) -> str:
    """`socket_opened`'s counting on the event loop: what is left to do (`TELL`, `TRANSITION`:
    the worker's `recount`). Safe to repeat (the row is inserted once)."""
    _LOCAL[channel] = (table_id, user_id)
    try:
        counted = await _counted_on_loop(lambda: _opening(table_id, user_id, channel, PROCESS))
    except BaseException:
        _LOCAL.pop(channel, None)
        raise
    assert counted is not None
    return counted.verdict


async def socket_closing(channel: str) -> Counted | None:
    """`socket_closed`'s counting on the event loop (as `socket_opening`); None if the socket
    was not counted (or dropped already)."""
    _LOCAL.pop(channel, None)
    return await _counted_on_loop(lambda: _closing(channel))


def _counted(steps: Generator[Step, Any, Counted | None]) -> Any:
    """Run counting `steps` here, in one transaction with the transition they call for.

    Sockets come and go in storms (a game ending at many tables, a restart): the usual case, a
    count that changes with nobody coming back or going away, is plain statements; the ORM took
    ten queries, each costing more CPU to build than PostgreSQL took to answer."""
    with transaction.atomic():
        counted: Counted | None = pipeline.run(steps)
        if counted is not None and counted.verdict == TRANSITION:
            assert counted.seat_id is not None
            _transition(counted.seat_id, counted.away)
    return counted


async def _counted_on_loop(
    make_steps: Callable[[], Generator[Step, Any, Counted | None]],
) -> Counted | None:
    """Run counting steps in a transaction on the event loop; once more on a fresh connection
    if this one died (they are safe to repeat)."""

    async def once() -> Counted | None:
        async with adb.transaction() as cursor:
            counted: Counted | None = await pipeline.run_on_loop(make_steps(), Loop(cursor))
        return counted

    return await adb.again_if_dead(once)


def _told(counted: Counted | None, skip: str | None = None) -> Table | None:
    """Tell the others at the table when the count changed what they see; the table told."""
    if counted is None or counted.verdict == UNCHANGED:
        return None
    table = load_table(counted.table_id)
    if table is not None:
        broadcast(table, skip=skip)
    return table


def _opening(
    table_id: int, user_id: int, channel: str, process: str
) -> Generator[Step, Any, Counted]:
    yield Step("fetch", (_open_sql(), [channel, process, table_id, user_id, timezone.now()]))
    return (yield from _counting(table_id, user_id))


def _closing(channel: str) -> Generator[Step, Any, Counted | None]:
    gone = yield Step("fetch", (_close_sql(), [channel]))
    if gone is None:
        return None
    return (yield from _counting(*gone))


def _counting(table_id: int, user_id: int) -> Generator[Step, Any, Counted]:
    """Lock the player's seat and count their sockets at the table (in the caller's
    transaction)."""
    row = yield Step("fetch", (_lock_seat_sql(), [table_id, user_id]))
    if row is None:
        return Counted(table_id, user_id, UNCHANGED)  # an onlooker
    seat_id, before, away, waits, before_start = row
    params = _count_params(table_id, user_id, seat_id, before_start)
    (count,) = (yield Step("fetch", (_count_sql(), params))) or (0,)
    return Counted(table_id, user_id, _verdict(before, count, away, waits), seat_id, away)


def _verdict(before: int, count: int, away: bool, waits: bool) -> str:
    """What a seat's new count of sockets leaves to do (`UNCHANGED`, `TELL`, `TRANSITION`)."""
    if (count and away) or (not count and not away and waits):
        return TRANSITION  # back with a socket, or left without any in a game in play
    return TELL if bool(count) != bool(before) else UNCHANGED


def _transition(seat_id: int, away: bool) -> None:
    """The seat's player comes back (`away`) or goes away: their clock and window change."""
    now = timezone.now()
    seat = Seat.objects.select_related("table", "user").get(pk=seat_id)
    changed = clock.come_back(seat, now) if away else clock.go_away(seat, now)
    seat.save(update_fields=changed)


@cache
def _open_sql() -> str:
    return (
        f"INSERT INTO {_qn(Connection)} (channel, process, table_id, user_id, opened_at) "
        "VALUES (%s, %s, %s, %s, %s) ON CONFLICT (channel) DO NOTHING"
    )


@cache
def _close_sql() -> str:
    return f"DELETE FROM {_qn(Connection)} WHERE channel = %s RETURNING table_id, user_id"


@cache
def _lock_seat_sql() -> str:
    # `away`: waiting for its player in a game in play; `waits`: a seat left without sockets
    # starts waiting for its player (in a game in play; a bot never does); `before_start`: the
    # table has not started (`_count_sql` notes since when the seat has had no socket).
    return (
        f"SELECT s.id, s.connections, "
        f"s.disconnected_at IS NOT NULL AND t.status = '{Table.Status.PLAYING.value}', "
        f"t.status = '{Table.Status.PLAYING.value}' AND NOT u.is_bot, "
        f"t.status = '{Table.Status.OPEN.value}' "
        f"FROM {_qn(Seat)} s JOIN {_qn(Table)} t ON t.id = s.table_id "
        f"JOIN {_qn(User)} u ON u.id = s.user_id "
        "WHERE s.table_id = %s AND s.user_id = %s FOR UPDATE OF s"
    )


@cache
def _count_sql() -> str:
    # A statement of its own, after the seat is locked: it sees every socket opened before.
    # Parameters: table, user, seat, whether the table has not started, now. The player has
    # come (`arrived`) once they have a socket; before the start, `disconnected_at` is since
    # when they have had none (`free_away_seats`).
    return (
        f"UPDATE {_qn(Seat)} s SET connections = c.n, arrived = s.arrived OR c.n > 0, "
        "disconnected_at = CASE WHEN NOT %s THEN s.disconnected_at WHEN c.n > 0 THEN NULL "
        "ELSE coalesce(s.disconnected_at, %s) END "
        f"FROM (SELECT count(*) AS n FROM {_qn(Connection)} WHERE table_id = %s AND user_id = %s) c "
        "WHERE s.id = %s RETURNING s.connections"
    )


def _count_params(table_id: int, user_id: int, seat_id: int, before_start: bool) -> list[Any]:
    return [before_start, timezone.now(), table_id, user_id, seat_id]


def _qn(model: type[Model]) -> str:
    return connection.ops.quote_name(model._meta.db_table)


def away_before_start(table: Table) -> list[Seat]:
    """The seats of `table` whose player (a person) has no socket open there now: a host may
    not start while one is away (docs/rules.md §8.3)."""
    here = set(Connection.objects.filter(table_id=table.pk).values_list("user_id", flat=True))
    return [
        seat
        for seat in table.seats.select_related("user").order_by("seat")
        if not seat.user.is_bot and seat.user_id not in here
    ]


def mark_absent(table: Table) -> None:
    """At the start: a seat whose player has no socket open is waiting from now (§8.3), and
    whoever has one has come (`Seat.arrived`); time away before the start costs nothing."""
    now = timezone.now()
    for seat in table.seats.select_related("user").select_for_update():
        if seat.user.is_bot:
            continue
        seat.connections = Connection.objects.filter(
            table_id=table.pk, user_id=seat.user_id
        ).count()
        seat.arrived = bool(seat.connections)
        seat.disconnected_at = None if seat.connections else now
        seat.reconnect_deadline = None if seat.connections else clock.window(seat, now)
        seat.save(update_fields=["connections", "arrived", "disconnected_at", "reconnect_deadline"])


# --------------------------------------------------------------------------------------------
# Server processes.
# --------------------------------------------------------------------------------------------
def beat(process: str = PROCESS) -> bool:
    """This process is alive. True when it had been given up for dead (or is new): then the
    sockets it still holds are counted again."""
    now = timezone.now()
    if ServerProcess.objects.filter(name=process).update(beat_at=now):
        return False
    ServerProcess.objects.update_or_create(name=process, defaults={"beat_at": now})
    if process == PROCESS and _LOCAL:
        # All at once: hundreds of sockets, one statement; each table told once.
        Connection.objects.bulk_create(
            [
                Connection(channel=channel, process=process, table_id=table_id, user_id=user_id)
                for channel, (table_id, user_id) in _LOCAL.items()
            ],
            ignore_conflicts=True,
        )
        changed = {t for t, u in set(_LOCAL.values()) if _recount(t, u)}
        for table_id in sorted(changed):
            broadcast(table_id)
    return True


def reconcile() -> None:
    """The rows of this process's sockets are the sockets it holds: a socket that closed while
    the database was down (its row could not be deleted) goes now, and one whose row is missing
    is counted again. Presence after an outage comes from these beats, not from before."""
    stored = dict(Connection.objects.filter(process=PROCESS).values_list("channel", "table_id"))
    for channel in stored.keys() - _LOCAL.keys():
        socket_closed(channel)
    for channel in _LOCAL.keys() - stored.keys():
        table_id, user_id = _LOCAL[channel]
        socket_opened(table_id, user_id, channel)


def forget_local_sockets() -> None:
    """Forget the sockets this process holds (tests: each test has its own database state)."""
    _LOCAL.clear()


def reap_silent_processes() -> int:
    """Drop the sockets of every process that missed its beats; returns how many."""
    limit = timezone.now() - timedelta(seconds=settings.MUS_PROCESS_TIMEOUT_SECONDS)
    dropped = 0
    for name in ServerProcess.objects.filter(beat_at__lt=limit).values_list("name", flat=True):
        with transaction.atomic():
            rows = Connection.objects.select_for_update().filter(process=name)
            seats = set(rows.values_list("table_id", "user_id"))
            dropped += rows.delete()[0]
            ServerProcess.objects.filter(name=name, beat_at__lt=limit).delete()
        for table_id, user_id in seats:
            recount(table_id, user_id)
    return dropped


# --------------------------------------------------------------------------------------------
# The budget runs out.
# --------------------------------------------------------------------------------------------
def overdue_seats(now: datetime) -> Any:
    """Seats of games in play whose wait ran out (`finish.cancel_if_abandoned` ends their games)."""
    return Seat.objects.filter(
        table__status=Table.Status.PLAYING, reconnect_deadline__lte=now, connections=0
    ).exclude(table__quick=True, arrived=False)
