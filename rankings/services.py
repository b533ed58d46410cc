"""Applying finished games to the ladders, exactly once, and recomputing the ladders.

``rate_table`` runs in one transaction: it locks the four players' rating rows (in id order, so
two games sharing a player queue up instead of deadlocking), then inserts the game's
``RatedGame`` mark. The mark's unique table makes a second run (or a concurrent one) fail there
and change nothing; because it is inserted after the locks are held, the marks' ids follow the
order in which games sharing a player were applied, and ``recompute`` replays them in that order.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import datetime

from django.db import IntegrityError, connection, transaction

from games.models import Seat, Table

from . import elo
from .models import PlayerRating, RatedGame, RatingChange

log = logging.getLogger(__name__)


def is_ratable(table: Table) -> bool:
    return (
        table.status == Table.Status.FINISHED
        and table.rated
        and not table.practice
        and table.winner_team in (0, 1)
    )


def rate_table(table_id: int) -> bool:
    """Apply one finished game to its ladder. True if this call applied it, False otherwise."""
    table = Table.objects.filter(pk=table_id).first()
    if table is None or not is_ratable(table):
        return False
    if RatedGame.objects.filter(table_id=table_id).exists():
        return False
    users = dict(Seat.objects.filter(table_id=table_id).values_list("seat", "user_id"))
    if sorted(users) != [0, 1, 2, 3] or len(set(users.values())) != 4:
        log.warning("table %s finished without four different players: not rated", table_id)
        return False
    seat_users = [users[s] for s in range(4)]
    with transaction.atomic():
        PlayerRating.objects.bulk_create(
            [PlayerRating(user_id=u, mode=table.mode) for u in seat_users], ignore_conflicts=True
        )
        rows = {
            r.user_id: r
            for r in PlayerRating.objects.select_for_update()
            .filter(mode=table.mode, user_id__in=seat_users)
            .order_by("id")
        }
        try:
            with transaction.atomic():
                RatedGame.objects.create(
                    table_id=table_id, mode=table.mode, winner_team=table.winner_team
                )
        except IntegrityError:
            return False  # somebody else rated it first
        played_at = table.finished_at or table.created_at
        standings = [elo.Standing(rows[u].rating, rows[u].games) for u in seat_users]
        after = elo.rate(standings, table.winner_team)
        changes = []
        for seat, user_id in enumerate(seat_users):
            row = rows[user_id]
            won = seat % 2 == table.winner_team
            changes.append(
                RatingChange(
                    user_id=user_id,
                    table_id=table_id,
                    mode=table.mode,
                    seat=seat,
                    before=row.rating,
                    after=after[seat],
                    k=elo.k_factor(row.games),
                    won=won,
                    played_at=played_at,
                )
            )
            row.rating = after[seat]
            row.games += 1
            row.wins += int(won)
            row.best_rating = max(row.best_rating, row.rating)
            if row.last_played_at is None or played_at > row.last_played_at:
                row.last_played_at = played_at
        RatingChange.objects.bulk_create(changes)
        PlayerRating.objects.bulk_update(
            list(rows.values()), ["rating", "games", "wins", "best_rating", "last_played_at"]
        )
    return True


def pending_table_ids(limit: int | None = None) -> list[int]:
    """Finished rated games that have not been applied yet (a lost task, a broker outage)."""
    qs = (
        Table.objects.filter(
            status=Table.Status.FINISHED,
            rated=True,
            practice=False,
            winner_team__isnull=False,
            rating__isnull=True,
        )
        .order_by("finished_at", "pk")
        .values_list("pk", flat=True)
    )
    return list(qs[:limit] if limit else qs)


# --------------------------------------------------------------------------------------------
# Recomputing the ladders from the games.
# --------------------------------------------------------------------------------------------
@dataclass
class Ladder:
    """Every player's standing and every change, as recomputed in memory."""

    ratings: dict[tuple[int, str], dict[str, object]]
    changes: list[tuple[int, int, str, int, float, float, int, bool, datetime]]
    games: list[tuple[int, str, int]]  # (table_id, mode, winner_team) in application order


def _games_in_order() -> Iterator[tuple[int, str, int, datetime, list[int]]]:
    """Rated games in the order they were applied, then games never applied (by finish time)."""
    sql = """
        SELECT t.id, t.mode, t.winner_team, COALESCE(t.finished_at, t.created_at),
               array_agg(s.user_id ORDER BY s.seat)
          FROM games_table t
          JOIN games_seat s ON s.table_id = t.id
          LEFT JOIN rankings_ratedgame rg ON rg.table_id = t.id
         WHERE t.status = %s AND t.rated AND NOT t.practice AND t.winner_team IS NOT NULL
         GROUP BY t.id, rg.id
        HAVING count(*) = 4 AND count(DISTINCT s.user_id) = 4
         ORDER BY rg.id IS NULL, rg.id, t.finished_at, t.id
    """
    with connection.cursor() as cursor:
        cursor.execute(sql, [Table.Status.FINISHED])
        while rows := cursor.fetchmany(5000):
            yield from rows


def compute_ladder(games: Iterable[tuple[int, str, int, datetime, list[int]]]) -> Ladder:
    ratings: dict[tuple[int, str], dict[str, object]] = {}
    changes: list[tuple[int, int, str, int, float, float, int, bool, datetime]] = []
    order: list[tuple[int, str, int]] = []

    def standing(user_id: int, mode: str) -> dict[str, object]:
        key = (user_id, mode)
        row = ratings.get(key)
        if row is None:
            row = ratings[key] = {
                "rating": elo.INITIAL_RATING,
                "games": 0,
                "wins": 0,
                "best_rating": elo.INITIAL_RATING,
                "last_played_at": None,
            }
        return row

    for table_id, mode, winner, played_at, seat_users in games:
        rows = [standing(u, mode) for u in seat_users]
        after = elo.rate([elo.Standing(r["rating"], r["games"]) for r in rows], winner)
        for seat, (user_id, row) in enumerate(zip(seat_users, rows, strict=True)):
            won = seat % 2 == winner
            changes.append(
                (
                    user_id,
                    table_id,
                    mode,
                    seat,
                    row["rating"],
                    after[seat],
                    elo.k_factor(row["games"]),
                    won,
                    played_at,
                )
            )
            row["rating"] = after[seat]
            row["games"] += 1
            row["wins"] += int(won)
            row["best_rating"] = max(row["best_rating"], after[seat])
            if row["last_played_at"] is None or played_at > row["last_played_at"]:
                row["last_played_at"] = played_at
        order.append((table_id, mode, winner))
    return Ladder(ratings, changes, order)


def recompute(*, write: bool = True) -> tuple[Ladder, list[str]]:
    """Recompute every ladder from the finished games; return it and the differences found.

    With ``write`` the stored ladders are replaced by the recomputed ones (in one transaction,
    under a lock that keeps rating tasks waiting meanwhile).
    """
    ladder = compute_ladder(_games_in_order())
    differences = compare(ladder)
    if write and differences:
        with transaction.atomic():
            with connection.cursor() as cursor:
                cursor.execute(
                    "LOCK TABLE rankings_playerrating, rankings_ratedgame, rankings_ratingchange"
                    " IN EXCLUSIVE MODE"
                )
            RatingChange.objects.all().delete()
            RatedGame.objects.all().delete()
            PlayerRating.objects.all().delete()
            RatedGame.objects.bulk_create(
                [RatedGame(table_id=t, mode=m, winner_team=w) for t, m, w in ladder.games],
                batch_size=5000,
            )
            PlayerRating.objects.bulk_create(
                [PlayerRating(user_id=u, mode=m, **row) for (u, m), row in ladder.ratings.items()],
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
                        won=w,
                        played_at=p,
                    )
                    for u, t, m, s, b, a, k, w, p in ladder.changes
                ],
                batch_size=5000,
            )
    return ladder, differences


def compare(ladder: Ladder, limit: int = 20) -> list[str]:
    """Differences between the stored ladders and ``ladder`` (empty when they agree exactly)."""
    differences: list[str] = []
    stored = {
        (r["user_id"], r["mode"]): r
        for r in PlayerRating.objects.values(
            "user_id", "mode", "rating", "games", "wins", "best_rating", "last_played_at"
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
    per_player: dict[tuple[int, int], tuple[float, float]] = {
        (u, t): (b, a) for u, t, _m, _s, b, a, _k, _w, _p in ladder.changes
    }
    stored_changes = RatingChange.objects.values_list("user_id", "table_id", "before", "after")
    count = 0
    for u, t, b, a in stored_changes.iterator(chunk_size=10000):
        count += 1
        if per_player.get((u, t)) != (b, a):
            differences.append(f"change user {u} game {t}: stored {b!r}→{a!r}")
            if len(differences) >= limit:
                return differences
    if count != len(per_player):
        differences.append(f"{count} stored changes, {len(per_player)} recomputed")
    return differences


def ratings_by_user(user_ids: Iterable[int], mode: str) -> dict[int, PlayerRating]:
    return {r.user_id: r for r in PlayerRating.objects.filter(mode=mode, user_id__in=user_ids)}


def changes_by_table(table_ids: Iterable[int], user_id: int) -> dict[int, RatingChange]:
    out: dict[int, RatingChange] = {}
    for change in RatingChange.objects.filter(table_id__in=list(table_ids), user_id=user_id):
        out[change.table_id] = change
    return out


__all__ = [
    "Ladder",
    "changes_by_table",
    "compare",
    "compute_ladder",
    "pending_table_ids",
    "rate_table",
    "ratings_by_user",
    "recompute",
]
