"""How long a backup and a restore take (docs/deploy.md, «Copias de seguridad»).

    python -m tools.backup_bench --players 20000 --games 200000 [--jobs 2] [--keep]

On a throwaway PostgreSQL cluster of its own (tools/outage.py's, Debian's binaries on its own
port, with fsync on, as a real server writes), never the machine's: the schema migrated, the
benchmark data seeded (`seed_bench_data`: players, finished games with real records, their
ladders), then `scripts/backup.py dump` timed, and `scripts/backup.py restore --jobs N` into a
second, empty database timed (the data and the indexes; then `migrate` and `after_restore` on
their own). Prints the figures and their straight-line extrapolation to 1,000,000 games: the
dump and the restore are dominated by reading and writing rows and building indexes, which grow
with the data (index builds a little faster than linearly).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from tools.outage import ROOT, Postgres, _pg_bin


class DurablePostgres(Postgres):
    """The drill's cluster, but writing as a production server does (fsync on)."""

    server_options = ""


def _timed(cmd: list[str], env: dict[str, str]) -> tuple[float, str]:
    started = time.monotonic()
    done = subprocess.run(cmd, cwd=ROOT, env=env, check=True, capture_output=True, text=True)
    return time.monotonic() - started, done.stdout


def _size(url_env: dict[str, str], db: str) -> int:
    done = subprocess.run(
        [_pg_bin("psql"), "-XAtc", f"SELECT pg_database_size('{db}')"],
        env={**url_env, "PGDATABASE": db},
        check=True,
        capture_output=True,
        text=True,
    )
    return int(done.stdout.strip())


def _dump_and_restore(
    out: Path, env: dict[str, str], libpq: dict[str, str], url: str, into: str, jobs: int
) -> tuple[float, float, Path]:
    """`scripts/backup.py dump` of DATABASE_URL's database, then `restore --no-after` of it
    into a new database `into`: their times, and the dump."""
    py = sys.executable
    dump_s, _ = _timed([py, "scripts/backup.py", "dump", "--out", str(out)], env)
    dump = next(out.glob("*.dump"))
    subprocess.run([_pg_bin("createdb"), into], env=libpq, check=True, capture_output=True)
    restore_s, _ = _timed(
        [py, "scripts/backup.py", "restore", str(dump), "--jobs", str(jobs), "--no-after"],
        {**env, "DATABASE_URL": f"{url}/{into}"},
    )
    return dump_s, restore_s, dump


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=int, default=20_000)
    parser.add_argument("--games", type=int, default=200_000)
    parser.add_argument("--jobs", type=int, default=2, help="pg_restore's parallel jobs")
    parser.add_argument("--port", type=int, default=5460)
    parser.add_argument("--keep", action="store_true", help="leave the cluster's folder")
    args = parser.parse_args(argv)

    base = Path(tempfile.mkdtemp(prefix="musweb-backup-bench-"))
    pg = DurablePostgres(base, args.port)
    libpq = {**os.environ, "PGHOST": "127.0.0.1", "PGPORT": str(args.port), "PGUSER": "postgres"}
    url = f"postgres://postgres@127.0.0.1:{args.port}"
    py = sys.executable
    figures: dict[str, Any] = {"players": args.players, "games": args.games, "jobs": args.jobs}
    try:
        pg.create()
        env = {**os.environ, "DATABASE_URL": f"{url}/musweb", "LOG_LEVEL": "WARNING"}
        _timed([py, "manage.py", "migrate", "-v0"], env)
        # The fixed cost (an empty database's schema, the programs starting), measured apart so
        # that only what grows with the games is extrapolated.
        figures["empty_database_mb"] = _size(libpq, "musweb") / 1e6
        figures["empty_dump_s"], figures["empty_restore_s"], _ = _dump_and_restore(
            base / "empty", env, libpq, url, "empty", args.jobs
        )
        figures["seed_s"], _ = _timed(
            [
                py,
                "manage.py",
                "seed_bench_data",
                "--players",
                str(args.players),
                "--games",
                str(args.games),
                "--force",
            ],
            env,
        )
        figures["database_mb"] = _size(libpq, "musweb") / 1e6
        figures["dump_s"], figures["restore_s"], dump = _dump_and_restore(
            base / "copias", env, libpq, url, "restored", args.jobs
        )
        figures["dump_mb"] = dump.stat().st_size / 1e6
        env_restored = {**env, "DATABASE_URL": f"{url}/restored"}
        figures["migrate_and_after_restore_s"], _ = _timed([py, "-c", _AFTER], env_restored)
        figures["check_s"], _ = _timed(
            [py, "manage.py", "recompute_ratings", "--check"], env_restored
        )
    finally:
        pg.destroy()
        if not args.keep:
            shutil.rmtree(base, ignore_errors=True)
    scale = 1_000_000 / args.games
    for key in ("dump_s", "restore_s", "database_mb"):
        fixed = figures[f"empty_{key}"]
        figures[f"{key}_at_1M"] = round(fixed + (figures[key] - fixed) * scale, 1)
    figures["dump_mb_at_1M"] = round(figures["dump_mb"] * scale, 1)
    for key, value in figures.items():
        print(f"{key:32} {round(value, 1) if isinstance(value, float) else value}")
    print(json.dumps(figures))
    return 0


# What `scripts/backup.py restore` runs after pg_restore, timed on its own.
_AFTER = """
import os, subprocess, sys
for args in (["migrate", "--no-input", "-v0"], ["after_restore"]):
    subprocess.run([sys.executable, "manage.py", *args], check=True)
"""


if __name__ == "__main__":
    sys.exit(main())
