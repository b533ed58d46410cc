"""The turn clock's rules as a pure value (games.clock.TurnClock), with no database: a new step's
deadline, a seat's clock stopped and resumed, the reconnection budget, an outage."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta
from typing import Any

from games.clock import SeatClock, TurnClock

NOW = datetime(2026, 12, 5, 18, 0, tzinfo=UTC)


def secs(n: float) -> timedelta:
    return timedelta(seconds=n)


def clock(**fields: Any) -> TurnClock:
    base = TurnClock(deadline=None, turn_seconds=30, recuento_seconds=15, budget_seconds=60, step=7)
    return replace(base, **fields)


def away(**fields: Any) -> SeatClock:
    return SeatClock(away_since=NOW - secs(5), away_until=NOW + secs(55), **fields)


def test_a_new_step_gets_a_whole_turn() -> None:
    assert clock().next_deadline(NOW, [1], over=False, recuento=False) == NOW + secs(30)


def test_the_recuento_waits_its_own_time_whoever_is_away() -> None:
    c = clock(seats={0: away(), 1: away(), 2: away(), 3: away()})
    assert c.next_deadline(NOW, [], over=False, recuento=True) == NOW + secs(15)
    assert c.step_seconds(recuento=True) == 15 and c.step_seconds(recuento=False) == 30


def test_no_clock_runs_when_the_game_is_over_or_every_seat_to_act_is_away() -> None:
    c = clock(seats={1: away(), 3: away()})
    assert c.next_deadline(NOW, [0], over=True, recuento=False) is None
    assert c.next_deadline(NOW, [1, 3], over=False, recuento=False) is None
    assert c.next_deadline(NOW, [1, 2], over=False, recuento=False) == NOW + secs(30)


def test_browsers_are_shown_no_deadline_while_every_seat_to_act_is_away() -> None:
    deadline = NOW + secs(12)
    assert clock(deadline=deadline, to_act=(1,)).shown_deadline == deadline
    stopped = clock(deadline=deadline, to_act=(1,), seats={1: away()})
    assert stopped.shown_deadline is None and not stopped.running
    assert clock(deadline=deadline, to_act=()).shown_deadline is None
    assert clock(to_act=(1,)).shown_deadline is None


def test_the_clock_plays_for_the_present_seats_to_act_once_it_ran_out() -> None:
    c = clock(deadline=NOW, to_act=(0, 1, 2, 3), seats={2: away()})
    assert c.ran_out(NOW) and not c.ran_out(NOW - secs(1))
    assert c.plays_for() == [0, 1, 3]
    assert not clock(to_act=(0,)).ran_out(NOW)


def test_a_seat_that_goes_away_on_its_turn_keeps_what_its_clock_had() -> None:
    c = clock(deadline=NOW + secs(18), to_act=(2,))
    assert c.stopped(2, NOW) == (18.0, 7)
    assert c.stopped(1, NOW) == (None, None)
    assert clock(deadline=NOW - secs(3), to_act=(2,)).stopped(2, NOW) == (0.0, 7)
    assert clock(to_act=(2,)).stopped(2, NOW) == (30, 7)  # no clock ran: the whole turn


def test_coming_back_resumes_what_was_left_in_the_same_step_else_a_whole_turn() -> None:
    same_step = clock(deadline=NOW - secs(7), to_act=(2,), seats={2: away(left=18.0, step=7)})
    assert same_step.resumed(2, NOW) == NOW + secs(18)
    assert same_step.seconds_left(2, NOW) == 18.0
    new_step = clock(to_act=(2,), seats={2: away(left=18.0, step=6)})
    assert new_step.resumed(2, NOW) == NOW + secs(30)
    assert clock(to_act=(1,), seats={2: away(left=18.0, step=7)}).resumed(2, NOW) is None


def test_coming_back_never_cuts_the_clock_of_the_others_in_the_step() -> None:
    c = clock(deadline=NOW + secs(25), to_act=(0, 2), seats={2: away(left=4.0, step=7)})
    assert c.resumed(2, NOW) == NOW + secs(25)


def test_how_long_a_present_seat_has_left_is_its_turns_deadline() -> None:
    c = clock(deadline=NOW + secs(9.5), to_act=(0, 2))
    assert c.seconds_left(2, NOW) == 9.5
    assert c.seconds_left(1, NOW) is None
    assert clock(deadline=NOW - secs(1), to_act=(0,)).seconds_left(0, NOW) == 0.0


def test_the_budget_is_for_the_whole_game_not_a_fresh_window_each_time() -> None:
    c = clock(seats={1: SeatClock(away_seconds=45.0)})
    assert c.budget_left(1) == 15.0 and c.window(1, NOW) == NOW + secs(15)
    assert clock(seats={1: SeatClock(away_seconds=75.0)}).window(1, NOW) == NOW
    assert c.away_budget(1, NOW) == 15 and c.away_budget(0, NOW) == 60
    waiting = clock(
        seats={1: SeatClock(away_seconds=45.0, away_since=NOW, away_until=NOW + secs(15))}
    )
    assert waiting.away_budget(1, NOW + secs(4.4)) == 11
    assert waiting.away_budget(1, NOW + secs(20)) == 0
    assert waiting.spent(1, NOW + secs(6)) == 51.0


def test_an_outage_moves_the_turn_and_every_window_on_and_charges_nobody() -> None:
    before = SeatClock(away_since=NOW - secs(30), away_until=NOW + secs(30))
    started_in_it = SeatClock(away_since=NOW - secs(2), away_until=NOW + secs(58))
    c = clock(deadline=NOW - secs(5), seats={0: before, 1: started_in_it, 2: SeatClock()})
    after = c.shifted(secs(20), NOW)
    assert after.deadline == NOW + secs(15)
    assert after.seat(0).away_since == NOW - secs(10)
    assert after.seat(0).away_until == NOW + secs(50)
    assert after.seat(1).away_since == NOW  # never later than now: no negative time away
    assert after.seat(1).away_until == NOW + secs(78)
    assert after.seat(2) == SeatClock()
    assert clock().shifted(secs(20), NOW).deadline is None
