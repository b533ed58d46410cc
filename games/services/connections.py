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
from dataclasses import dataclass
from datetime import datetime, timedelta
from functools import cache
from typing import Any

from django.conf import settings
from django.db import connection, transaction
from django.db.models import Model
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from accounts.models import User

from ..models import Connection, Seat, ServerProcess, Table
from . import adb, clock, presence
from .access import Session, can_view_in
from .errors import ServiceError, no_table
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
    with connection.cursor() as cursor:
        cursor.execute(_open_sql(), [channel, process, table_id, user_id, timezone.now()])
    if process == PROCESS:
        _LOCAL[channel] = (table_id, user_id)
    return recount(table_id, user_id, skip=channel)


#: What counting a socket on the event loop leaves to do: nothing others see changed; the others
#: must be told (the seat's count went from none to some or back); or the seat's player comes
#: back or goes away, which changes their clock and reconnection window (`recount`, whose ORM
#: runs in the worker thread).
UNCHANGED, TELL, TRANSITION = "unchanged", "tell", "transition"


async def socket_opened_here(table_id: int, user_id: int, channel: str) -> str:
    """`socket_opened`'s counting on the event loop: the socket's row, its seat locked, the
    seat's sockets counted, in one transaction. Safe to repeat (the row is inserted once), so a
    connection found dead is replaced and it runs again, once."""
    _LOCAL[channel] = (table_id, user_id)
    opened = [channel, PROCESS, table_id, user_id, timezone.now()]
    try:
        return await adb.again_if_dead(lambda: _recount_here(table_id, user_id, opened))
    except BaseException:
        _LOCAL.pop(channel, None)
        raise


async def socket_closed_here(channel: str) -> tuple[int, int, str] | None:
    """`socket_closed` on the event loop: the table and player whose socket it was and what is
    left to do (as `socket_opened_here`); None if it was not counted (or dropped already)."""
    _LOCAL.pop(channel, None)
    gone = await adb.fetch_one(_close_sql(), [channel])
    if gone is None:
        return None
    table_id, user_id = gone
    return table_id, user_id, await adb.again_if_dead(lambda: _recount_here(table_id, user_id))


async def _recount_here(table_id: int, user_id: int, opened: list[Any] | None = None) -> str:
    """`_recount` on the event loop (after inserting the socket's row, `opened`), but for a
    transition, left to `recount`."""
    async with adb.transaction() as cursor:
        if opened is not None:
            await cursor.execute(_open_sql(), opened)
        await cursor.execute(_lock_seat_sql(), [table_id, user_id])
        row = await cursor.fetchone()
        if row is None:
            return UNCHANGED  # an onlooker
        seat_id, before, away, waits, before_start = row
        await cursor.execute(_count_sql(), _count_params(table_id, user_id, seat_id, before_start))
        (count,) = await cursor.fetchone() or (0,)
    return _verdict(before, count, away, waits)


def _verdict(before: int, count: int, away: bool, waits: bool) -> str:
    """What a seat's new count of sockets leaves to do (`UNCHANGED`, `TELL`, `TRANSITION`):
    one definition for the worker thread's `_recount` and the event loop's."""
    if (count and away) or (not count and not away and waits):
        return TRANSITION  # back with a socket, or left without any in a game in play
    return TELL if bool(count) != bool(before) else UNCHANGED


def socket_closed(channel: str) -> None:
    """The socket `channel` closed."""
    _LOCAL.pop(channel, None)
    with connection.cursor() as cursor:
        cursor.execute(_close_sql(), [channel])
        gone = cursor.fetchone()
    if gone is not None:  # (else already dropped by the sweep)
        recount(*gone)


def recount(table_id: int, user_id: int, *, skip: str | None = None) -> Table | None:
    """Bring the player's seat at the table in line with their open sockets: a seat left
    without any starts waiting for its player (in a game in play); one that has some again
    stops waiting. The others at the table are told (`skip`: a socket being welcomed), and the
    table they were told of is returned (None: nothing they see changed)."""
    if not _recount(table_id, user_id):
        return None
    table = load_table(table_id)
    if table is not None:
        broadcast(table, skip=skip)
    return table


def _recount(table_id: int, user_id: int) -> bool:
    """`recount` without telling anybody: whether the others must be told.

    Sockets come and go in storms (a game ending at many tables, a restart): the usual case, a
    count that changes with nobody coming back or going away, is two plain statements; the ORM
    took ten queries, each costing more CPU to build than PostgreSQL took to answer."""
    now = timezone.now()
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(_lock_seat_sql(), [table_id, user_id])
        row = cursor.fetchone()
        if row is None:
            return False  # an onlooker
        seat_id, before, away, waits, before_start = row
        cursor.execute(_count_sql(), _count_params(table_id, user_id, seat_id, before_start))
        (count,) = cursor.fetchone()
        verdict = _verdict(before, count, away, waits)
        if verdict == TRANSITION:
            seat = Seat.objects.select_related("table", "user").get(pk=seat_id)
            changed = clock.come_back(seat, now) if away else clock.go_away(seat, now)
            seat.save(update_fields=changed)
    return verdict != UNCHANGED


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
