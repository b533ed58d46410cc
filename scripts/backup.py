"""Back up the site's database and restore it (docs/deploy.md, «Copias de seguridad»).

    python scripts/backup.py dump [--out DIR_OR_FILE]                 DATABASE_URL's database
    python scripts/backup.py restore FILE [--jobs N] [--no-after]     into DATABASE_URL's

`dump` writes one file in PostgreSQL's custom format (`pg_dump -Fc`): one consistent snapshot
of the whole database (a single repeatable-read transaction, taken while the site runs),
compressed, and restorable table by table in parallel (`pg_restore -j`). With a directory (the
default: `backups/`), the file is named after the time, `barajamos-20261205T031500Z.dump`; the
finished file is checked by reading its table of contents, and only then given its name (a dump
cut short never looks like a backup).

`restore` loads a dump into an **empty** database (`scripts/ensure_database.py` creates it; a
database with tables in it is refused: a restore never goes over the one in use), brings the
schema up to date (`manage.py migrate`: the code may be newer than the backup) and runs
`manage.py after_restore`, which cancels every game that was being played when the dump was
taken (unrated, nobody charged: its players are long gone). Start the site only after that.

The PostgreSQL client programs are Debian's (`/usr/lib/postgresql/<version>/bin`, the newest
one, which reads dumps of older servers too), or PG_BIN's.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from musweb.env import database_from_url  # noqa: E402

DEFAULT_URL = "postgres://postgres@127.0.0.1:5432/musweb"


def pg_bin(name: str) -> str:
    """A PostgreSQL client program: PG_BIN's, else the newest Debian version's, else PATH's."""
    if os.environ.get("PG_BIN"):
        return str(Path(os.environ["PG_BIN"]) / name)
    found = sorted(
        Path("/usr/lib/postgresql").glob(f"*/bin/{name}"), key=lambda p: int(p.parts[-3])
    )
    if found:
        return str(found[-1])
    path = shutil.which(name)
    if path is None:
        raise SystemExit(f"no {name}: install Debian's postgresql-client, or set PG_BIN")
    return path


def libpq_env(url: str) -> dict[str, str]:
    """The environment that points the client programs at `url`'s database (no password on
    the command line)."""
    db = database_from_url(url)
    env = dict(os.environ)
    for var, key in (
        ("PGHOST", "HOST"),
        ("PGPORT", "PORT"),
        ("PGUSER", "USER"),
        ("PGPASSWORD", "PASSWORD"),
        ("PGDATABASE", "NAME"),
    ):
        env.pop(var, None)
        if db[key]:
            env[var] = str(db[key])
    return env


def dump(url: str, out: Path, *, compress: int = 6) -> Path:
    """`pg_dump -Fc` of `url`'s database to `out` (a file, or a directory to name one in)."""
    if out.is_dir() or not out.suffix:
        out.mkdir(parents=True, exist_ok=True)
        out = out / f"barajamos-{datetime.now(UTC):%Y%m%dT%H%M%SZ}.dump"
    partial = out.with_name(out.name + ".partial")
    env = libpq_env(url)
    subprocess.run(
        [pg_bin("pg_dump"), "--format=custom", f"--compress={compress}", "--file", str(partial)],
        env=env,
        check=True,
    )
    # A dump that pg_restore cannot list is no backup.
    subprocess.run(
        [pg_bin("pg_restore"), "--list", str(partial)],
        env=env,
        check=True,
        stdout=subprocess.DEVNULL,
    )
    partial.rename(out)
    return out


def tables_in(url: str) -> int:
    done = subprocess.run(
        [
            pg_bin("psql"),
            "-XAtc",
            "SELECT count(*) FROM pg_tables WHERE schemaname NOT IN ('pg_catalog', "
            "'information_schema')",
        ],
        env=libpq_env(url),
        check=True,
        capture_output=True,
        text=True,
    )
    return int(done.stdout.strip())


def restore(url: str, file: Path, *, jobs: int = 2, after: bool = True) -> None:
    """Load `file` into `url`'s empty database, migrate, and cancel the games that were live."""
    if not file.is_file():
        raise SystemExit(f"no backup at {file}")
    if tables_in(url):
        raise SystemExit(
            f"{database_from_url(url)['NAME']} has tables: a restore goes into an empty database "
            "(create one with scripts/ensure_database.py)"
        )
    subprocess.run(
        [
            pg_bin("pg_restore"),
            "--no-owner",
            "--no-privileges",
            "--exit-on-error",
            f"--jobs={jobs}",
            "--dbname",
            str(database_from_url(url)["NAME"]),
            str(file),
        ],
        env=libpq_env(url),
        check=True,
    )
    if not after:
        return
    env = {**os.environ, "DATABASE_URL": url}
    manage = [sys.executable, str(ROOT / "manage.py")]
    subprocess.run([*manage, "migrate", "--no-input", "-v0"], env=env, check=True, cwd=ROOT)
    subprocess.run([*manage, "after_restore"], env=env, check=True, cwd=ROOT)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--database-url",
        default=os.environ.get("DATABASE_URL", DEFAULT_URL),
        help="the database (default: DATABASE_URL)",
    )
    commands = parser.add_subparsers(dest="command", required=True)
    dumping = commands.add_parser("dump", help="pg_dump -Fc of the database")
    dumping.add_argument("--out", type=Path, default=ROOT / "backups")
    dumping.add_argument("--compress", type=int, default=6, choices=range(10), metavar="0-9")
    restoring = commands.add_parser("restore", help="load a dump into an empty database")
    restoring.add_argument("file", type=Path)
    restoring.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    restoring.add_argument(
        "--no-after", action="store_true", help="skip migrate and after_restore (for timing)"
    )
    args = parser.parse_args(argv)
    started = time.monotonic()
    if args.command == "dump":
        out = dump(args.database_url, args.out, compress=args.compress)
        size = out.stat().st_size / 1e6
        print(f"{out} ({size:.1f} MB) in {time.monotonic() - started:.1f} s")
    else:
        restore(args.database_url, args.file, jobs=args.jobs, after=not args.no_after)
        print(f"restored {args.file} in {time.monotonic() - started:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
