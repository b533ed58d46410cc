"""Create the configured PostgreSQL database when it does not exist yet."""

import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import psycopg
from psycopg import sql

from musweb.env import database_from_url


def main() -> None:
    db = database_from_url(
        os.environ.get("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/musweb")
    )
    params = {
        "host": db["HOST"] or None,
        "port": db["PORT"] or None,
        "user": db["USER"] or None,
        "password": db["PASSWORD"] or None,
    }
    params = {k: v for k, v in params.items() if v}
    with psycopg.connect(dbname="postgres", autocommit=True, **params) as conn:
        exists = conn.execute(
            "SELECT 1 FROM pg_database WHERE datname = %s", (db["NAME"],)
        ).fetchone()
        if not exists:
            conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(str(db["NAME"]))))
            print(f"created database {db['NAME']}")


if __name__ == "__main__":
    main()
