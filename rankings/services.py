"""Applying finished games to the ladders, exactly once (``rankings.recompute`` rebuilds them).

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
from collections.abc import Iterable

from django.db import IntegrityError, connection, transaction
from django.db.models import F, Q

from accounts.models import User
from games.models import Abandonment, Seat, Table

from . import elo
from .models import FOREVER, Acquaintance, PlayerRating, RatedGame, RatingChange, bots_ladder

log = logging.getLogger(__name__)


def ladder_of(table: Table) -> str | None:
    """The ladder a game goes on: its mode's if it is rated; its mode's bots ladder if a player's
    bot account played it with none of the site's bots (games.services.play.start said so);
    None otherwise."""
    if table.practice:
        return None
    if table.rated:
        return table.mode
    if table.unrated_reason == Table.UnratedReason.BOTS:
        return bots_ladder(table.mode)
    return None


def is_ratable(table: Table) -> bool:
    """A game for a ladder that was played to the end, or that a player abandoned
    (docs/rules.md §8.4)."""
    return ladder_of(table) is not None and _outcome(table) is not None


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


def acquaintances_of(mode: str, seat_rows: list[PlayerRating]) -> dict[int, frozenset[int]]:
    """The players each of the four (in seat order) has met: all of them for those whose list
    `elo.weight_of` may read in full (`elo.needs_list`), and for the others only those among
    the first ones' lists (all it reads of them)."""
    mets = [r.met for r in seat_rows]
    full = [r.user_id for seat, r in enumerate(seat_rows) if elo.needs_list(seat, mets)]
    rest = [r.user_id for r in seat_rows if r.user_id not in full]
    met: dict[int, set[int]] = {r.user_id: set() for r in seat_rows}
    for user_id, other_id in Acquaintance.objects.filter(mode=mode, user_id__in=full).values_list(
        "user_id", "other_id"
    ):
        met[user_id].add(other_id)
    listed = set().union(*(met[u] for u in full))
    if rest and listed:
        for user_id, other_id in Acquaintance.objects.filter(
            mode=mode, user_id__in=rest, other_id__in=listed
        ).values_list("user_id", "other_id"):
            met[user_id].add(other_id)
    return {u: frozenset(others) for u, others in met.items()}


def shared_games(mode: str, seat_users: list[int]) -> dict[int, dict[int, int]]:
    """How many rated games each of the four has played with each of the other three."""
    shared: dict[int, dict[int, int]] = {u: {} for u in seat_users}
    for user_id, other_id, games in Acquaintance.objects.filter(
        mode=mode, user_id__in=seat_users, other_id__in=seat_users
    ).values_list("user_id", "other_id", "games"):
        shared[user_id][other_id] = games
    return shared


def standing_of(
    row: PlayerRating, acquaintances: dict[int, frozenset[int]], shared: dict[int, int]
) -> elo.Standing:
    return elo.Standing(
        row.rating,
        row.games,
        row.user_id,
        row.met,
        acquaintances.get(row.user_id, frozenset()),
        shared,
    )


def meet(
    mode: str,
    seat_users: list[int],
    rows: dict[int, PlayerRating],
    shared: dict[int, dict[int, int]],
) -> None:
    """Record that the four players of a game played to the end have met (``met`` counts the new
    acquaintances of each; ``shared`` holds the games they had already played together)."""
    Acquaintance.objects.filter(mode=mode, user_id__in=seat_users, other_id__in=seat_users).update(
        games=F("games") + 1
    )
    new = [(u, o) for u in seat_users for o in seat_users if u != o and o not in shared[u]]
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
    ladder: str = ladder_of(table)  # type: ignore[assignment]
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
                PlayerRating(user_id=u, mode=ladder, **PlayerRating.player_fields(*accounts[u]))
                for u in seat_users
            ],
            ignore_conflicts=True,
        )
        rows = {
            r.user_id: r
            for r in PlayerRating.objects.select_for_update()
            .filter(mode=ladder, user_id__in=seat_users)
            .order_by("id")
        }
        try:
            with transaction.atomic():
                RatedGame.objects.create(
                    table_id=table_id,
                    mode=ladder,
                    winner_team=winner_team,
                    abandoned_seat=abandoned_seat,
                )
        except IntegrityError:
            transaction.set_rollback(True)
            return False  # somebody else rated it first
        played_at = table.finished_at or table.created_at
        buckets = BucketMoves(ladder)
        acquaintances = acquaintances_of(ladder, [rows[u] for u in seat_users])
        shared = shared_games(ladder, seat_users)
        standings = [standing_of(rows[u], acquaintances, shared[u]) for u in seat_users]
        moves = game_changes(standings, winner_team, abandoned_seat)
        if abandoned_seat is None:
            meet(ladder, seat_users, rows, shared)
        changes = []
        for seat, move in moves.items():
            user_id = seat_users[seat]
            row = rows[user_id]
            won = seat % 2 == winner_team
            changes.append(
                RatingChange(
                    user_id=user_id,
                    table_id=table_id,
                    mode=ladder,
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
    """Games for a ladder (`ladder_of`) finished or abandoned that have not been applied yet (a
    lost task, a broker outage)."""
    finished = Q(status=Table.Status.FINISHED, winner_team__isnull=False)
    abandoned = Q(status=Table.Status.CANCELLED, abandonment__isnull=False)
    qs = (
        Table.objects.filter(
            finished | abandoned,
            Q(rated=True) | Q(unrated_reason=Table.UnratedReason.BOTS),
            practice=False,
            rating__isnull=True,
        )
        .order_by("finished_at", "pk")
        .values_list("pk", flat=True)
    )
    return list(qs[:limit] if limit else qs)


def ratings_by_user(user_ids: Iterable[int], mode: str) -> dict[int, PlayerRating]:
    return {r.user_id: r for r in PlayerRating.objects.filter(mode=mode, user_id__in=user_ids)}


def changes_by_table(table_ids: Iterable[int], user_id: int) -> dict[int, RatingChange]:
    out: dict[int, RatingChange] = {}
    for change in RatingChange.objects.filter(table_id__in=list(table_ids), user_id=user_id):
        out[change.table_id] = change
    return out


__all__ = [
    "changes_by_table",
    "pending_table_ids",
    "rate_table",
    "ratings_by_user",
]


def refresh_player(user: User) -> int:
    """Keep a player's ladder rows in step with their account (names, ban)."""
    fields = PlayerRating.player_fields(*(getattr(user, f) for f in PlayerRating.PLAYER_FIELDS))
    return PlayerRating.objects.filter(user_id=user.pk).exclude(**fields).update(**fields)
