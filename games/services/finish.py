"""The finisher: every way a game ends that is not played out goes through here (a played-out
game ends in the move pipeline, which calls `endings.game_over`).

Abandoned (a seat's reconnection budget ran out, docs/rules.md §8.4), no-show (a player who never
came, §8.3, and quick play's dodges), cancelled by staff, by a ban or by the site (`SYSTEM`, e.g.
`after_restore`), practice left: each writes the record's end through the move pipeline (one
compare-and-set, the seats freed), charges whoever must be charged in the same transaction (an
`Abandonment`, quick play's `QueueDodge`s), and announces one `GameEnd` once it has committed
(`endings.announce` -> `games.signals.game_ended`), which the ladders and tournaments read.
"""

from __future__ import annotations

from collections.abc import Sequence

from django.db import transaction
from django.utils import timezone

from .. import engine
from ..models import QueueDodge, Table
from . import abandonment
from .connections import overdue_seats
from .endings import GameEnd, announce, ending_of
from .moves import Plan, plan_game
from .pipeline import change
from .storage import game_of


def _write_end(table_id: int, reason: str, note: str, seat: int | None) -> Table | None:
    """Cancel the game in play at `table_id` through the pipeline: unrated, record kept, its
    seats freed; the table as written, or None if there was no game in play."""

    def make_plan(table: Table | None) -> Plan | None:
        game = None if table is None or table.status != Table.Status.PLAYING else game_of(table)
        if table is None or game is None:
            return None
        plan = plan_game(
            table,
            engine.cancel(game),
            game,
            status=Table.Status.CANCELLED,
            cancel_reason=reason,
            cancel_note=note,
            abandoned_seat=seat,
            finished_at=timezone.now(),
        )
        plan.fields["record"]["ended"] = {"reason": reason, "abandoned_seat": seat}
        return plan

    plan = change(table_id, make_plan)
    return None if plan is None else plan.table


def end_game(
    table_id: int,
    reason: str,
    note: str = "",
    *,
    seat: int | None = None,
    charge: int | None = None,
    dodgers: Sequence[int] = (),
) -> GameEnd | None:
    """End the game in play at `table_id` for `reason` (a `Table.CancelReason`); None if there
    was none (already over, never started).

    `seat` is the seat to blame (`ABANDONED`, `NO_SHOW`); `charge` the user id charged an
    abandonment for it (a game for no ladder costs nothing: `abandonment.charge`); `dodgers`
    the players quick play charges a dodge. `note` is a moderator's own words, not shown to
    players. The record says how it ended (docs/game-record.md, `ended`).
    """
    with transaction.atomic():
        table = _write_end(table_id, reason, note, seat)
        if table is None:
            return None
        if charge is not None and seat is not None:
            abandonment.charge(table, seat, charge)
        QueueDodge.objects.bulk_create(QueueDodge(user_id=u, table_id=table_id) for u in dodgers)
        ending = ending_of(table)
        assert ending is not None
        announce(ending)
    return ending


def cancel_game(
    table_id: int, reason: str, note: str = "", *, abandoned_seat: int | None = None
) -> bool:
    """Cancel a game in progress for `reason`, nobody charged (staff, a ban, the site, a practice
    left): unrated, record kept, everybody back to the lobby. True if there was a game to end."""
    return end_game(table_id, reason, note, seat=abandoned_seat) is not None


def cancel_if_abandoned(table_id: int) -> bool:
    """End the game when a seat's budget has run out (§8.4). A player who had come to it is
    charged an abandonment; one who never came is a no-show (§8.3), charged nothing here: the
    game is cancelled as `NO_SHOW` naming their seat (a tournament's pair forfeits), and at
    quick play's tables it is left to the queue's own rule (`no_show`, a dodge)."""
    overdue = overdue_seats(timezone.now()).filter(table_id=table_id)
    overdue = overdue.order_by("reconnect_deadline").first()
    if overdue is None:
        return False
    reason = Table.CancelReason.ABANDONED if overdue.arrived else Table.CancelReason.NO_SHOW
    charge = overdue.user_id if overdue.arrived else None
    return end_game(table_id, reason, seat=overdue.seat, charge=charge) is not None


def no_show(table_id: int, dodgers: Sequence[int]) -> bool:
    """Quick play's no-show: the matched players `dodgers` did not come (or pressed «Cancelar»
    first); the game is cancelled for everybody and each of them charged a dodge."""
    return end_game(table_id, Table.CancelReason.NO_SHOW, dodgers=dodgers) is not None


__all__ = ["cancel_game", "cancel_if_abandoned", "end_game", "no_show"]
