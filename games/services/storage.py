"""Reading and writing tables: one fixed statement to load a table with its seats, a per-process
cache of replayed games, and the compare-and-set that every change goes through.

The hot path reads a table, its seats and their players with one statement: through the ORM the two
queries of every action cost more CPU to build than PostgreSQL took to answer. For the same reason
the compare-and-set UPDATE is built once per set of fields and kept (docs/performance.md).
"""

from __future__ import annotations

from collections import OrderedDict
from contextlib import suppress
from functools import cache
from typing import Any

import orjson
from django.db import DEFAULT_DB_ALIAS, connection
from psycopg.types.json import Jsonb

from accounts.models import User

from .. import engine
from ..models import Seat, Table
from .errors import Conflict, no_table, not_seated

# --------------------------------------------------------------------------------------------
# Games: the stored record is the truth; a small per-process cache keyed by (table, version)
# spares replaying it on every action.
# --------------------------------------------------------------------------------------------
_GAME_CACHE: OrderedDict[tuple[int, int], engine.Game] = OrderedDict()
_GAME_CACHE_SIZE = 2048


def game_of(table: Table) -> engine.Game | None:
    if table.record is None:
        return None
    key = (table.pk, table.version)
    game = _GAME_CACHE.get(key)
    if game is None:
        game = engine.replay(table.record)
        if table.status == Table.Status.CANCELLED and game.phase != "cancelada":
            game = engine.cancel(game)
        remember_game(table, game)
    else:
        # (evicted meanwhile by the other thread: the event loop and the sync thread share it)
        with suppress(KeyError):
            _GAME_CACHE.move_to_end(key)
    return game


def remember_game(table: Table, game: engine.Game) -> None:
    """`game` is what `table` holds at its current version."""
    _GAME_CACHE[(table.pk, table.version)] = game
    while len(_GAME_CACHE) > _GAME_CACHE_SIZE:
        _GAME_CACHE.popitem(last=False)


# --------------------------------------------------------------------------------------------
# Loading.
# --------------------------------------------------------------------------------------------
_TABLE_COLUMNS = [f.attname for f in Table._meta.concrete_fields]
_FIELDS = {f.attname: f for f in Table._meta.concrete_fields}
_JSON_FIELDS = {n for n, f in _FIELDS.items() if f.get_internal_type() == "JSONField"}
_JSON_COLUMNS = [i for i, name in enumerate(_TABLE_COLUMNS) if name in _JSON_FIELDS]


@cache
def _seats_sql() -> str:
    """The seats of table %s as one JSON list, ordered by seat (see `seat_rows`)."""
    qn = connection.ops.quote_name
    return (
        "SELECT coalesce(json_agg(json_build_object("
        "'seat', s.seat, 'user_id', s.user_id, 'username', u.username, "
        "'display_name', u.display_name, 'is_bot', u.is_bot, 'connections', s.connections, "
        "'away_until', s.reconnect_deadline, 'away_seconds', s.away_seconds, "
        "'bot_level', s.bot_level, "
        # A player's bot account: its owner's name (User.public_name), else null.
        "'bot_of', CASE WHEN o.id IS NULL THEN NULL "
        "ELSE coalesce(nullif(o.display_name, ''), o.username) END) "
        "ORDER BY s.seat), '[]'::json) "
        f"FROM {qn(Seat._meta.db_table)} s JOIN {qn(User._meta.db_table)} u ON u.id = s.user_id "
        f"LEFT JOIN {qn(User._meta.db_table)} o ON o.id = u.bot_owner_id "
        "WHERE s.table_id = %s"
    )


@cache
def load_sql() -> str:
    """The statement `load_table` runs (also run on the event loop's connections): the table's
    columns, its seats (`seat_rows`) and their fingerprint (`_seen`)."""
    qn = connection.ops.quote_name
    columns = ", ".join(f"t.{qn(_FIELDS[c].column)}" for c in _TABLE_COLUMNS)
    seats = _seats_sql().replace("%s", "t.id")
    return (
        f"SELECT {columns}, seated.j, md5(seated.j::text) FROM {qn(Table._meta.db_table)} t "
        f"CROSS JOIN LATERAL ({seats}) seated(j) WHERE t.id = %s"
    )


def load_table(table_id: int) -> Table | None:
    """The table with `seat_rows` filled in, from one query; None if there is no such table."""
    with connection.cursor() as cursor:
        cursor.execute(load_sql(), [table_id])
        return table_from_row(cursor.fetchone())


def table_from_row(row: tuple[Any, ...] | None) -> Table | None:
    if row is None:
        return None
    values = list(row[:-2])
    for i in _JSON_COLUMNS:  # jsonb arrives as text; JSONField would decode it the same way
        if isinstance(values[i], str):
            values[i] = orjson.loads(values[i])
    table = Table.from_db(DEFAULT_DB_ALIAS, _TABLE_COLUMNS, values)
    table.seat_rows = row[-2]
    table._seen = row[-1]  # type: ignore[attr-defined]
    return table


def _seen(table: Table) -> str | None:
    """The fingerprint of the seats as `load_table` read them (None: the table came from the
    ORM, or from a plan that did not read them)."""
    seen: str | None = getattr(table, "_seen", None)
    return seen


# --------------------------------------------------------------------------------------------
# Tables: the last one each table's moves read or wrote in this process. A move plans from it
# and the compare-and-set is the check (`cas_statement`): the version, the clock and the seats
# as read, so a table that changed since (a move, a socket, the sweep, a kick) never commits
# from a stale copy; its move is refused with `Conflict`, read once and planned again.
# --------------------------------------------------------------------------------------------
_TABLE_CACHE: OrderedDict[int, Table] = OrderedDict()


def _copy(table: Table) -> Table:
    """A copy of `table` that its user may change (`cas_applied`) without changing others'."""
    copy = Table.from_db(
        DEFAULT_DB_ALIAS, _TABLE_COLUMNS, [getattr(table, c) for c in _TABLE_COLUMNS]
    )
    copy.seat_rows = table.seat_rows
    copy._seen = _seen(table)  # type: ignore[attr-defined]
    return copy


def remember_table(table: Table) -> None:
    """`table` is as read, or as just written: the next move here may plan from it."""
    if _seen(table) is None:
        return  # (an ORM table: its seats are not known, so neither is whether they changed)
    _TABLE_CACHE[table.pk] = _copy(table)
    with suppress(KeyError):  # (evicted meanwhile by the other thread, as in `game_of`)
        _TABLE_CACHE.move_to_end(table.pk)
    while len(_TABLE_CACHE) > _GAME_CACHE_SIZE:
        _TABLE_CACHE.popitem(last=False)


def cached_table(table_id: int) -> Table | None:
    """A copy of the table the last move here read or wrote, or None."""
    table = _TABLE_CACHE.get(table_id)
    return None if table is None else _copy(table)


def forget_tables() -> None:
    """Forget every remembered table (tests: each test has its own database)."""
    _TABLE_CACHE.clear()


def require_table(table: Table | None) -> Table:
    if table is None:
        raise no_table()
    return table


def seat_rows(table: Table) -> list[dict[str, Any]]:
    """The table's seats as `load_table` reads them (read now if the table came from the ORM)."""
    if table.seat_rows is not None:
        return table.seat_rows
    # Not kept on the instance: an ORM-loaded table may be refreshed after its seats change.
    with connection.cursor() as cursor:
        cursor.execute(_seats_sql(), [table.pk])
        return cursor.fetchone()[0]


def seat_number(table: Table, user_id: int | None) -> int | None:
    """The seat `user_id` holds at `table`, or None."""
    if user_id is None:
        return None
    return next((row["seat"] for row in seat_rows(table) if row["user_id"] == user_id), None)


def require_seat(table: Table, user: User) -> int:
    seat = seat_number(table, user.pk)
    if seat is None:
        raise not_seated()
    return seat


def live_seat_of(user: User) -> Seat | None:
    """The seat `user` holds at a table that is open or in play (one at most)."""
    return Seat.objects.select_related("table").filter(user=user, active=True).first()


def lock_table(table_id: int) -> Table:
    """The table row locked for the rest of the transaction."""
    table = Table.objects.select_for_update().filter(pk=table_id).first()
    if table is None:
        raise no_table()
    return table


# --------------------------------------------------------------------------------------------
# Compare-and-set.
# --------------------------------------------------------------------------------------------
def dumps(value: Any) -> str:
    """JSON text of `value` with orjson (what the hot path encodes: states and records)."""
    return orjson.dumps(value).decode()


def cas_statement(table: Table, fields: dict[str, Any]) -> tuple[str, list[Any]]:
    """The UPDATE that writes `fields` and bumps the version if the table is still at its own;
    for a table read with its seats (`load_table`), also only if its clock and seats are still
    as read: a socket, the sweep or a kick changes them without a move."""
    names = tuple(sorted(fields))
    seen = _seen(table)
    params = [
        # The record (the whole game so far) is written on every move: orjson encodes it in a
        # fraction of the time Django's JSONField takes with the json module.
        Jsonb(fields[name], dumps=dumps)
        if name in _JSON_FIELDS and fields[name] is not None
        else _FIELDS[name].get_db_prep_save(fields[name], connection)
        for name in names
    ]
    if seen is None:
        return _update_sql(names, False), [*params, table.pk, table.version]
    guard = [table.deadline, table.pk, seen]
    return _update_sql(names, True), [*params, table.pk, table.version, *guard]


def cas_applied(table: Table, fields: dict[str, Any], rowcount: int) -> None:
    """Bring the in-memory table up to date after its compare-and-set, or raise `Conflict`."""
    if rowcount != 1:
        raise Conflict()
    table.version += 1
    for key, value in fields.items():
        setattr(table, key, value)


def cas_landed(table: Table, fields: dict[str, Any], fresh: Table) -> bool:
    """Whether `fresh`, the row read again after a compare-and-set of `fields` on `table` lost
    its answer (the connection died), holds that very write: one version on, with those values
    (a move's record is the whole game so far, so another write never matches it)."""
    if fresh.version != table.version + 1:
        return False
    for name, value in fields.items():
        if name in _JSON_FIELDS and value is not None:
            value = orjson.loads(dumps(value))  # as stored: tuples become lists
        if getattr(fresh, name) != value:
            return False
    return True


def compare_and_set(table: Table, **fields: Any) -> None:
    """Save a change to `table` if nobody changed it since it was read; never overwrite."""
    sql, params = cas_statement(table, fields)
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        cas_applied(table, fields, cursor.rowcount)


@cache
def _update_sql(names: tuple[str, ...], guarded: bool) -> str:
    qn = connection.ops.quote_name
    sets = "".join(f", {qn(_FIELDS[n].column)} = %s" for n in names)
    sql = (
        f"UPDATE {qn(Table._meta.db_table)} SET {qn('version')} = {qn('version')} + 1{sets} "
        f"WHERE {qn('id')} = %s AND {qn('version')} = %s"
    )
    if guarded:
        column = qn(_FIELDS["deadline"].column)
        sql += f" AND {column} IS NOT DISTINCT FROM %s AND md5(({_seats_sql()})::text) = %s"
    return sql
