"""Applying finished games to the ladders, exactly once, and recomputing the ladders.

``rate_table`` runs in one transaction: it locks the four players' rating rows (in id order, so
two games sharing a player queue up instead of deadlocking), then inserts the game's
``RatedGame`` mark. The mark's unique table makes a second run (or a concurrent one) fail there
and change nothing; because it is inserted after the locks are held, the marks' ids follow the
order in which games sharing a player were applied, and ``recompute`` replays them in that order.
"""

from __future__ import annotations

import logging
import math
from collections import defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import datetime

from django.db import IntegrityError, connection, transaction
from django.db.models import Q

from accounts.models import User
from games.models import Abandonment, Seat, Table

from . import elo
from .models import FOREVER, Acquaintance, PlayerRating, RatedGame, RatingChange

log = logging.getLogger(__name__)


def is_ratable(table: Table) -> bool:
    """A rated game that was played to the end, or that a player abandoned (RULES.md §8.4)."""
    return table.rated and not table.practice and _outcome(table) is not None


def _outcome(table: Table) -> tuple[int, int | None] | None:
    """(winner team, abandoned seat or None) of a game that goes on the ladder, else None."""
    if table.status == Table.Status.FINISHED and table.winner_team in (0, 1):
        return table.winner_team, None
    if (
        table.status == Table.Status.CANCELLED
        and table.cancel_reason == Table.CancelReason.ABANDONED
        and table.abandoned_seat is not None
        and Abandonment.objects.filter(table_id=table.pk).exists()
    ):
        return 1 - table.abandoned_seat % 2, table.abandoned_seat
    return None


def game_changes(
    standings: list[elo.Standing], winner_team: int, abandoned_seat: int | None
) -> dict[int, elo.Change]:
    """The seats a game moves and how: all four, or only the player who abandoned it."""
    if abandoned_seat is None:
        return dict(enumerate(elo.changes(standings, winner_team)))
    return {abandoned_seat: elo.abandonment_change(standings, abandoned_seat)}


def acquaintances_of(mode: str, rows: Iterable[PlayerRating]) -> dict[int, frozenset[int]]:
    """The players each of ``rows`` has met, for those whose count alone does not fill a circle
    (`elo.circle` needs no list for the others)."""
    wanted = [r.user_id for r in rows if r.met - 3 < elo.CIRCLE_FULL]
    met: dict[int, set[int]] = {u: set() for u in wanted}
    for user_id, other_id in Acquaintance.objects.filter(mode=mode, user_id__in=wanted).values_list(
        "user_id", "other_id"
    ):
        met[user_id].add(other_id)
    return {u: frozenset(others) for u, others in met.items()}


def standing_of(row: PlayerRating, acquaintances: dict[int, frozenset[int]]) -> elo.Standing:
    return elo.Standing(
        row.rating, row.games, row.user_id, row.met, acquaintances.get(row.user_id, frozenset())
    )


def meet(mode: str, seat_users: list[int], rows: dict[int, PlayerRating]) -> None:
    """Record that the four players of a game played to the end have met (``met`` counts the new
    acquaintances of each)."""
    known = set(
        Acquaintance.objects.filter(
            mode=mode, user_id__in=seat_users, other_id__in=seat_users
        ).values_list("user_id", "other_id")
    )
    new = [(u, o) for u in seat_users for o in seat_users if u != o and (u, o) not in known]
    Acquaintance.objects.bulk_create(
        [Acquaintance(user_id=u, other_id=o, mode=mode) for u, o in new], ignore_conflicts=True
    )
    for user_id, _other in new:
        rows[user_id].met += 1


def rate_table(table_id: int) -> bool:
    """Apply one finished (or abandoned) game to its ladder. True if this call applied it."""
    table = Table.objects.filter(pk=table_id).first()
    if table is None or not is_ratable(table):
        return False
    winner_team, abandoned_seat = _outcome(table)  # type: ignore[misc]
    if RatedGame.objects.filter(table_id=table_id).exists():
        return False
    seated = Seat.objects.filter(table_id=table_id).values_list(
        "seat", "user_id", *(f"user__{f}" for f in PlayerRating.PLAYER_FIELDS)
    )
    users = {seat: user_id for seat, user_id, *_account in seated}
    accounts = {user_id: account for _s, user_id, *account in seated}
    if sorted(users) != [0, 1, 2, 3] or len(set(users.values())) != 4:
        log.warning("table %s finished without four different players: not rated", table_id)
        return False
    seat_users = [users[s] for s in range(4)]
    with transaction.atomic():
        PlayerRating.objects.bulk_create(
            [
                PlayerRating(user_id=u, mode=table.mode, **PlayerRating.player_fields(*accounts[u]))
                for u in seat_users
            ],
            ignore_conflicts=True,
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
                    table_id=table_id,
                    mode=table.mode,
                    winner_team=winner_team,
                    abandoned_seat=abandoned_seat,
                )
        except IntegrityError:
            transaction.set_rollback(True)
            return False  # somebody else rated it first
        played_at = table.finished_at or table.created_at
        buckets = BucketMoves(table.mode)
        acquaintances = acquaintances_of(table.mode, rows.values())
        standings = [standing_of(rows[u], acquaintances) for u in seat_users]
        moves = game_changes(standings, winner_team, abandoned_seat)
        if abandoned_seat is None:
            meet(table.mode, seat_users, rows)
        changes = []
        for seat, move in moves.items():
            user_id = seat_users[seat]
            row = rows[user_id]
            won = seat % 2 == winner_team
            changes.append(
                RatingChange(
                    user_id=user_id,
                    table_id=table_id,
                    mode=table.mode,
                    seat=seat,
                    before=row.rating,
                    after=move.after,
                    k=move.k,
                    weight=move.weight,
                    limit=move.limit,
                    won=won,
                    played_at=played_at,
                )
            )
            buckets.move(row.rating, row.games, move.after)
            row.rating = move.after
            row.games += 1
            row.wins += int(won)
            row.best_rating = max(row.best_rating, row.rating)
            if row.last_played_at is None or played_at > row.last_played_at:
                row.last_played_at = played_at
            for key, value in PlayerRating.player_fields(*accounts[user_id]).items():
                setattr(row, key, value)
        RatingChange.objects.bulk_create(changes)
        buckets.save()
        PlayerRating.objects.bulk_update(
            [rows[u] for u in seat_users],
            [
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
    return True


def bucket_of(rating: float) -> int:
    return math.floor(rating)


class BucketMoves:
    """The changes a game makes to its ladder's rating buckets, saved in one statement."""

    def __init__(self, mode: str) -> None:
        self.mode = mode
        self.deltas: dict[int, list[int]] = defaultdict(lambda: [0, 0])

    def move(self, before: float, games_before: int, after: float) -> None:
        if games_before > 0:  # a player's first game brings them onto the ladder
            old = self.deltas[bucket_of(before)]
            old[0] -= 1
            old[1] -= int(games_before >= elo.PROVISIONAL_GAMES)
        new = self.deltas[bucket_of(after)]
        new[0] += 1
        new[1] += int(games_before + 1 >= elo.PROVISIONAL_GAMES)

    def save(self) -> None:
        # In bucket order, so that concurrent games lock shared buckets in the same order.
        rows = [(b, d) for b, d in sorted(self.deltas.items()) if d != [0, 0]]
        if not rows:
            return
        values = ", ".join(["(%s, %s, %s, %s)"] * len(rows))
        params: list[object] = []
        for bucket, (players, established) in rows:
            params += [self.mode, bucket, players, established]
        with connection.cursor() as cursor:
            cursor.execute(
                "INSERT INTO rankings_ratingbucket (mode, bucket, players, established)"
                f" VALUES {values} ON CONFLICT (mode, bucket) DO UPDATE SET"
                " players = rankings_ratingbucket.players + EXCLUDED.players,"
                " established = rankings_ratingbucket.established + EXCLUDED.established",
                params,
            )


SYNC_PLAYERS_SQL = """
    UPDATE rankings_playerrating pr
       SET username_key = lower(u.username), display_key = lower(u.display_name),
           hidden_until = CASE
               WHEN NOT u.is_active THEN %(forever)s
               WHEN u.banned_at IS NOT NULL THEN COALESCE(u.banned_until, %(forever)s)
           END
      FROM accounts_user u
     WHERE u.id = pr.user_id
"""
REBUILD_BUCKETS_SQL = """
    DELETE FROM rankings_ratingbucket;
    INSERT INTO rankings_ratingbucket (mode, bucket, players, established)
    SELECT mode, floor(rating)::int, count(*), count(*) FILTER (WHERE games >= %(established)s)
      FROM rankings_playerrating WHERE games > 0 GROUP BY 1, 2;
"""


def rebuild_buckets() -> None:
    with connection.cursor() as cursor:
        for statement in REBUILD_BUCKETS_SQL.split(";"):
            if statement.strip():
                cursor.execute(statement, {"established": elo.PROVISIONAL_GAMES})


def sync_players() -> None:
    """Copy every player's names and ban into the ladders (after changes made with .update())."""
    with connection.cursor() as cursor:
        cursor.execute(SYNC_PLAYERS_SQL, {"forever": FOREVER})


def pending_table_ids(limit: int | None = None) -> list[int]:
    """Rated games finished or abandoned that have not been applied yet (a lost task, a broker
    outage)."""
    finished = Q(status=Table.Status.FINISHED, winner_team__isnull=False)
    abandoned = Q(status=Table.Status.CANCELLED, abandonment__isnull=False)
    qs = (
        Table.objects.filter(finished | abandoned, rated=True, practice=False, rating__isnull=True)
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
    changes: list[tuple[int, int, str, int, float, float, int, float, str, bool, datetime]]
    # who has met whom, by mode (Acquaintance rows)
    acquaintances: dict[tuple[int, str], set[int]]
    # (table_id, mode, winner_team, abandoned seat or None) in application order
    games: list[tuple[int, str, int, int | None]]


#: A game on the ladder: table, mode, winner team, when, the four players by seat, and the seat
#: abandoned (RULES.md §8.4) or None.
LadderGame = tuple[int, str, int, datetime, list[int], int | None]


def _games_in_order() -> Iterator[LadderGame]:
    """Rated games in the order they were applied, then games never applied (by finish time):
    those played to the end, and those a player abandoned (which move only that player)."""
    sql = """
        SELECT t.id, t.mode,
               CASE WHEN a.id IS NULL THEN t.winner_team ELSE 1 - a.seat %% 2 END,
               COALESCE(t.finished_at, t.created_at),
               array_agg(s.user_id ORDER BY s.seat), a.seat
          FROM games_table t
          JOIN games_seat s ON s.table_id = t.id
          LEFT JOIN games_abandonment a ON a.table_id = t.id
          LEFT JOIN rankings_ratedgame rg ON rg.table_id = t.id
         WHERE t.rated AND NOT t.practice
           AND ((t.status = %s AND t.winner_team IS NOT NULL)
                OR (t.status = %s AND a.id IS NOT NULL))
         GROUP BY t.id, rg.id, a.id
        HAVING count(*) = 4 AND count(DISTINCT s.user_id) = 4
         ORDER BY rg.id IS NULL, rg.id, t.finished_at, t.id
    """
    with connection.cursor() as cursor:
        cursor.execute(sql, [Table.Status.FINISHED, Table.Status.CANCELLED])
        while rows := cursor.fetchmany(5000):
            yield from rows


def compute_ladder(games: Iterable[LadderGame]) -> Ladder:
    ratings: dict[tuple[int, str], dict[str, object]] = {}
    changes: list[tuple[int, int, str, int, float, float, int, float, str, bool, datetime]] = []
    met: dict[tuple[int, str], set[int]] = defaultdict(set)
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
            elo.Standing(r["rating"], r["games"], u, r["met"], frozenset(met[u, mode]))
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
                met[u, mode] |= set(seat_users) - {u}
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
                    Acquaintance(user_id=u, other_id=o, mode=m)
                    for (u, m), others in ladder.acquaintances.items()
                    for o in sorted(others)
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


def refresh_player(user: User) -> int:
    """Keep a player's ladder rows in step with their account (names, ban)."""
    fields = PlayerRating.player_fields(*(getattr(user, f) for f in PlayerRating.PLAYER_FIELDS))
    return PlayerRating.objects.filter(user_id=user.pk).exclude(**fields).update(**fields)
