"""Live play: one move pipeline for every caller (a socket, the clock, a bot, a moderator).

Load the table, plan the change (`games.services.moves`, pure), compare-and-set it into the table
row, remember the new game, tell every socket. The same steps run in Channels' worker thread
(`act`) or, for a move that writes one row, on the event loop (`act_async`): the two read line for
line the same. A lost compare-and-set (`Conflict`) is retried with a fresh read, so simultaneous
discards and votes never bounce; a lost race for the same decision ends in the engine's refusal.
"""

from __future__ import annotations

import logging
import secrets
from collections.abc import Awaitable, Callable
from contextlib import nullcontext, suppress
from typing import Any

from django.db import connection, transaction
from django.db.models import Count, Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from accounts.models import User

from .. import engine
from ..models import Table
from . import adb
from .endings import announce, game_over, played
from .errors import OUTAGES, Conflict, ServiceError, Unavailable
from .moves import Outcome, Plan, plan_action, plan_game, plan_move
from .state import after_commit
from .storage import cas_landed, compare_and_set, game_of, load_table, remember_game

log = logging.getLogger(__name__)

# A lost compare-and-set is retried this often: enough for all four seats of a discard round
# arriving at the same moment (each round of retries lets at least one of them through).
ATTEMPTS = 6


def _retrying(make_plan: Callable[[], Plan | None]) -> Plan | None:
    """Plan from a fresh read and commit, again while somebody else wins the compare-and-set;
    None when `make_plan` finds nothing to do."""
    for attempt in range(ATTEMPTS):
        plan = make_plan()
        if plan is None:
            return None
        try:
            commit(plan)
        except Conflict:
            if attempt == ATTEMPTS - 1:
                raise
            continue
        return plan
    raise AssertionError("unreachable")  # pragma: no cover


async def _retrying_async(make_plan: Callable[[], Awaitable[Plan | None]]) -> Plan | None:
    """`_retrying` on the event loop."""
    for attempt in range(ATTEMPTS):
        plan = await make_plan()
        if plan is None:
            return None
        try:
            await commit_async(plan)
        except Conflict:
            if attempt == ATTEMPTS - 1:
                raise
            continue
        return plan
    raise AssertionError("unreachable")  # pragma: no cover


def commit(plan: Plan) -> None:
    """Write `plan` from a worker thread; every socket is told once it is committed.

    A connection that dies under it (a PostgreSQL restart) leaves the write committed or not:
    the row read on a fresh connection says which (`storage.cas_landed`). Landed, what its
    commit would have done is done; not written and the table unchanged, it is written once
    more; the table moved on, `Conflict`; the database still down, `Unavailable`.
    """
    before = plan.table.version
    try:
        _commit_once(plan)
    except OUTAGES:
        if connection.in_atomic_block:
            raise  # the caller's transaction is lost with the connection: it decides
        log.warning("database connection lost during a commit", exc_info=True)
        _drop_connection()
        try:
            fresh = load_table(plan.table.pk)
        except OUTAGES:
            raise Unavailable() from None
        if fresh is None or (
            fresh.version != before and not cas_landed(plan.table, plan.fields, fresh)
        ):
            raise Conflict() from None
        if fresh.version == before:
            try:
                _commit_once(plan)
            except OUTAGES:
                _drop_connection()
                raise Unavailable() from None
            return
        # It landed: the in-memory table is brought up to date as after its own commit.
        plan.table.version = fresh.version
        for key, value in plan.fields.items():
            setattr(plan.table, key, value)
        remember_game(plan.table, plan.after)
        if plan.ends_game and plan.table.status == Table.Status.FINISHED:
            announce(played(plan.table))
        after_commit(plan.table, bots=True)


def _drop_connection() -> None:
    """Give the thread's dead connection back to the pool, which discards it."""
    with suppress(*OUTAGES):
        connection.close()


def _commit_once(plan: Plan) -> None:
    table = plan.table
    # A move is one UPDATE, which commits by itself; only the end of a game writes more rows (the
    # seats), so only then is there a transaction. Under load each round trip costs the sync
    # thread a wait for the GIL as well (docs/performance.md).
    with transaction.atomic() if plan.ends_game else nullcontext():
        compare_and_set(table, **plan.fields)
        remember_game(table, plan.after)
        if plan.ends_game:
            game_over(table)
    after_commit(table, bots=True)


async def commit_async(plan: Plan) -> None:
    """Write `plan` on the event loop (only plans that `fit_event_loop`), then tell every socket."""
    table = plan.table
    await adb.compare_and_set(table, plan.fields)
    remember_game(table, plan.after)
    await adb.publish(table)


def act(user: User, table_id: int, version: Any, payload: dict[str, Any]) -> Outcome:
    """Apply one player's action (the `action` WebSocket message) to their table."""

    def make_plan() -> Plan:
        return plan_move(load_table(table_id), user, version, payload)

    plan = _retrying(make_plan)
    assert plan is not None
    return Outcome(table_id, plan.table.version, plan.after.phase)


async def act_async(
    user: User, table_id: int, version: Any, payload: dict[str, Any]
) -> Outcome | None:
    """`act` without leaving the event loop; None when the move needs `act` (`Plan.fits_event_loop`)."""

    async def make_plan() -> Plan | None:
        plan = plan_move(await adb.load_table(table_id), user, version, payload)
        return plan if plan.fits_event_loop else None

    plan = await _retrying_async(make_plan)
    return None if plan is None else Outcome(table_id, plan.table.version, plan.after.phase)


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
