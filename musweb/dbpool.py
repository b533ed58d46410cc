"""The check psycopg's pool runs on every connection it hands out (settings `DATABASES`).

After a PostgreSQL restart every idle connection in the pool is dead. psycopg's pool checks one,
discards it, and before checking the next it waits, backing off (0, 1, 2, 4 s…): with the four
idle connections of `DB_POOL_MIN` the first request after the restart waited out the pool's
whole `timeout` (5 s) and got a 503. So the first connection found dead has the pool check every
idle one at once (`ConnectionPool.check`: the dead are discarded and replaced by the pool's
workers), and the request waits only for a fresh connection.
"""

from __future__ import annotations

from typing import Any

from psycopg_pool import ConnectionPool


def check_connection(conn: Any) -> None:
    """`ConnectionPool.check_connection` (an empty query); when it fails, the other idle
    connections are checked (and the dead ones replaced) before the failure is raised."""
    try:
        ConnectionPool.check_connection(conn)
    except Exception:
        from django.db import connections

        pool = connections["default"].pool
        if pool is not None:
            pool.check()
        raise
