"""Bulk data for benchmarks: players, finished games and consistent ladders, through COPY.

    python manage.py seed_bench_data [--players N --games M --seed S --days D --force]

Games carry short but real records (one hand decided by
an accepted envido of 40 or an órdago, found by playing scripted games with the engine), so
their pages replay and their stored scores equal the replay. Ratings are computed with the same
``rankings.elo`` as the live task, game by game in finishing order, so ``recompute_ratings
--check`` agrees with the seeded ladders.
"""

from __future__ import annotations

import json
import random
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator
from contextlib import contextmanager, nullcontext
from datetime import UTC, datetime, timedelta
from typing import Any

from django.core.management.base import CommandError
from django.db import connection, models, transaction
from django.utils import timezone

from accounts.models import User
from games import engine
from games.models import Seat, Table
from rankings import elo, services
from rankings.models import (
    FOREVER,
    Acquaintance,
    PlayerRating,
    RatedGame,
    RatingBucket,
    RatingChange,
)

NAMES = [
    "maite",
    "ane",
    "iker",
    "unai",
    "jon",
    "ainhoa",
    "lucia",
    "mateo",
    "sofia",
    "hugo",
    "martina",
    "leo",
    "paula",
    "daniel",
    "alba",
    "pablo",
    "carmen",
    "javier",
    "elena",
    "diego",
    "julia",
    "alvaro",
    "irene",
    "adrian",
    "sara",
    "marcos",
    "nerea",
    "mario",
    "laura",
    "ruben",
    "noa",
    "bruno",
    "vega",
    "oier",
    "amaia",
    "gorka",
    "nahia",
    "asier",
    "leire",
    "aitor",
]


# --------------------------------------------------------------------------------------------
# COPY helpers.
# --------------------------------------------------------------------------------------------
def _text(value: Any) -> str:
    if value is None:
        return r"\N"
    if value is True:
        return "t"
    if value is False:
        return "f"
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, (dict, list)):
        value = json.dumps(value, separators=(",", ":"), ensure_ascii=False)
    return (
        str(value)
        .replace("\\", "\\\\")
        .replace("\t", "\\t")
        .replace("\n", "\\n")
        .replace("\r", "\\r")
    )


class Copier:
    """Lines for ``COPY model (given columns…, every other column at its default)``."""

    def __init__(self, model: type[models.Model], given: list[str]) -> None:
        fields = {f.attname: f for f in model._meta.concrete_fields}
        self.table = model._meta.db_table
        self.given = given
        rest = [
            name
            for name, f in fields.items()
            if name not in given and not isinstance(f, models.AutoField)
        ]
        defaults = []
        for name in rest:
            field = fields[name]
            if field.has_default() or not field.null:
                value = field.get_default()
                if isinstance(field, models.JSONField):
                    value = json.dumps(value)
                defaults.append(_text(value))
            else:
                defaults.append(r"\N")
        self.columns = [fields[g].column for g in given] + [fields[r].column for r in rest]
        self.suffix = ("\t" + "\t".join(defaults)) if defaults else ""

    def line(self, *values: str) -> str:
        return "\t".join(values) + self.suffix + "\n"

    def copy(self, lines: list[str]) -> None:
        if not lines:
            return
        sql = f"COPY {self.table} ({', '.join(f'"{c}"' for c in self.columns)}) FROM STDIN"
        with connection.cursor() as cursor, cursor.copy(sql) as copy:
            for start in range(0, len(lines), 20_000):
                copy.write("".join(lines[start : start + 20_000]))


def _next_id(model: type[models.Model]) -> int:
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT COALESCE(MAX(id), 0) + 1 FROM {model._meta.db_table}")
        next_id: int = cursor.fetchone()[0]
    return next_id


def _reset_sequence(model: type[models.Model]) -> None:
    table = model._meta.db_table
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT setval(pg_get_serial_sequence('{table}', 'id'),"
            f" (SELECT COALESCE(MAX(id), 1) FROM {table}))"
        )


@contextmanager
def indexes_dropped(models_: list[type[models.Model]]) -> Iterator[None]:
    """Drop the secondary indexes and unique constraints of these tables meanwhile.

    Loading millions of rows into a table with seven indexes costs ten times more than loading
    them bare and building each index once at the end. Primary keys stay. Every index and
    constraint is recreated with its own name and definition, even if loading fails.
    """
    tables = [m._meta.db_table for m in models_]
    with connection.cursor() as cursor:
        cursor.execute(
            """
            SELECT conrelid::regclass::text, conname, pg_get_constraintdef(oid)
              FROM pg_constraint
             WHERE contype = 'u' AND conrelid::regclass::text = ANY(%s)
            """,
            [tables],
        )
        constraints = cursor.fetchall()
        owned = {name for _t, name, _d in constraints}
        cursor.execute(
            """
            SELECT i.indexname, i.indexdef FROM pg_indexes i
              JOIN pg_class c ON c.relname = i.indexname
              JOIN pg_index x ON x.indexrelid = c.oid
             WHERE i.schemaname = current_schema() AND i.tablename = ANY(%s)
               AND NOT x.indisprimary
            """,
            [tables],
        )
        indexes = [(name, sql) for name, sql in cursor.fetchall() if name not in owned]
        for table, name, _definition in constraints:
            cursor.execute(f'ALTER TABLE {table} DROP CONSTRAINT "{name}"')
        for name, _sql in indexes:
            cursor.execute(f'DROP INDEX "{name}"')
    try:
        yield
    finally:
        with connection.cursor() as cursor:
            cursor.execute("SET maintenance_work_mem = '512MB'")
            for _name, sql in indexes:
                cursor.execute(sql)
            for table, name, definition in constraints:
                cursor.execute(f'ALTER TABLE {table} ADD CONSTRAINT "{name}" {definition}')


# --------------------------------------------------------------------------------------------
# Short real records.
# --------------------------------------------------------------------------------------------
def _scripted(game: engine.Game, seat: int, finish: str) -> engine.Action:
    legal = {d["act"]: d for d in engine.legal_actions(game, seat)}
    if "corto" in legal:
        return engine.Action(seat, "corto")
    if "quiero" in legal:
        return engine.Action(seat, "quiero")
    if game.lance == "grande":
        if finish == "ordago" and "ordago" in legal:
            return engine.Action(seat, "ordago")
        if finish == "puntos" and "envido" in legal:
            return engine.Action(seat, "envido", to=legal["envido"]["max"])
    if "paso" in legal:
        return engine.Action(seat, "paso")
    action = engine.default_action(game, seat)
    assert action is not None
    return action


def short_records(
    per_kind: int = 3, seed: int = 1
) -> dict[tuple[str, int, str], list[dict[str, str]]]:
    """Per (mode, winner team, ended_by): ``per_kind`` one-hand records, with their results."""
    found: dict[tuple[str, int, str], list[dict[str, str]]] = {}
    rng = random.Random(seed)
    wanted = {(m, w, e) for m in engine.MODES for w in (0, 1) for e in ("puntos", "ordago")}
    while wanted:
        mode = rng.choice(engine.MODES)
        finish = rng.choice(("puntos", "ordago"))
        game = engine.new_game(mode, rng.randrange(4), rng)
        for _ in range(200):
            if game.phase in ("terminada", "recuento"):
                break
            game = engine.apply(game, _scripted(game, game.to_act()[0], finish))
        if game.phase != "terminada" or game.ended_by != finish:
            continue
        key = (mode, game.winner, finish)
        if key not in wanted:
            continue
        record = engine.export_record(game)
        result = engine.replay_result(record)
        found.setdefault(key, []).append(
            {"record": _text(record), "scores": _text(result["scores"]), "ended_by": finish}
        )
        if len(found[key]) >= per_kind:
            wanted.discard(key)
    return found


# --------------------------------------------------------------------------------------------
# The seed.
# --------------------------------------------------------------------------------------------
def main(
    players: int,
    games: int,
    *,
    seed: int = 1,
    days: int = 365,
    force: bool = False,
    write: Callable[[str], None] = print,
) -> None:
    """Seed after checking the sizes; to keep the development database small, more than 50,000
    games are refused unless the database's name ends in ``_bench`` (or ``force``)."""
    name = connection.settings_dict["NAME"]
    if players < 4 or games < 0:
        raise CommandError("At least 4 players and 0 games.")
    if games > 50_000 and not name.endswith("_bench") and not force:
        raise CommandError(
            f"Refusing to put {games} games into {name!r}: use a database whose name"
            " ends in _bench (DATABASE_URL=…/musweb_bench) or --force."
        )
    write(f"Seeding {players} players and {games} games into {name}…")
    stats = seed_data(players, games, seed=seed, days=days, log=lambda line: write(f"  {line}"))
    write(json.dumps(stats))


def seed_data(
    players: int,
    games: int,
    *,
    seed: int = 1,
    days: int = 365,
    chunk: int = 50_000,
    log: Callable[[str], None] = print,
) -> dict[str, Any]:
    rng = random.Random(seed)
    started = time.perf_counter()
    now = timezone.now().astimezone(UTC).replace(microsecond=0)
    superuser = False
    with connection.cursor() as cursor:
        cursor.execute("SELECT rolsuper FROM pg_roles WHERE rolname = current_user")
        superuser = bool(cursor.fetchone()[0])
        if superuser:
            # Skip the per-row foreign-key triggers: the generated data is consistent by design.
            cursor.execute("SET session_replication_role = replica")
    bulky = [Table, Seat, RatedGame, RatingChange, PlayerRating, RatingBucket]
    try:
        with indexes_dropped(bulky) if games >= 100_000 else nullcontext():
            stats = _seed(rng, players, games, days, chunk, now, log)
            log(f"games loaded in {time.perf_counter() - started:.1f} s; building indexes…")
    finally:
        if superuser:
            with connection.cursor() as cursor:
                cursor.execute("SET session_replication_role = DEFAULT")
    with connection.cursor() as cursor:
        for model in (User, Table, Seat, PlayerRating, RatedGame, RatingChange, RatingBucket):
            cursor.execute(f"ANALYZE {model._meta.db_table}")
    stats["seconds"] = round(time.perf_counter() - started, 1)
    return stats


def _seed(
    rng: random.Random,
    n_players: int,
    n_games: int,
    days: int,
    chunk: int,
    now: datetime,
    log: Callable[[str], None],
) -> dict[str, Any]:
    t0 = time.perf_counter()
    first_user = _next_id(User)
    user_ids = list(range(first_user, first_user + n_players))
    skill = [rng.gauss(1500, 180) for _ in user_ids]
    users = Copier(
        User,
        ["id", "password", "username", "display_name", "date_joined", "banned_at", "is_active"],
    )
    lines = []
    keys: list[tuple[str, str, str]] = []
    banned = 0
    joined = now - timedelta(days=days + 30)
    for i, uid in enumerate(user_ids):
        name = f"{NAMES[i % len(NAMES)]}{uid}"
        display = f"{name.capitalize()}" if i % 3 == 0 else ""
        ban = rng.random() < 0.002
        keys.append((name.lower(), display.lower(), FOREVER.isoformat() if ban else r"\N"))
        banned += ban
        lines.append(
            users.line(
                str(uid),
                "!",
                name,
                display,
                joined.isoformat(),
                now.isoformat() if ban else r"\N",
                "t",
            )
        )
    with transaction.atomic():
        users.copy(lines)
        _reset_sequence(User)
    log(f"{n_players} players in {time.perf_counter() - t0:.1f} s")

    records = short_records()
    tables = Copier(
        Table,
        [
            "id",
            "mode",
            "host_id",
            "private",
            "rated",
            "invite_token",
            "status",
            "phase",
            "record",
            "scores",
            "winner_team",
            "ended_by",
            "created_at",
            "started_at",
            "finished_at",
        ],
    )
    seats = Copier(Seat, ["table_id", "seat", "user_id", "active", "joined_at"])
    marks = Copier(RatedGame, ["id", "table_id", "mode", "winner_team", "rated_at"])
    changes = Copier(
        RatingChange,
        [
            "user_id",
            "table_id",
            "mode",
            "seat",
            "before",
            "after",
            "k",
            "weight",
            "limit",
            "won",
            "played_at",
        ],
    )
    # Who has met whom in how many games, by mode: the ladder's weight reads it (rankings.elo).
    met: dict[tuple[int, str], Counter[int]] = defaultdict(Counter)
    first_table = _next_id(Table)
    first_mark = _next_id(RatedGame)
    ratings: dict[tuple[int, str], list[Any]] = {}  # rating, games, wins, best, last
    regulars = max(4, n_players // 20)
    start = now - timedelta(days=days)
    step = timedelta(days=days) / max(n_games, 1)
    mark_id = first_mark
    t1 = time.perf_counter()
    for base in range(0, n_games, chunk):
        t_lines, s_lines, m_lines, c_lines = [], [], [], []
        for i in range(base, min(base + chunk, n_games)):
            table_id = first_table + i
            picked: list[int] = []
            while len(picked) < 4:
                k = rng.randrange(regulars) if rng.random() < 0.4 else rng.randrange(n_players)
                if k not in picked:
                    picked.append(k)
            mode = engine.MODES[i % 2] if rng.random() < 0.5 else engine.MODES[(i + 1) % 2]
            finished = start + step * i + timedelta(seconds=rng.randrange(60))
            finished_s = finished.isoformat()
            created_s = (finished - timedelta(minutes=25)).isoformat()
            roll = rng.random()
            private = roll < 0.05
            rated = not private or roll < 0.03
            cancelled = rng.random() < 0.03
            ids = [user_ids[k] for k in picked]
            if cancelled:
                kind = records[(mode, 0, "puntos")][0]
                t_lines.append(
                    tables.line(
                        str(table_id),
                        mode,
                        str(ids[0]),
                        _text(private),
                        _text(rated),
                        f"bench{table_id}",
                        "cancelada",
                        "cancelada",
                        kind["record"],
                        "[0, 0]",
                        r"\N",
                        "",
                        created_s,
                        created_s,
                        finished_s,
                    )
                )
            else:
                team0 = (skill[picked[0]] + skill[picked[2]]) / 2
                team1 = (skill[picked[1]] + skill[picked[3]]) / 2
                winner = 0 if rng.random() < elo.expected_score(team0, team1) else 1
                how = "ordago" if rng.random() < 0.15 else "puntos"
                kind = rng.choice(records[(mode, winner, how)])
                t_lines.append(
                    tables.line(
                        str(table_id),
                        mode,
                        str(ids[0]),
                        _text(private),
                        _text(rated),
                        f"bench{table_id}",
                        "terminada",
                        "terminada",
                        kind["record"],
                        kind["scores"],
                        str(winner),
                        how,
                        created_s,
                        created_s,
                        finished_s,
                    )
                )
                if rated:
                    rows = []
                    for uid in ids:
                        row = ratings.get((uid, mode))
                        if row is None:
                            row = ratings[(uid, mode)] = [
                                elo.INITIAL_RATING,
                                0,
                                0,
                                elo.INITIAL_RATING,
                                None,
                            ]
                        rows.append(row)
                    moves = elo.changes(
                        [
                            elo.Standing(
                                r[0],
                                r[1],
                                uid,
                                len(met[uid, mode]),
                                frozenset(met[uid, mode]),
                                met[uid, mode],
                            )
                            for uid, r in zip(ids, rows, strict=True)
                        ],
                        winner,
                    )
                    for uid in ids:
                        met[uid, mode].update(o for o in ids if o != uid)
                    m_lines.append(
                        marks.line(str(mark_id), str(table_id), mode, str(winner), finished_s)
                    )
                    mark_id += 1
                    for seat, (uid, row, move) in enumerate(zip(ids, rows, moves, strict=True)):
                        won = seat % 2 == winner
                        c_lines.append(
                            changes.line(
                                str(uid),
                                str(table_id),
                                mode,
                                str(seat),
                                repr(row[0]),
                                repr(move.after),
                                str(move.k),
                                repr(move.weight),
                                move.limit,
                                _text(won),
                                finished_s,
                            )
                        )
                        row[0] = move.after
                        row[1] += 1
                        row[2] += won
                        row[3] = max(row[3], move.after)
                        row[4] = finished_s
            for seat, uid in enumerate(ids):
                s_lines.append(seats.line(str(table_id), str(seat), str(uid), "f", created_s))
        with transaction.atomic():
            tables.copy(t_lines)
            seats.copy(s_lines)
            marks.copy(m_lines)
            changes.copy(c_lines)
        done = min(base + chunk, n_games)
        rate = done / (time.perf_counter() - t1)
        log(f"{done} games ({rate:,.0f}/s)")
    standings = Copier(
        PlayerRating,
        [
            "user_id",
            "mode",
            "rating",
            "games",
            "met",
            "wins",
            "best_rating",
            "last_played_at",
            "username_key",
            "display_key",
            "hidden_until",
        ],
    )
    with transaction.atomic():
        _reset_sequence(Table)
        _reset_sequence(RatedGame)
        standings.copy(
            [
                standings.line(
                    str(u),
                    m,
                    repr(r[0]),
                    str(r[1]),
                    str(len(met[u, m])),
                    str(r[2]),
                    repr(r[3]),
                    r[4],
                    *keys[u - first_user],
                )
                for (u, m), r in ratings.items()
            ]
        )
        acquaintances = Copier(Acquaintance, ["user_id", "other_id", "mode", "games"])
        acquaintances.copy(
            [
                acquaintances.line(str(u), str(o), m, str(n))
                for (u, m), others in met.items()
                for o, n in sorted(others.items())
            ]
        )
        services.rebuild_buckets()
    return {
        "players": n_players,
        "banned": banned,
        "games": n_games,
        "rated_games": mark_id - first_mark,
        "ladder_rows": len(ratings),
        "first_user": first_user,
    }


__all__ = ["Copier", "main", "seed_data", "short_records"]
