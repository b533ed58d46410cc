"""The restore drill (docs/deploy.md, «Copias de seguridad»): `scripts/backup.py dump` of a
database with finished and live games, `restore` into a throwaway PostgreSQL cluster of the
test's own (tools/outage.py's, Debian's binaries on a port of its own; the machine's cluster is
only read, the test database dumped), then on the restored copy: every finished game's record
replays to its stored score, every ladder recomputes to the stored ratings
(`recompute_ratings --check`), and the game that was live is cancelled («sistema»), unrated, and
nobody is charged with abandoning it.
"""

from __future__ import annotations

import os
import random
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import psycopg
import pytest
from django.db import connection

from games import engine, services
from games.models import Abandonment, Table
from rankings import services as rating_services
from rankings.models import PlayerRating, RatedGame, RatingChange
from tests.factories import UserFactory, finished_game, play_out, started_table
from tests.live import ROOT, free_ports
from tools.engine_bench import random_action

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]


def url_of(db: dict[str, Any]) -> str:
    """The DATABASE_URL of a Django database entry (the test database, to dump it)."""
    password = f":{db['PASSWORD']}" if db["PASSWORD"] else ""
    host, port = db["HOST"] or "127.0.0.1", db["PORT"] or 5432
    return f"postgres://{db['USER'] or 'postgres'}{password}@{host}:{port}/{db['NAME']}"


def run(*args: str, url: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        [sys.executable, *args],
        cwd=ROOT,
        env={**os.environ, "DATABASE_URL": url},
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    assert done.returncode == 0, f"{args}: {done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return done


def rows(url: str, query: str) -> list[tuple[Any, ...]]:
    with psycopg.connect(url.replace("postgres://", "postgresql://")) as conn:
        return conn.execute(query).fetchall()


def seed() -> dict[str, Any]:
    """Rated games of a cohort of forty in random fours, in both modes (five rounds: by the third
    their results count, docs/ratings.md; a closed group of a dozen would move no ladder), a game
    played to its end through the services, and one live game in its second hand."""
    make = UserFactory("copia")
    players = make.many(40)
    draw = random.Random(7)
    for round_no in range(5):
        order = draw.sample(players, len(players))
        for t in range(10):
            mode = "4-reyes" if (round_no + t) % 3 else "8-reyes"
            finished_game(order[4 * t : 4 * t + 4], mode, winner=draw.randrange(2), rate=True)
    played = play_out(started_table(players[:4], seed=3))
    rating_services.rate_table(played.pk)
    live = started_table(players[4:8], seed=5)
    rng = random.Random(11)
    for _ in range(6):  # some of its first hand played
        table = Table.objects.get(pk=live.pk)
        services.apply_action(table, random_action(services.game_of(table), rng))
    assert Table.objects.get(pk=live.pk).status == Table.Status.PLAYING
    assert PlayerRating.objects.exclude(rating=1500).exists(), "no ladder moved: a weak drill"
    return {"live": live.pk, "played": played.pk}


def test_a_backup_restores_every_game_and_ladder_and_cancels_the_live_game(tmp_path: Path) -> None:
    from tests import live as live_processes
    from tools.outage import Postgres

    live_processes._require_slow("a throwaway PostgreSQL cluster")
    data = seed()
    source = url_of(connection.settings_dict)
    dumped = run("scripts/backup.py", "dump", "--out", str(tmp_path / "copias"), url=source)
    files = list((tmp_path / "copias").glob("barajamos-*.dump"))
    assert len(files) == 1 and str(files[0]) in dumped.stdout

    port = free_ports(1)
    # Not under tmp_path: the cluster runs as `postgres`, who cannot reach pytest's root-only
    # folders (Postgres.create opens this one's).
    base = Path(tempfile.mkdtemp(prefix="musweb-restore-"))
    cluster = Postgres(base, port)
    try:
        cluster.create()  # an empty database `musweb` on the throwaway cluster
        restored = f"postgres://postgres@127.0.0.1:{port}/musweb"
        done = run("scripts/backup.py", "restore", str(files[0]), "--jobs", "2", url=restored)
        assert "restored" in done.stdout

        # A second restore over it is refused: a restore never goes over a database in use.
        again = subprocess.run(
            [sys.executable, "scripts/backup.py", "restore", str(files[0])],
            cwd=ROOT,
            env={**os.environ, "DATABASE_URL": restored},
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert again.returncode != 0 and "has tables" in again.stderr

        # Every ladder recomputes, from the restored games, to the restored ratings.
        check = run("manage.py", "recompute_ratings", "--check", url=restored)
        assert "The stored ladders equal the recomputed ones." in check.stdout

        t = Table._meta.db_table
        games = {
            pk: (status, record, scores, reason)
            for pk, status, record, scores, reason in rows(
                restored, f"SELECT id, status, record, scores, cancel_reason FROM {t}"
            )
        }
        ratings = rows(
            restored,
            f"SELECT user_id, mode, rating, games FROM {PlayerRating._meta.db_table} "
            "ORDER BY user_id, mode",
        )
        rated = {pk for (pk,) in rows(restored, f"SELECT table_id FROM {RatedGame._meta.db_table}")}
        charged = rows(restored, f"SELECT table_id FROM {Abandonment._meta.db_table}")
        changes = rows(
            restored,
            f"SELECT count(*) FROM {RatingChange._meta.db_table} WHERE table_id = {data['live']}",
        )
    finally:
        cluster.destroy()
        shutil.rmtree(base, ignore_errors=True)

    # Every game is there, and every finished one replays to the score stored with it.
    originals = {t.pk: t for t in Table.objects.all()}
    assert set(games) == set(originals)
    finished = [pk for pk, t in originals.items() if t.status == Table.Status.FINISHED]
    assert len(finished) == 51 and data["played"] in finished
    for pk in finished:
        status, record, scores, _reason = games[pk]
        assert status == Table.Status.FINISHED
        assert record == originals[pk].record
        assert engine.replay_result(record)["scores"] == list(scores) == originals[pk].scores
    assert rated == set(RatedGame.objects.values_list("table_id", flat=True))
    assert ratings == list(
        PlayerRating.objects.order_by("user_id", "mode").values_list(
            "user_id", "mode", "rating", "games"
        )
    )

    # The game that was live: cancelled by the system, its record kept and saying so, unrated,
    # nobody charged. The original, being played, is untouched by the backup.
    status, record, _scores, reason = games[data["live"]]
    assert (status, reason) == (Table.Status.CANCELLED, Table.CancelReason.SYSTEM)
    assert record["ended"] == {"reason": "sistema", "abandoned_seat": None}
    assert record["hands"][0]["actions"] == originals[data["live"]].record["hands"][0]["actions"]
    engine.replay(record)
    assert data["live"] not in rated and changes == [(0,)]
    assert charged == []
    assert originals[data["live"]].status == Table.Status.PLAYING
