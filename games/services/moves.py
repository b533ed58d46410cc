"""Planning a change to a game: pure checks and the columns to write, no I/O.

`plan_move` checks a player's action against the table as just read and asks the engine for the
game after it; `plan_game` turns any new game state (a deal, the clock's defaults, a cancel) into
the same kind of `Plan`. `games.services.pipeline` commits plans, from a worker thread or from the
event loop, the same way.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from accounts.models import User

from .. import engine
from ..models import Table
from .clock import clock_of
from .errors import ServiceError, engine_error
from .storage import game_of, require_seat, require_table, seat_rows
from .turns import to_act

ENDED_PHASES = ("terminada", "cancelada")


@dataclass(frozen=True, slots=True)
class Plan:
    """`table` (as read) goes from game `before` to game `after` by writing `fields`."""

    table: Table
    before: engine.Game | None
    after: engine.Game
    fields: dict[str, Any]

    @property
    def ends_game(self) -> bool:
        return self.after.phase in ENDED_PHASES

    @property
    def fits_event_loop(self) -> bool:
        """One row written and nothing else to do: the move can be committed on the event loop.
        The end of a game writes the seats and tells other apps; a bot's turn is a Celery task."""
        return not self.ends_game and not any(row["is_bot"] for row in seat_rows(self.table))


@dataclass(frozen=True, slots=True)
class Outcome:
    table_id: int
    version: int
    phase: str


def deadline_for(table: Table, game: engine.Game) -> datetime | None:
    """When the clock of `game`, the new game at `table` as read, runs out, or None when it is
    stopped (`TurnClock.next_deadline`, docs/rules.md §8.2-8.3)."""
    return clock_of(table).next_deadline(
        timezone.now(),
        to_act(table, game),
        over=game.phase in ENDED_PHASES,
        recuento=game.phase == "recuento",
    )


def step_key(game: engine.Game | None) -> tuple[Any, ...] | None:
    """What a player's decision depends on, besides whose turn it is (`engine.step_key`).

    Inside one simultaneous step (a discard round, a team's vote) the others' choices do not change
    what a player may do, so an action sent against an earlier version of the same step is still
    meant for this situation and is accepted; anything else (a new lance, a raise, a new hand)
    starts a new step.
    """
    return None if game is None else engine.step_key(game)


def plan_game(
    table: Table, game: engine.Game, previous: engine.Game | None = None, **extra: Any
) -> Plan:
    """The plan that stores `game` (which follows `previous` at this table)."""
    fields: dict[str, Any] = {
        "record": engine.export_record(game),
        "phase": game.phase,
        "scores": list(game.scores),
        "winner_team": game.winner,
        "ended_by": game.ended_by or "",
        "deadline": deadline_for(table, game),
    }
    if game.phase == "terminada":
        fields["status"] = Table.Status.FINISHED
        fields["finished_at"] = timezone.now()
    if step_key(previous) != step_key(game):
        fields["step_version"] = table.version + 1
    if previous is not None and previous.phase == "recuento" and game.phase != "recuento":
        fields["ready_seats"] = []
    fields.update(extra)
    return Plan(table, previous, game, fields)


def plan_move(table: Table | None, user: User, version: Any, payload: dict[str, Any]) -> Plan:
    """Check a player's action (the `action` WebSocket message) against the table as just read.

    `version` is the `v` of the state the player acted on. It may be older than the table's if
    only other players' simultaneous choices came in since (same step, see `step_key`); then the
    action still applies.
    """
    if type(version) is not int:
        raise ServiceError("bad_version", _("Falta la versión del estado («v») o no es un número."))
    table = require_table(table)
    seat = require_seat(table, user)
    if table.status != Table.Status.PLAYING:
        if table.status == Table.Status.OPEN:
            raise ServiceError("not_started", _("La partida aún no ha empezado."))
        raise ServiceError("game_over", _("La partida ya ha terminado."))
    if not table.step_version <= version <= table.version:
        raise ServiceError(
            "stale", _("Tu pantalla no estaba al día: aquí tienes el estado actual.")
        )
    game = game_of(table)
    if game is None:  # pragma: no cover - a table in play always has its record
        raise ServiceError("not_started", _("La partida aún no ha empezado."))
    try:
        move = engine.Action.from_dict(payload, seat=seat)
    except engine.IllegalAction as exc:
        raise engine_error(exc) from None
    if move.act == "repartir":
        return _plan_ready(table, game, move)
    return plan_action(table, game, move)


def _plan_ready(table: Table, game: engine.Game, move: engine.Action) -> Plan:
    """«Seguir» at the recuento (docs/rules.md §8.2): the next hand is dealt when the last player
    who has to press it does; until then the table only notes who has."""
    if game.phase != "recuento":
        return plan_action(table, game, move)  # the engine refuses it
    if move.seat in table.ready_seats:
        raise ServiceError("already_ready", _("Ya has pulsado «Seguir»: esperamos a los demás."))
    waiting = [s for s in to_act(table, game) if s != move.seat]
    if waiting:
        return Plan(table, game, game, {"ready_seats": [*table.ready_seats, move.seat]})
    return plan_action(table, game, move)


def plan_action(table: Table, game: engine.Game, action: engine.Action) -> Plan:
    """The plan of `action` on `game` (the table's current game); the engine checks it."""
    try:
        after = engine.apply(game, action)
    except engine.IllegalAction as exc:
        raise engine_error(exc) from None
    return plan_game(table, after, game)
