"""How a game ended, worked out once: the `GameEnd` the finisher (`services.finish`) publishes with
the one signal `games.signals.game_ended`, and that whoever reads an ended game later (the
ladders' catch-up, a tournament's sweep) builds from the row with `ending_of`.

Below the move pipeline (`play` calls `game_over` when a commit ends a game) and above nothing
else, so both the pipeline and the finisher announce an end the same way.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from ..models import Abandonment, Seat, Table
from ..signals import game_ended

#: Played to the end (no cancel reason).
PLAYED_OUT = ""
#: The endings that name a seat to blame (`GameEnd.seat`): its player left for good or never came.
SEAT_ENDINGS = (Table.CancelReason.ABANDONED, Table.CancelReason.NO_SHOW)


@dataclass(frozen=True, slots=True)
class GameEnd:
    """One game's end: the facts every reader needs, so that none works them out again."""

    table_id: int
    #: `PLAYED_OUT`, or the `Table.CancelReason` it was cancelled for.
    reason: str
    #: The pair that won a game played out (0: seats 0 and 2).
    winner_team: int | None = None
    scores: tuple[int, ...] = ()
    #: The seat whose player used up their reconnection budget (`ABANDONED`) or never came
    #: (`NO_SHOW`).
    seat: int | None = None
    #: That seat's player was charged an abandonment (docs/rules.md §8.4).
    charged: bool = False
    #: The pairs that lost the game by leaving it: the seat's pair and any pair whose player was
    #: gone too when it ended, or the pairs of the players a ban took away.
    losing_teams: frozenset[int] = frozenset()

    @property
    def played_out(self) -> bool:
        return self.reason == PLAYED_OUT

    @property
    def status(self) -> str:
        return str(Table.Status.FINISHED if self.played_out else Table.Status.CANCELLED)

    @property
    def ladder_result(self) -> tuple[int, int | None] | None:
        """How the end goes on a ladder, whatever the table's ladder (`ladder_result`)."""
        return ladder_result(self.status, self.winner_team, self.seat if self.charged else None)


def ladder_result(
    status: str, winner_team: int | None, charged_seat: int | None
) -> tuple[int, int | None] | None:
    """(winner team, abandoned seat or None) of an end that moves a ladder: a game played out,
    or one a player abandoned and was charged for (which moves only that player); else None.
    `LADDER_RESULT` is the same rule for queries."""
    if status == Table.Status.FINISHED and winner_team in (0, 1):
        return winner_team, None
    if status == Table.Status.CANCELLED and charged_seat is not None:
        return 1 - charged_seat % 2, charged_seat
    return None


#: `ladder_result` as a filter on tables (an abandonment is charged only at a cancelled table,
#: for its abandoned seat: `abandonment__seat` is `charged_seat`).
LADDER_RESULT = Q(status=Table.Status.FINISHED, winner_team__isnull=False) | Q(
    status=Table.Status.CANCELLED, abandonment__isnull=False
)


def played(table: Table) -> GameEnd:
    """The end of a game the pipeline played out (`table` as committed)."""
    return GameEnd(
        table.pk, PLAYED_OUT, winner_team=table.winner_team, scores=tuple(table.scores or ())
    )


def ending_of(table: Table, *, blame: bool = True) -> GameEnd | None:
    """The end of `table`'s game read from the database (None: it has not ended). Without
    `blame`, `losing_teams` is left empty and the seats are not read (a ladder needs only who
    was charged)."""
    if table.status == Table.Status.FINISHED:
        return played(table)
    if table.status != Table.Status.CANCELLED:
        return None
    reason = table.cancel_reason
    seat = table.abandoned_seat
    charged = (
        reason == Table.CancelReason.ABANDONED
        and seat is not None
        and Abandonment.objects.filter(table_id=table.pk).exists()
    )
    losing: set[int] = set()
    if not blame:
        pass
    elif reason in SEAT_ENDINGS and seat is not None:
        losing = {seat % 2} | _gone_teams(table)
    elif reason == Table.CancelReason.BANNED:
        seats = Seat.objects.filter(table=table).select_related("user")
        losing = {s.seat % 2 for s in seats if not s.user.may_play}
    return GameEnd(
        table.pk,
        reason,
        scores=tuple(table.scores or ()),
        seat=seat,
        charged=charged,
        losing_teams=frozenset(losing),
    )


def _gone_teams(table: Table) -> set[int]:
    """The teams one of whose players had used up their reconnection budget when the game was
    cancelled (both, when the rival pair was away too)."""
    ended = (table.finished_at or timezone.now()) + timedelta(seconds=1)
    gone = Seat.objects.filter(
        table=table, connections=0, reconnect_deadline__isnull=False, reconnect_deadline__lte=ended
    ).values_list("seat", flat=True)
    return {seat % 2 for seat in gone}


def announce(ending: GameEnd) -> None:
    """Send `game_ended` once the transaction that ended the game has committed (at once when
    there is none)."""
    transaction.on_commit(
        lambda: game_ended.send(sender=Table, table_id=ending.table_id, ending=ending)
    )


def game_over(table: Table) -> None:
    """What a commit that ends `table`'s game does besides writing it (in its transaction):
    nobody sits there any more, and a game played out is announced. A cancelled game is
    announced by the finisher, once it has charged whoever must be."""
    Seat.objects.filter(table=table).update(active=False)
    if table.status == Table.Status.FINISHED:
        announce(played(table))
