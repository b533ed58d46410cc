"""Recomputing the ladders from the games, exactly as ``services.rate_table`` built them.

The games are replayed in the order they were applied (``RatedGame`` ids), through the same
``services.game_changes`` and acquaintances, so ``recompute(write=False)`` can check the stored
ladders against it and ``recompute()`` can rewrite them.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import datetime

from django.db import connection, transaction

from accounts.models import User
from games.models import Table

from . import elo
from .models import BOTS_PREFIX, Acquaintance, PlayerRating, RatedGame, RatingChange
from .services import game_changes, rebuild_buckets, sync_players


@dataclass
class Ladder:
    """Every player's standing and every change, as recomputed in memory."""

    ratings: dict[tuple[int, str], dict[str, object]]
    changes: list[tuple[int, int, str, int, float, float, int, float, str, bool, datetime]]
    # who has met whom and in how many games, by mode (Acquaintance rows)
    acquaintances: dict[tuple[int, str], Counter[int]]
    # (table_id, mode, winner_team, abandoned seat or None) in application order
    games: list[tuple[int, str, int, int | None]]


#: A game on the ladder: table, mode, winner team, when, the four players by seat, and the seat
#: abandoned (docs/rules.md §8.4) or None.
LadderGame = tuple[int, str, int, datetime, list[int], int | None]


def _games_in_order() -> Iterator[LadderGame]:
    """Games for a ladder (`services.ladder_of`, whose key is the "mode") in the order they were
    applied, then games never applied (by finish time): those played to the end, and those a
    player abandoned (which move only that player)."""
    sql = """
        SELECT t.id, CASE WHEN t.rated THEN t.mode ELSE %s || t.mode END,
               CASE WHEN a.id IS NULL THEN t.winner_team ELSE 1 - a.seat %% 2 END,
               COALESCE(t.finished_at, t.created_at),
               array_agg(s.user_id ORDER BY s.seat), a.seat
          FROM games_table t
          JOIN games_seat s ON s.table_id = t.id
          LEFT JOIN games_abandonment a ON a.table_id = t.id
          LEFT JOIN rankings_ratedgame rg ON rg.table_id = t.id
         WHERE (t.rated OR t.unrated_reason = %s) AND NOT t.practice
           AND ((t.status = %s AND t.winner_team IS NOT NULL)
                OR (t.status = %s AND a.id IS NOT NULL))
         GROUP BY t.id, rg.id, a.id
        HAVING count(*) = 4 AND count(DISTINCT s.user_id) = 4
         ORDER BY rg.id IS NULL, rg.id, t.finished_at, t.id
    """
    with connection.cursor() as cursor:
        cursor.execute(
            sql,
            [
                BOTS_PREFIX,
                Table.UnratedReason.BOTS,
                Table.Status.FINISHED,
                Table.Status.CANCELLED,
            ],
        )
        while rows := cursor.fetchmany(5000):
            yield from rows


def compute_ladder(games: Iterable[LadderGame]) -> Ladder:
    ratings: dict[tuple[int, str], dict[str, object]] = {}
    changes: list[tuple[int, int, str, int, float, float, int, float, str, bool, datetime]] = []
    met: dict[tuple[int, str], Counter[int]] = defaultdict(Counter)
    order: list[tuple[int, str, int, int | None]] = []

    def standing(user_id: int, mode: str) -> dict[str, object]:
        key = (user_id, mode)
        row = ratings.get(key)
        if row is None:
            row = ratings[key] = {
                "rating": elo.INITIAL_RATING,
                "games": 0,
                "met": 0,
                "wins": 0,
                "best_rating": elo.INITIAL_RATING,
                "last_played_at": None,
            }
        return row

    for table_id, mode, winner, played_at, seat_users, abandoned in games:
        rows = [standing(u, mode) for u in seat_users]
        standings = [
            elo.Standing(
                r["rating"], r["games"], u, r["met"], frozenset(met[u, mode]), met[u, mode]
            )
            for u, r in zip(seat_users, rows, strict=True)
        ]
        for seat, move in game_changes(standings, winner, abandoned).items():
            user_id, row = seat_users[seat], rows[seat]
            won = seat % 2 == winner
            changes.append(
                (
                    user_id,
                    table_id,
                    mode,
                    seat,
                    row["rating"],
                    move.after,
                    move.k,
                    move.weight,
                    move.limit,
                    won,
                    played_at,
                )
            )
            row["rating"] = move.after
            row["games"] += 1
            row["wins"] += int(won)
            row["best_rating"] = max(row["best_rating"], move.after)
            if row["last_played_at"] is None or played_at > row["last_played_at"]:
                row["last_played_at"] = played_at
        if abandoned is None:
            for u, row in zip(seat_users, rows, strict=True):
                met[u, mode].update(o for o in seat_users if o != u)
                row["met"] = len(met[u, mode])
        order.append((table_id, mode, winner, abandoned))
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
                    RatedGame(table_id=t, mode=m, winner_team=w, abandoned_seat=a)
                    for t, m, w, a in ladder.games
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
                    PlayerRating(user_id=u, mode=m, **row, **names[u])
                    for (u, m), row in ladder.ratings.items()
                ],
                batch_size=5000,
            )
            RatingChange.objects.bulk_create(
                [
                    RatingChange(
                        user_id=u,
                        table_id=t,
                        mode=m,
                        seat=s,
                        before=b,
                        after=a,
                        k=k,
                        weight=x,
                        limit=lim,
                        won=w,
                        played_at=p,
                    )
                    for u, t, m, s, b, a, k, x, lim, w, p in ladder.changes
                ],
                batch_size=5000,
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
    for key, row in ladder.ratings.items():
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
