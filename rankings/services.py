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
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import NamedTuple, Protocol

from django.db import IntegrityError, connection, transaction
from django.db.models import F, Q

from accounts.models import User
from games.models import Seat, Table
from games.services import LADDER_RESULT, GameEnd, ending_of

from . import elo
from .models import FOREVER, Acquaintance, PlayerRating, RatedGame, RatingChange, bots_ladder

log = logging.getLogger(__name__)


def ladder_of(table: Table) -> str | None:
    """The ladder a game goes on (`ladder_key`)."""
    return ladder_key(table.mode, table.practice, table.rated, table.unrated_reason)


def ladder_key(mode: str, practice: bool, rated: bool, unrated_reason: str) -> str | None:
    """The ladder of a table: its mode's if it is rated; its mode's bots ladder if a player's bot
    account played it with none of the site's bots (games.services.play.start says so); None
    otherwise. `ON_A_LADDER` is the same rule for queries."""
    if practice:
        return None
    if rated:
        return mode
    if unrated_reason == Table.UnratedReason.BOTS:
        return bots_ladder(mode)
    return None


#: `ladder_of(table) is not None` as a filter on tables.
ON_A_LADDER = Q(practice=False) & (Q(rated=True) | Q(unrated_reason=Table.UnratedReason.BOTS))
#: The games a ladder counts: on a ladder, and ended in a way that moves it.
LADDER_GAMES = ON_A_LADDER & LADDER_RESULT


@dataclass(frozen=True, slots=True)
class LadderGame:
    """A game as its ladder counts it (`apply_game`)."""

    table_id: int
    ladder: str
    winner_team: int
    #: The seat whose player abandoned it and alone moves (docs/rules.md §8.4), or None.
    abandoned_seat: int | None
    played_at: datetime
    #: The four players, by seat.
    seat_users: tuple[int, ...]


class Change(NamedTuple):
    """One player's move in one game (a `RatingChange` to be; the recompute holds every one of
    them in memory, where a model instance would cost several times as much)."""

    user_id: int
    table_id: int
    mode: str
    seat: int
    before: float
    after: float
    k: int
    weight: float
    limit: str
    won: bool
    played_at: datetime

    def row(self) -> RatingChange:
        return RatingChange(**self._asdict())


class Row(Protocol):
    """A player's standing on a ladder as `apply_game` moves it: a `PlayerRating`, or the
    recompute's row in memory."""

    rating: float
    games: int
    wins: int
    best_rating: float
    last_played_at: datetime | None


def apply_game(
    game: LadderGame, rows: Sequence[Row], standings: list[elo.Standing]
) -> list[Change]:
    """Move the four players' `rows` (by seat) by `game`, from their `standings` before it: the
    one way a game moves a ladder, for the rating task and the recompute alike. Returns the
    changes, unsaved; who has met whom (`meet`) each keeps in its own storage."""
    changes = []
    for seat, move in game_changes(standings, game.winner_team, game.abandoned_seat).items():
        row = rows[seat]
        won = seat % 2 == game.winner_team
        changes.append(
            Change(
                user_id=game.seat_users[seat],
                table_id=game.table_id,
                mode=game.ladder,
                seat=seat,
                before=row.rating,
                after=move.after,
                k=move.k,
                weight=move.weight,
                limit=move.limit,
                won=won,
                played_at=game.played_at,
            )
        )
        row.rating = move.after
        row.games += 1
        row.wins += int(won)
        row.best_rating = max(row.best_rating, row.rating)
        if row.last_played_at is None or game.played_at > row.last_played_at:
            row.last_played_at = game.played_at
    return changes


def ladder_game(
    table: Table, ending: GameEnd | None, seat_users: Sequence[int]
) -> LadderGame | None:
    """What `table`'s game, ended as `ending` says, brings to its ladder (None: nothing)."""
    ladder = ladder_of(table)
    result = None if ending is None else ending.ladder_result
    if ladder is None or result is None:
        return None
    winner_team, abandoned_seat = result
    played_at = table.finished_at or table.created_at
    return LadderGame(table.pk, ladder, winner_team, abandoned_seat, played_at, tuple(seat_users))


def is_ratable(table: Table) -> bool:
    """A game for a ladder that was played to the end, or that a player abandoned and was charged
    for (docs/rules.md §8.4)."""
    if ladder_of(table) is None:
        return False  # (asks the database nothing)
    return ladder_game(table, ending_of(table, blame=False), ()) is not None


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
    ending = ending_of(table, blame=False)
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
    game = ladder_game(table, ending, seat_users)
    assert game is not None
    ladder = game.ladder
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
                    winner_team=game.winner_team,
                    abandoned_seat=game.abandoned_seat,
                )
        except IntegrityError:
            transaction.set_rollback(True)
            return False  # somebody else rated it first
        acquaintances = acquaintances_of(ladder, [rows[u] for u in seat_users])
        shared = shared_games(ladder, seat_users)
        standings = [standing_of(rows[u], acquaintances, shared[u]) for u in seat_users]
        games_before = {u: rows[u].games for u in seat_users}
        changes = apply_game(game, [rows[u] for u in seat_users], standings)
        if game.abandoned_seat is None:
            meet(ladder, seat_users, rows, shared)
        buckets = BucketMoves(ladder)
        for change in changes:
            buckets.move(change.before, games_before[change.user_id], change.after)
            row = rows[change.user_id]
            for key, value in PlayerRating.player_fields(*accounts[change.user_id]).items():
                setattr(row, key, value)
        RatingChange.objects.bulk_create([change.row() for change in changes])
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
    """Games a ladder counts (`LADDER_GAMES`) that have not been applied yet (a lost task, a
    broker outage)."""
    qs = (
        Table.objects.filter(LADDER_GAMES, rating__isnull=True)
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
    "LADDER_GAMES",
    "Change",
    "LadderGame",
    "apply_game",
    "changes_by_table",
    "pending_table_ids",
    "rate_table",
    "ratings_by_user",
]


def refresh_player(user: User) -> int:
    """Keep a player's ladder rows in step with their account (names, ban)."""
    fields = PlayerRating.player_fields(*(getattr(user, f) for f in PlayerRating.PLAYER_FIELDS))
    return PlayerRating.objects.filter(user_id=user.pk).exclude(**fields).update(**fields)
