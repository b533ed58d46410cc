"""Live play: a player's action, a bot's, the first deal.

Each is planned (`games.services.moves`, pure) and committed by the one move pipeline
(`games.services.pipeline`), from whichever side its caller is on.
"""

from __future__ import annotations

import logging
import secrets
from collections.abc import Generator
from typing import Any

from django.db.models import Count, Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from accounts.models import User

from .. import engine
from ..models import Table
from .errors import ServiceError
from .executor import Step
from .moves import Outcome, Plan, plan_action, plan_game, plan_move
from .pipeline import Run, changing, commit, finish, on_loop
from .storage import game_of

log = logging.getLogger(__name__)


def move(user: User, table_id: int, version: Any, payload: dict[str, Any]) -> Run:
    """A pass of the pipeline for one player's action (the `action` WebSocket message), not
    started: `live.submit` starts it on the event loop and finishes it in the worker thread
    when it must."""

    def make_plan(table: Table | None) -> Plan:
        return plan_move(table, user, version, payload)

    def moving() -> Generator[Step, Any, Outcome]:
        plan = yield from changing(table_id, make_plan)
        assert plan is not None
        return Outcome(table_id, plan.table.version, plan.after.phase)

    return Run(moving())


def act(user: User, table_id: int, version: Any, payload: dict[str, Any]) -> Outcome:
    """Apply one player's action to their table, here (a worker thread, a view, a tool)."""
    outcome: Outcome = finish(move(user, table_id, version, payload))
    return outcome


async def act_on_loop(
    user: User, table_id: int, version: Any, payload: dict[str, Any]
) -> Outcome | None:
    """`act` on the event loop; None, nothing written, when the move is the worker thread's
    (`executor.Loop.takes`)."""
    run = move(user, table_id, version, payload)
    if not await on_loop(run):
        return None
    outcome: Outcome = run.value
    return outcome


def apply_action(table: Table, action: engine.Action) -> Outcome:
    """Apply an action the server decided (a bot's) to `table` as read; a `Conflict` if the
    table changed since."""
    game = game_of(table)
    if game is None:
        raise ServiceError("not_started", _("La partida aún no ha empezado."))
    plan = plan_action(table, game, action)
    commit(plan)
    return Outcome(table.pk, table.version, plan.after.phase)


def start(table: Table, rng: Any = None) -> None:
    """Deal the first hand at `table` (locked by the caller, four seated): docs/rules.md §3.2 draws
    the first mano by lot."""
    first_mano = (rng or secrets.SystemRandom()).randrange(4)
    game = engine.new_game(table.mode, first_mano, rng)
    unrated: dict[str, Any] = {}
    if not table.practice:
        bots = User.objects.filter(seats__table=table).aggregate(
            players=Count("pk", filter=Q(bot_owner__isnull=False)),
            site=Count("pk", filter=Q(is_bot=True)),
        )
        if bots["players"]:
            # A player's bot account never plays for the people's ladders, whatever seated it
            # (docs/bot-api.md): every game starts here. Without the site's bots at the table
            # it counts for the bots ladder (rankings), which reads this reason.
            unrated = {"rated": False}
            if not bots["site"]:
                unrated["unrated_reason"] = Table.UnratedReason.BOTS
    commit(
        plan_game(table, game, status=Table.Status.PLAYING, started_at=timezone.now(), **unrated)
    )
