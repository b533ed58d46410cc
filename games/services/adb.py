"""The event loop's own database connections, for moves that write one row (`play.act_async`).

Channels runs all database work of a daphne process in one thread; under load every socket's move
queued behind it, and after each query the thread waited for the GIL held by the busy event loop
(docs/performance.md). A few psycopg async connections per event loop, a table always on the same
one, run the same two statements as the worker thread would.
"""

from __future__ import annotations

import asyncio
from functools import cache
from typing import Any

import orjson
import psycopg
from channels.layers import get_channel_layer
from django.conf import settings
from django.db import connection
from django.utils import timezone
from psycopg.types.json import set_json_loads

from ..models import ServerProcess, Table
from .groups import group_name
from .state import table_message
from .storage import cas_applied, cas_statement, load_sql, table_from_row

_Key = tuple[asyncio.AbstractEventLoop, int]
_CONNECTIONS: dict[_Key, psycopg.AsyncConnection[Any]] = {}
_LOCKS: dict[_Key, asyncio.Lock] = {}


def _key(table_id: int) -> _Key:
    # One connection made every move of the process wait for all the others at PostgreSQL.
    return asyncio.get_running_loop(), table_id % settings.MUS_ASYNC_DB_CONNECTIONS


async def _connection(table_id: int) -> psycopg.AsyncConnection[Any]:
    """The connection for `table_id` on this event loop, opened on first use."""
    key = _key(table_id)
    conn = _CONNECTIONS.get(key)
    if conn is not None and not conn.closed:
        return conn
    async with _LOCKS.setdefault(key, asyncio.Lock()):
        conn = _CONNECTIONS.get(key)
        if conn is None or conn.closed:
            db = connection.settings_dict
            conn = await psycopg.AsyncConnection.connect(
                dbname=db["NAME"],
                user=db["USER"] or None,
                password=db["PASSWORD"] or None,
                host=db["HOST"] or None,
                port=db["PORT"] or None,
                autocommit=True,
                options="-c TimeZone=UTC",  # as Django's connections (USE_TZ)
            )
            set_json_loads(orjson.loads, conn)  # the record and the seats, on every move
            _CONNECTIONS[key] = conn
    return conn


async def load_table(table_id: int) -> Table | None:
    """`storage.load_table` on the event loop."""
    conn = await _connection(table_id)
    async with conn.cursor() as cursor:
        await cursor.execute(load_sql(), [table_id])
        return table_from_row(await cursor.fetchone())


async def compare_and_set(table: Table, fields: dict[str, Any]) -> None:
    """`storage.compare_and_set` on the event loop."""
    sql, params = cas_statement(table, fields)
    conn = await _connection(table.pk)
    async with conn.cursor() as cursor:
        await cursor.execute(sql, params)
        cas_applied(table, fields, cursor.rowcount)


async def publish(table: Table) -> None:
    """`state.broadcast` on the event loop."""
    layer = get_channel_layer()
    if layer is not None:
        await layer.group_send(group_name(table.pk), table_message(table))


async def beat(process: str) -> bool:
    """`connections.beat`'s usual case on the event loop, where a busy sync thread cannot delay
    it: False if the process's row is gone (given up for dead) and the whole `beat` must run.

    A beat queued behind the sync thread's work came too late under load: the sweep gave the
    live process up for dead, dropped all its sockets, and putting them back made it later."""
    conn = await _connection(0)
    async with conn.cursor() as cursor:
        await cursor.execute(_beat_sql(), [timezone.now(), process])
        return cursor.rowcount > 0


@cache
def _beat_sql() -> str:
    table = connection.ops.quote_name(ServerProcess._meta.db_table)
    return f"UPDATE {table} SET beat_at = %s WHERE name = %s"


def forget(table_id: int) -> None:
    """Drop a broken connection; the next move opens a new one."""
    conn = _CONNECTIONS.pop(_key(table_id), None)
    if conn is not None:
        conn.pgconn.finish()


def close_all() -> None:
    """Close every event loop's connections (tests: each test has its own loop)."""
    for conn in list(_CONNECTIONS.values()):
        conn.pgconn.finish()  # synchronous: the connection's loop may be gone already
    _CONNECTIONS.clear()
    _LOCKS.clear()
