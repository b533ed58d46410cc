"""Where the move pipeline's steps run: Django's connection in Channels' sync thread (or a Celery
worker, a view), or the event loop's own psycopg connections (`adb`).

The pipeline (`games.services.pipeline`) is written once, as a generator of `Step`s: load a
table, write a plan, run a function, publish a table. An executor runs one step at a time with
the same SQL (`storage.load_sql`, `storage.cas_statement`) and answers with its result, or with
`Lost` when its connection died under it (a PostgreSQL restart): the pipeline decides what
then, the same way on either side. The event loop takes only what writes one row and needs no
ORM: the end of a game and anything for a bot go on in the worker thread (`Loop.takes`).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from contextlib import nullcontext, suppress
from typing import Any, NamedTuple

import psycopg
from channels.layers import get_channel_layer
from django import db
from django.conf import settings
from django.db import connection, transaction

from ..models import Table
from . import adb
from .errors import Conflict
from .groups import group_name, send_groups
from .moves import Plan
from .state import after_commit, table_message
from .storage import (
    cas_applied,
    cas_statement,
    compare_and_set,
    game_of,
    load_sql,
    load_table,
    table_from_row,
)
from .turns import schedule_bot_turn

log = logging.getLogger(__name__)

#: What a dead connection raises, on either side (Django wraps psycopg's in its own).
_DEAD = (db.OperationalError, db.InterfaceError, psycopg.OperationalError, psycopg.InterfaceError)

#: The end of a game's own writes, run by `Worker.write` in the commit's transaction.
Inside = Callable[[Table], None]


class Step(NamedTuple):
    """One thing for an executor to do: its method `name` with `args`."""

    name: str
    args: tuple[Any, ...]


class Lost(Exception):
    """The connection died under a step; the executor has let it go, the next step opens a
    fresh one. Whether the step's write landed is for the pipeline to find out."""


Answer = tuple[Any, BaseException | None]


class Worker:
    """Steps through Django's connection, in a synchronous thread."""

    def do(self, step: Step) -> Answer:
        try:
            return getattr(self, step.name)(*step.args), None
        except Conflict as exc:
            return None, exc
        except _DEAD:
            if connection.in_atomic_block:
                raise  # the caller's transaction is lost with the connection: it decides
            log.warning("database connection lost during %s", step.name, exc_info=True)
            with suppress(*_DEAD):
                connection.close()  # back to the pool, which discards it
            return None, Lost()

    def load(self, table_id: int) -> Table | None:
        return load_table(table_id)

    def write(self, plan: Plan, inside: Inside | None) -> None:
        # A move is one UPDATE, which commits by itself; only the end of a game writes more rows
        # (the seats), so only then is there a transaction. Under load each round trip costs the
        # sync thread a wait for the GIL as well (docs/performance.md).
        with transaction.atomic() if inside is not None else nullcontext():
            compare_and_set(plan.table, **plan.fields)
            if inside is not None:
                inside(plan.table)

    def run(self, fn: Callable[..., None], *args: Any) -> None:
        fn(*args)

    def fetch(self, sql: str, params: list[Any], many: bool = False) -> Any:
        """A statement's row (None if it returns none), or all its rows (`many`)."""
        with connection.cursor() as cursor:
            cursor.execute(sql, params)
            if many:
                return cursor.fetchall()
            return cursor.fetchone() if cursor.description else None

    def publish(self, table: Table) -> None:
        """Once committed: every browser told (`state.after_commit`), then the next bot's turn
        queued (`turns.schedule_bot_turn`). No task per turn for the clock: Celery beat's sweep
        (`games.sweep_deadlines`) plays overdue turns; one task per action cost more CPU than
        the action itself under load."""
        after_commit(table)
        transaction.on_commit(
            lambda: schedule_bot_turn(table, game_of(table), settings.MUS_BOT_DELAY_MS)
        )


class Loop:
    """Steps on the event loop's connection for the table (`adb`), without the sync thread; or,
    given a `cursor` (`adb.transaction`), in that transaction."""

    def __init__(self, cursor: psycopg.AsyncCursor[Any] | None = None) -> None:
        self.cursor = cursor

    def takes(self, step: Step) -> bool:
        """Whether the event loop can do `step`: not ORM work, nor a plan that does not
        `fit_event_loop` (it goes on in the worker thread, planned already)."""
        if step.name == "write":
            plan: Plan = step.args[0]
            return plan.fits_event_loop
        return step.name != "run"

    async def do(self, step: Step) -> Answer:
        try:
            return await getattr(self, step.name)(*step.args), None
        except Conflict as exc:
            return None, exc
        except psycopg.OperationalError:  # (`adb` dropped the connection already)
            if self.cursor is not None:
                raise  # the transaction is lost with the connection: its caller decides
            return None, Lost()

    async def load(self, table_id: int) -> Table | None:
        return table_from_row(await adb.execute(table_id, load_sql(), [table_id], fetch=True))

    async def fetch(self, sql: str, params: list[Any], many: bool = False) -> Any:
        """`Worker.fetch` on the event loop (a read of its own, outside a transaction)."""
        cursor = self.cursor
        if cursor is None:
            return await adb.execute(adb.READS, sql, params, fetch="all" if many else True)
        await cursor.execute(sql, params)
        if many:
            return await cursor.fetchall()
        return await cursor.fetchone() if cursor.description else None

    async def update(self, table: Table, sql: str, params: list[Any]) -> int:
        count: int = await adb.execute(table.pk, sql, params, fetch=False)
        return count

    async def write(self, plan: Plan, inside: Inside | None) -> None:
        sql, params = cas_statement(plan.table, plan.fields)
        cas_applied(plan.table, plan.fields, await self.update(plan.table, sql, params))

    async def publish(self, table: Table, skip: str | None = None) -> None:
        """`state.broadcast` from the event loop. With Redis down, the state is kept and sent
        when it is back (`groups.send_groups`)."""
        if get_channel_layer() is not None:
            await send_groups([(group_name(table.pk), table_message(table, skip=skip))])


WORKER = Worker()
LOOP = Loop()
