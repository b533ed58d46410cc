"""Recomputing the ladders from the games, exactly as ``services.rate_table`` built them.

The games are replayed in the order they were applied (``RatedGame`` ids), through the same
``services.apply_game`` and acquaintances, so ``recompute(write=False)`` can check the stored
ladders against it and ``recompute()`` can rewrite them.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import asdict, dataclass
from datetime import datetime

from django.contrib.postgres.aggregates import ArrayAgg
from django.db import connection, transaction
from django.db.models import Count, F

from accounts.models import User
from games.models import Table
from games.services import ladder_result

from . import elo
from .models import Acquaintance, PlayerRating, RatedGame, RatingChange
from .services import (
    LADDER_GAMES,
    Change,
    LadderGame,
    apply_game,
    ladder_key,
    rebuild_buckets,
    sync_players,
)


@dataclass(slots=True)
class LadderRow:
    """A player's standing on one ladder, as the recompute builds it in memory (the fields of
    `PlayerRating` that games move)."""

    rating: float = elo.INITIAL_RATING
    games: int = 0
    met: int = 0
    wins: int = 0
    best_rating: float = elo.INITIAL_RATING
    last_played_at: datetime | None = None


@dataclass
class Ladder:
    """Every player's standing and every change, as recomputed in memory."""

    ratings: dict[tuple[int, str], LadderRow]
    changes: list[Change]
    # who has met whom and in how many games, by mode (Acquaintance rows)
    acquaintances: dict[tuple[int, str], Counter[int]]
    # the games in application order
    games: list[LadderGame]


def _games_in_order() -> Iterator[LadderGame]:
    """The games a ladder counts (`services.LADDER_GAMES`, the rating task's own rule) in the
    order they were applied, then games never applied (by finish time), each with its four
    different players."""
    rows = (
        Table.objects.filter(LADDER_GAMES)
        .annotate(
            seat_users=ArrayAgg("seats__user_id", order_by="seats__seat"),
            seat_count=Count("seats"),
            players=Count("seats__user_id", distinct=True),
        )
        .filter(seat_count=4, players=4)
        .order_by(F("rating__id").asc(nulls_last=True), "finished_at", "pk")
        .values_list(
            "pk",
            "mode",
            "practice",
            "rated",
            "unrated_reason",
            "status",
            "winner_team",
            "abandonment__seat",
            "finished_at",
            "created_at",
            "seat_users",
        )
    )
    for (
        pk,
        mode,
        practice,
        rated,
        reason,
        status,
        winner,
        charged,
        finished,
        created,
        users,
    ) in rows.iterator(chunk_size=5000):
        ladder = ladder_key(mode, practice, rated, reason)
        result = ladder_result(status, winner, charged)
        assert ladder is not None and result is not None  # (LADDER_GAMES)
        yield LadderGame(pk, ladder, result[0], result[1], finished or created, tuple(users))


def compute_ladder(games: Iterable[LadderGame]) -> Ladder:
    """Replay `games` in order through `services.apply_game`, as the rating task applied them."""
    ratings: dict[tuple[int, str], LadderRow] = {}
    changes: list[Change] = []
    met: dict[tuple[int, str], Counter[int]] = defaultdict(Counter)
    order: list[LadderGame] = []
    for game in games:
        mode, seat_users = game.ladder, game.seat_users
        rows = [
            ratings.get((u, mode)) or ratings.setdefault((u, mode), LadderRow()) for u in seat_users
        ]
        standings = [
            elo.Standing(r.rating, r.games, u, r.met, frozenset(met[u, mode]), met[u, mode])
            for u, r in zip(seat_users, rows, strict=True)
        ]
        changes += apply_game(game, rows, standings)
        if game.abandoned_seat is None:
            for u, row in zip(seat_users, rows, strict=True):
                met[u, mode].update(o for o in seat_users if o != u)
                row.met = len(met[u, mode])
        order.append(game)
    return Ladder(ratings, changes, met, order)


def recompute(*, write: bool = True) -> tuple[Ladder, list[str]]:
    """Recompute every ladder from the finished games; return it and the differences found.

    With ``write`` the stored ladders are replaced by the recomputed ones (in one transaction,
    under a lock that keeps rating tasks waiting meanwhile).
    """
    ladder = compute_ladder(_games_in_order())
    differences = compare(ladder)
    if not differences:
        differences = bucket_differences()
    if write and differences:
        with transaction.atomic():
            with connection.cursor() as cursor:
                cursor.execute(
                    "LOCK TABLE rankings_playerrating, rankings_ratedgame, rankings_ratingchange,"
                    " rankings_ratingbucket IN EXCLUSIVE MODE"
                )
            RatingChange.objects.all().delete()
            RatedGame.objects.all().delete()
            Acquaintance.objects.all().delete()
            PlayerRating.objects.all().delete()
            RatedGame.objects.bulk_create(
                [
                    RatedGame(
                        table_id=g.table_id,
                        mode=g.ladder,
                        winner_team=g.winner_team,
                        abandoned_seat=g.abandoned_seat,
                    )
                    for g in ladder.games
                ],
                batch_size=5000,
            )
            names = {
                pk: PlayerRating.player_fields(*account)
                for pk, *account in User.objects.filter(
                    pk__in={u for u, _m in ladder.ratings}
                ).values_list("pk", *PlayerRating.PLAYER_FIELDS)
            }
            PlayerRating.objects.bulk_create(
                [
                    PlayerRating(user_id=u, mode=m, **asdict(row), **names[u])
                    for (u, m), row in ladder.ratings.items()
                ],
                batch_size=5000,
            )
            RatingChange.objects.bulk_create(
                [change.row() for change in ladder.changes], batch_size=5000
            )
            Acquaintance.objects.bulk_create(
                [
                    Acquaintance(user_id=u, other_id=o, mode=m, games=n)
                    for (u, m), others in ladder.acquaintances.items()
                    for o, n in sorted(others.items())
                ],
                batch_size=5000,
            )
            rebuild_buckets()
    if write:
        sync_players()
    return ladder, differences


def bucket_differences() -> list[str]:
    """Buckets whose counts differ from the ratings they count."""
    sql = """
        SELECT COALESCE(b.mode, c.mode), COALESCE(b.bucket, c.bucket),
               b.players, b.established, c.players, c.established
          FROM rankings_ratingbucket b
          FULL JOIN (SELECT mode, floor(rating)::int AS bucket, count(*) AS players,
                            count(*) FILTER (WHERE games >= %s) AS established
                       FROM rankings_playerrating WHERE games > 0 GROUP BY 1, 2) c
            ON c.mode = b.mode AND c.bucket = b.bucket
         WHERE COALESCE(b.players, 0) <> COALESCE(c.players, 0)
            OR COALESCE(b.established, 0) <> COALESCE(c.established, 0)
         LIMIT 20
    """
    with connection.cursor() as cursor:
        cursor.execute(sql, [elo.PROVISIONAL_GAMES])
        return [
            f"bucket {mode} {bucket}: stored {sp}/{se}, counted {cp}/{ce}"
            for mode, bucket, sp, se, cp, ce in cursor.fetchall()
        ]


def compare(ladder: Ladder, limit: int = 20) -> list[str]:
    """Differences between the stored ladders and ``ladder`` (empty when they agree exactly)."""
    differences: list[str] = []
    stored = {
        (r["user_id"], r["mode"]): r
        for r in PlayerRating.objects.values(
            "user_id", "mode", "rating", "games", "met", "wins", "best_rating", "last_played_at"
        ).iterator(chunk_size=5000)
    }
    for key, standing in ladder.ratings.items():
        row = asdict(standing)
        have = stored.pop(key, None)
        if have is None:
            differences.append(f"user {key[0]} {key[1]}: missing")
        elif any(have[f] != row[f] for f in row):
            differences.append(
                f"user {key[0]} {key[1]}: stored {have['rating']!r}/{have['games']}"
                f" recomputed {row['rating']!r}/{row['games']}"
            )
        if len(differences) >= limit:
            return differences
    for key, have in stored.items():
        if have["games"]:
            differences.append(f"user {key[0]} {key[1]}: stored but has no rated game")
            if len(differences) >= limit:
                return differences
    per_player: dict[tuple[int, int], tuple[float, float, float, str]] = {
        (u, t): (b, a, x, lim) for u, t, _m, _s, b, a, _k, x, lim, _w, _p in ladder.changes
    }
    stored_changes = RatingChange.objects.values_list(
        "user_id", "table_id", "before", "after", "weight", "limit"
    )
    count = 0
    for u, t, b, a, x, lim in stored_changes.iterator(chunk_size=10000):
        count += 1
        if per_player.get((u, t)) != (b, a, x, lim):
            differences.append(f"change user {u} game {t}: stored {b!r}→{a!r} ×{x!r}")
            if len(differences) >= limit:
                return differences
    if count != len(per_player):
        differences.append(f"{count} stored changes, {len(per_player)} recomputed")
    return differences


__all__ = ["Ladder", "bucket_differences", "compare", "compute_ladder", "recompute"]
