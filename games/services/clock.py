"""The turn clock's facts (docs/rules.md §8.2-8.3): read from a table and its seats into a
`games.clock.TurnClock`, and written back when a seat goes away or comes back, a game starts
or sweeps stopped for an outage.

Every question about a clock («when does this turn run out», «how long does seat 2 have left»,
«how much of their budget is left») is the value's; this module only knows where its facts are
stored. What runs the clock (the sweep that plays overdue turns, the catch-up after an outage)
is `services.clockwork`; `moves` asks the value for a new step's deadline and `state` for what
browsers are shown.
"""

from __future__ import annotations

from collections.abc import Collection
from datetime import datetime, timedelta

from django.conf import settings
from django.db.models import F
from django.db.models.functions import Least

from ..clock import SeatClock, TurnClock
from ..models import Seat, Table
from .storage import game_of, load_table, seat_rows
from .turns import to_act

#: What `go_away` and `come_back` change on a seat.
GO_AWAY_FIELDS = ["disconnected_at", "reconnect_deadline", "clock_left", "clock_step"]
COME_BACK_FIELDS = [*GO_AWAY_FIELDS, "away_seconds"]


def turn_seconds(table: Table) -> int:
    """The turn clock of `table` (docs/rules.md §8.2): its own if it has one, else the site's."""
    return table.turn_seconds or settings.MUS_TURN_SECONDS


def _iso(moment: str | None) -> datetime | None:
    return None if moment is None else datetime.fromisoformat(moment)


def _facts(seat: Seat) -> SeatClock:
    return SeatClock(
        away_seconds=seat.away_seconds,
        away_since=seat.disconnected_at,
        away_until=seat.reconnect_deadline,
        left=seat.clock_left,
        step=seat.clock_step,
    )


def clock_of(
    table: Table | None, acting: Collection[int] = (), *, seat: Seat | None = None
) -> TurnClock:
    """The clock of `table` as stored, with `acting` the seats to act now; `seat`, a seat row
    read with all its facts (the table's seat rows carry the budget, not a stopped clock).
    Without a table, the clock of `seat` alone: its budget."""
    seats: dict[int, SeatClock] = {}
    if table is not None:
        for row in seat_rows(table):
            # Built on every move and every state: a seat never away has nothing to tell (the
            # value's default), and most seats of most games never are.
            if row["away_until"] is not None or row["away_seconds"]:
                seats[row["seat"]] = SeatClock(row["away_seconds"], None, _iso(row["away_until"]))
    if seat is not None:
        seats[seat.seat] = _facts(seat)
    return TurnClock(
        deadline=None if table is None else table.deadline,
        turn_seconds=settings.MUS_TURN_SECONDS if table is None else turn_seconds(table),
        recuento_seconds=settings.MUS_RECUENTO_SECONDS,
        budget_seconds=settings.MUS_RECONNECT_SECONDS,
        step=0 if table is None else table.step_version,
        to_act=tuple(acting),
        seats=seats,
    )


def clock_in_play(table: Table | None, *, seat: Seat | None = None) -> TurnClock:
    """`clock_of` with the seats to act in the table's game (none if it has no game)."""
    game = None if table is None else game_of(table)
    acting = () if table is None or game is None else to_act(table, game)
    return clock_of(table, acting, seat=seat)


# --------------------------------------------------------------------------------------------
# A seat's player goes away and comes back (written in the caller's transaction, the seat
# locked: `connections`).
# --------------------------------------------------------------------------------------------
def go_away(seat: Seat, now: datetime) -> list[str]:
    """The seat starts waiting: its window is what is left of the budget, its clock stops.
    Returns the fields to save."""
    clock = clock_in_play(load_table(seat.table_id), seat=seat)
    seat.disconnected_at = now
    seat.reconnect_deadline = clock.window(seat.seat, now)
    seat.clock_left, seat.clock_step = clock.stopped(seat.seat, now)
    return GO_AWAY_FIELDS


def come_back(seat: Seat, now: datetime) -> list[str]:
    """The player is back: the time away is spent from the budget, and if it is their turn the
    clock runs again with what it had left (the whole turn if it came while they were away).
    Returns the fields to save."""
    assert seat.disconnected_at is not None
    table = load_table(seat.table_id)
    clock = clock_in_play(table, seat=seat)
    seat.away_seconds = clock.spent(seat.seat, now)
    deadline = clock.resumed(seat.seat, now)
    if table is not None and deadline is not None:
        # Not a new version: the clock is not part of the game; a move made meanwhile set its
        # own deadline and wins.
        Table.objects.filter(pk=table.pk, version=table.version).update(deadline=deadline)
    seat.disconnected_at = seat.reconnect_deadline = None
    seat.clock_left = seat.clock_step = None
    return COME_BACK_FIELDS


def window(seat: Seat, now: datetime) -> datetime:
    """Until when `seat` waits if its player is missing from `now` (what is left of its budget)."""
    return clock_of(None, seat=seat).window(seat.seat, now)


# --------------------------------------------------------------------------------------------
# After an outage, for every table at once.
# --------------------------------------------------------------------------------------------
def shift_all(lost: timedelta, now: datetime) -> int:
    """`TurnClock.shifted` for every table at once (after an outage, in the caller's
    transaction): one statement per kind of row, not one per table. Returns the turn clocks
    moved."""
    playing = Table.objects.filter(status=Table.Status.PLAYING)
    moved = playing.filter(deadline__isnull=False).update(deadline=F("deadline") + lost)
    Seat.objects.filter(table__in=playing, disconnected_at__isnull=False).update(
        # The time away counted when the player comes back leaves the outage out (and is never
        # negative, for a seat that started waiting during the outage).
        disconnected_at=Least(F("disconnected_at") + lost, now),
        reconnect_deadline=F("reconnect_deadline") + lost,
    )
    # Nor a seat at a table that has not started (`tables.free_away_seats`).
    Seat.objects.filter(table__status=Table.Status.OPEN, disconnected_at__isnull=False).update(
        disconnected_at=Least(F("disconnected_at") + lost, now)
    )
    return moved
