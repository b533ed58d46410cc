"""The turn clock as a value (docs/rules.md §8.2-8.3): what is stored of a table's clock, and
every rule that reads it, with no Django and no I/O.

A table stores its clock as facts: the deadline of the step being played, the step (the table's
`step_version`), the length of a turn, and per seat its reconnection budget (seconds spent away
in earlier waits, since when and until when it waits now) and, while it waits, the turn clock it
stopped with. `TurnClock` answers from those facts alone: when the clock of a new step runs out,
what a seat that goes away keeps, what one that comes back gets, how the clock moves after an
outage, how much of a seat's budget is left, and how long a seat has left now.
`games.services.clock` reads and writes the facts; everything else asks it (tests/games/
test_turn_clock.py tests the rules on their own).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta


@dataclass(frozen=True, slots=True)
class SeatClock:
    """One seat's facts: its reconnection budget, and the turn clock it stopped with."""

    #: Seconds of the budget spent in earlier waits this game (`Seat.away_seconds`).
    away_seconds: float = 0.0
    #: Since when the seat waits for its player (`Seat.disconnected_at`), if it does.
    away_since: datetime | None = None
    #: Until when it waits (`Seat.reconnect_deadline`): set while the seat waits in play.
    away_until: datetime | None = None
    #: The seconds its turn clock had when it stopped, and in which step (`Seat.clock_left`,
    #: `Seat.clock_step`).
    left: float | None = None
    step: int | None = None

    @property
    def away(self) -> bool:
        """Waiting for its player: its turn clock is stopped (§8.3)."""
        return self.away_until is not None


NOBODY = SeatClock()


@dataclass(frozen=True, slots=True)
class TurnClock:
    """A table's turn clock and its seats' reconnection budgets, as stored."""

    #: When the clock plays for the seats to act (None: no clock runs).
    deadline: datetime | None
    #: A turn, and the recuento's wait for «Seguir» (§8.2); the budget for a game (§8.3).
    turn_seconds: int
    recuento_seconds: int
    budget_seconds: int
    #: The step being played (`Table.step_version`): a stopped clock resumes only in its own step.
    step: int = 0
    #: The seats that may act now, as every browser is told (`services.turns.to_act`).
    to_act: tuple[int, ...] = ()
    seats: Mapping[int, SeatClock] = field(default_factory=dict)

    def seat(self, seat: int) -> SeatClock:
        return self.seats.get(seat, NOBODY)

    @property
    def away(self) -> frozenset[int]:
        """The seats waiting for their player."""
        return frozenset(s for s, facts in self.seats.items() if facts.away)

    # ---------------------------------------------------------------------------------------
    # The turn.
    # ---------------------------------------------------------------------------------------
    def next_deadline(
        self, now: datetime, acting: Collection[int], *, over: bool, recuento: bool
    ) -> datetime | None:
        """When the clock of a new step runs out (its seats to act `acting`), or None when it is
        stopped: the game is `over`, or every seat to act is waiting for its player (§8.3). At
        the `recuento` the next hand comes at the latest then, whoever is away."""
        if over:
            return None
        if recuento:
            return now + timedelta(seconds=self.recuento_seconds)
        if acting and set(acting) <= self.away:
            return None
        return now + timedelta(seconds=self.turn_seconds)

    def step_seconds(self, recuento: bool) -> int:
        """The whole length of the clock of a step: the recuento's, or a turn."""
        return self.recuento_seconds if recuento else self.turn_seconds

    @property
    def running(self) -> bool:
        """A clock counts down for somebody: there is a deadline and a seat to act is present."""
        return self.deadline is not None and any(s not in self.away for s in self.to_act)

    @property
    def shown_deadline(self) -> datetime | None:
        """The deadline browsers count down: none while every seat to act is away, their clocks
        stopped (the stored deadline stays, for whoever acts first when they come back)."""
        return self.deadline if self.running else None

    def ran_out(self, now: datetime) -> bool:
        """The clock of this step has run out: time for the safe defaults (§8.2)."""
        return self.deadline is not None and self.deadline <= now

    def plays_for(self) -> list[int]:
        """The seats the clock plays for when it runs out: those to act that are present."""
        return [s for s in self.to_act if not self.seat(s).away]

    def seconds_left(self, seat: int, now: datetime) -> float | None:
        """How long `seat` has left now: None when it is not to act or no clock runs for it; for
        a seat that waits, what it would resume with (`resumed`)."""
        if seat not in self.to_act:
            return None
        if self.seat(seat).away:
            return self._kept(seat)
        if self.deadline is None:
            return None
        return max(0.0, (self.deadline - now).total_seconds())

    # ---------------------------------------------------------------------------------------
    # Going away and coming back (§8.3).
    # ---------------------------------------------------------------------------------------
    def stopped(self, seat: int, now: datetime) -> tuple[float | None, int | None]:
        """The seat's player goes away: the turn clock it keeps (seconds, step), or (None, None)
        when it is not its turn. Its whole turn if no clock ran (the turn came while every seat
        to act was away)."""
        if seat not in self.to_act:
            return None, None
        if self.deadline is None:
            return self.turn_seconds, self.step
        return max(0.0, (self.deadline - now).total_seconds()), self.step

    def _kept(self, seat: int) -> float:
        """What a waiting seat's clock resumes with: what it stopped with in this step, else the
        whole turn (the turn came while it was away)."""
        facts = self.seat(seat)
        if facts.step == self.step and facts.left is not None:
            return facts.left
        return self.turn_seconds

    def resumed(self, seat: int, now: datetime) -> datetime | None:
        """The seat's player is back: the table's new deadline if it is their turn (None: no
        change). Never earlier than the stored one: the others on the clock in this step keep
        theirs."""
        if seat not in self.to_act:
            return None
        deadline = now + timedelta(seconds=self._kept(seat))
        if self.deadline is not None and self.deadline > deadline:
            return self.deadline
        return deadline

    def budget_left(self, seat: int) -> float:
        """Seconds of the seat's reconnection budget not spent in earlier waits."""
        return max(0.0, self.budget_seconds - self.seat(seat).away_seconds)

    def window(self, seat: int, now: datetime) -> datetime:
        """Until when the seat waits if its player goes away `now`: what is left of the budget,
        never a fresh window."""
        return now + timedelta(seconds=self.budget_left(seat))

    def spent(self, seat: int, now: datetime) -> float:
        """The budget spent once the seat's player is back `now` (this wait added)."""
        facts = self.seat(seat)
        waited = 0.0 if facts.away_since is None else (now - facts.away_since).total_seconds()
        return facts.away_seconds + waited

    def away_budget(self, seat: int, now: datetime) -> int:
        """Whole seconds left of the seat's reconnection budget for this game: until its window
        closes while it waits, else what earlier waits left."""
        until = self.seat(seat).away_until
        if until is not None:
            return max(0, round((until - now).total_seconds()))
        return max(0, round(self.budget_left(seat)))

    # ---------------------------------------------------------------------------------------
    # An outage (services.clockwork).
    # ---------------------------------------------------------------------------------------
    def shifted(self, lost: timedelta, now: datetime) -> TurnClock:
        """The clock after sweeps stopped for `lost`: nobody is charged for an outage. The turn
        and every window move on by it; a wait's start too, but never past `now` (a seat that
        started waiting during the outage counts its time away from now, never negative)."""
        seats = {
            seat: facts
            if facts.away_since is None
            else replace(
                facts,
                away_since=min(facts.away_since + lost, now),
                away_until=None if facts.away_until is None else facts.away_until + lost,
            )
            for seat, facts in self.seats.items()
        }
        deadline = None if self.deadline is None else self.deadline + lost
        return replace(self, deadline=deadline, seats=seats)
