"""The event loop's own database connections, for moves that write one row (`executor.Loop`).

Channels runs all database work of a daphne process in one thread; under load every socket's move
queued behind it, and after each query the thread waited for the GIL held by the busy event loop
(docs/performance.md). A few psycopg async connections per event loop, a table always on the same
one, run the same statements as the worker thread would.

A PostgreSQL restart leaves these connections dead without anybody noticing until they are used:
a connection that fails is dropped, and the next statement opens a fresh one. A statement that
is safe to repeat runs again, once (`again_if_dead`); a move's compare-and-set is settled by the
pipeline (`games.services.pipeline`). What still fails is `Unavailable` (docs/deploy.md,
«Caídas»).
"""

from __future__ import annotations

import asyncio
import weakref
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from functools import cache
from typing import Any

import orjson
import psycopg
from django.conf import settings
from django.db import connection
from django.utils import timezone
from psycopg.types.json import set_json_loads

from ..models import ServerProcess
from .errors import Unavailable

_Key = tuple[asyncio.AbstractEventLoop, int]
_CONNECTIONS: dict[_Key, psycopg.AsyncConnection[Any]] = {}
_LOCKS: dict[_Key, asyncio.Lock] = {}

#: The keys of each event loop's connections that belong to no table: one for reads of their own
#: (a socket's session and user, its chat history), one for transactions (`transaction`). Tables
#: use `table_id % MUS_ASYNC_DB_CONNECTIONS`, never negative.
READS = -1
_TRANSACTIONS = -2
_TRANSACTION_LOCKS: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Lock] = (
    weakref.WeakKeyDictionary()
)


def _key(table_id: int) -> _Key:
    # One connection made every move of the process wait for all the others at PostgreSQL.
    own = table_id if table_id < 0 else table_id % settings.MUS_ASYNC_DB_CONNECTIONS
    return asyncio.get_running_loop(), own


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
                connect_timeout=5,
                options="-c TimeZone=UTC",  # as Django's connections (USE_TZ)
            )
            set_json_loads(orjson.loads, conn)  # the record and the seats, on every move
            _CONNECTIONS[key] = conn
    return conn


async def execute(table_id: int, sql: str, params: list[Any], *, fetch: bool | str) -> Any:
    """One statement on the connection for `table_id`: its row (`fetch`), all its rows (`fetch`
    "all") or its row count. A connection that fails is dropped before the error goes up."""
    conn = None
    try:
        conn = await _connection(table_id)
        async with conn.cursor() as cursor:
            await cursor.execute(sql, params)
            if fetch == "all":
                return await cursor.fetchall()
            return await cursor.fetchone() if fetch else cursor.rowcount
    except psycopg.OperationalError:
        if conn is not None:
            forget(table_id, conn)
        raise


async def fetch_one(sql: str, params: list[Any]) -> Any:
    """A statement that belongs to no table (a read, or a change safe to repeat): its first row
    or None. Run again on a fresh connection if this one died; `Unavailable` if that fails
    too."""
    return await again_if_dead(lambda: execute(READS, sql, params, fetch=True))


async def fetch_all(sql: str, params: list[Any]) -> list[Any]:
    """`fetch_one`, all the rows."""
    rows: list[Any] = await again_if_dead(lambda: execute(READS, sql, params, fetch="all"))
    return rows


@asynccontextmanager
async def transaction() -> AsyncIterator[psycopg.AsyncCursor[Any]]:
    """A transaction on this event loop's connection for them, one at a time: the tables'
    connections are shared by concurrent moves, whose statements would land inside it. A
    connection that fails is dropped (psycopg.OperationalError goes up: `again_if_dead` for a
    transaction that is safe to repeat)."""
    loop = asyncio.get_running_loop()
    lock = _TRANSACTION_LOCKS.get(loop)
    if lock is None:
        lock = _TRANSACTION_LOCKS[loop] = asyncio.Lock()
    async with lock:
        conn = await _connection(_TRANSACTIONS)
        try:
            async with conn.transaction(), conn.cursor() as cursor:
                yield cursor
        except psycopg.OperationalError:
            forget(_TRANSACTIONS, conn)
            raise


async def again_if_dead[T](run: Callable[[], Awaitable[T]]) -> T:
    """`run()`, once more on a fresh connection if the first one died (a PostgreSQL restart);
    `Unavailable` if that fails too. Only for statements that are safe to repeat."""
    try:
        return await run()
    except psycopg.OperationalError:
        pass
    try:
        return await run()
    except psycopg.OperationalError:
        raise Unavailable() from None


async def beat(process: str) -> bool:
    """`connections.beat`'s usual case on the event loop, where a busy sync thread cannot delay
    it: False if the process's row is gone (given up for dead) and the whole `beat` must run.

    A beat queued behind the sync thread's work came too late under load: the sweep gave the
    live process up for dead, dropped all its sockets, and putting them back made it later.
    (Harmless to repeat: a connection found dead is replaced and the beat sent again, once.)"""
    sql, params = _beat_sql(), [timezone.now(), process]
    rows: int = await again_if_dead(lambda: execute(0, sql, params, fetch=False))
    return rows > 0


@cache
def _beat_sql() -> str:
    table = connection.ops.quote_name(ServerProcess._meta.db_table)
    return f"UPDATE {table} SET beat_at = %s WHERE name = %s"


def forget(table_id: int, conn: psycopg.AsyncConnection[Any] | None = None) -> None:
    """Drop a broken connection (`conn`, if it is still the table's); the next use opens a new
    one."""
    key = _key(table_id)
    if conn is not None and _CONNECTIONS.get(key) is not conn:
        conn.pgconn.finish()
        return
    conn = _CONNECTIONS.pop(key, None)
    if conn is not None:
        conn.pgconn.finish()


def close_all() -> None:
    """Close every event loop's connections (tests: each test has its own loop)."""
    for conn in list(_CONNECTIONS.values()):
        conn.pgconn.finish()  # synchronous: the connection's loop may be gone already
    _CONNECTIONS.clear()
    _LOCKS.clear()
    _TRANSACTION_LOCKS.clear()
