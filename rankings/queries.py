"""The queries behind the pages. Each page costs a fixed number of queries, whatever the data size.

Paging is by offset with one extra row fetched to know whether a next page exists (no COUNT over
a 100,000-row ladder on every page view).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from django.db import connection
from django.db.models import Exists, F, OuterRef, Q, QuerySet
from django.utils import timezone

from accounts.models import User
from games.models import MODE_CHOICES, Seat, Table

from .models import PlayerRating, RatingChange

MODES = [m for m, _label in MODE_CHOICES]
DEFAULT_MODE = "4-reyes"
LEADERBOARD_PAGE = 25
HISTORY_PAGE = 20
MAX_PAGE = 10_000
SEARCH_MAX = 40
RESULTS = ("ganadas", "perdidas", "canceladas")
ENDED = (Table.Status.FINISHED, Table.Status.CANCELLED)
USER_FIELDS = ("id", "username", "display_name", "is_bot")


def parse_mode(value: str | None, *, allow_all: bool = False) -> str:
    if value in MODES:
        return value
    return "" if allow_all else DEFAULT_MODE


def parse_page(value: str | None) -> int:
    try:
        page = int(value or 1)
    except ValueError:
        return 1
    return max(1, min(page, MAX_PAGE))


def visible_players(prefix: str = "user__") -> Q:
    """Players shown on leaderboards: active and not banned (a ban that has run out is over)."""
    not_banned = Q(**{f"{prefix}banned_at__isnull": True}) | Q(
        **{f"{prefix}banned_until__lte": timezone.now()}
    )
    return Q(**{f"{prefix}is_active": True}) & not_banned


@dataclass
class Page:
    number: int
    per_page: int
    rows: list[Any]
    has_next: bool

    @property
    def has_previous(self) -> bool:
        return self.number > 1

    @property
    def previous_number(self) -> int:
        return self.number - 1

    @property
    def next_number(self) -> int:
        return self.number + 1

    @property
    def offset(self) -> int:
        return (self.number - 1) * self.per_page


def _paged(qs: QuerySet[Any], number: int, per_page: int) -> Page:
    offset = (number - 1) * per_page
    rows = list(qs[offset : offset + per_page + 1])
    return Page(number, per_page, rows[:per_page], len(rows) > per_page)


# --------------------------------------------------------------------------------------------
# Leaderboard.
# --------------------------------------------------------------------------------------------
def leaderboard(
    mode: str, *, query: str = "", page: int = 1, established: bool = False
) -> tuple[Page, str]:
    """One page of a ladder; each row gets ``rank`` (its place on the whole, unsearched ladder)."""
    qs = (
        PlayerRating.objects.filter(mode=mode, games__gt=0)
        .filter(visible_players())
        .select_related("user")
        .only(
            "mode",
            "rating",
            "games",
            "wins",
            "last_played_at",
            "user",
            *(f"user__{f}" for f in USER_FIELDS),
        )
        .order_by("-rating", "id")
    )
    if established:
        qs = qs.filter(games__gte=30)
    query = query.strip()[:SEARCH_MAX]
    if query:
        qs = qs.filter(
            Q(user__username__istartswith=query) | Q(user__display_name__istartswith=query)
        )
    result = _paged(qs, page, LEADERBOARD_PAGE)
    if query and result.rows:
        ranks = _ranks(mode, result.rows, established)
        for row in result.rows:
            row.rank = ranks[row.pk]
    else:
        for i, row in enumerate(result.rows, result.offset + 1):
            row.rank = i
    return result, query


def _ranks(mode: str, rows: list[PlayerRating], established: bool) -> dict[int, int]:
    """Ladder places of a few rows, in one query: 1 + visible players ordered before each."""
    now = timezone.now()
    sql = f"""
        SELECT v.id, 1 + (
            SELECT count(*) FROM rankings_playerrating pr
              JOIN accounts_user u ON u.id = pr.user_id
             WHERE pr.mode = %s AND pr.games > 0 {"AND pr.games >= 30" if established else ""}
               AND u.is_active AND (u.banned_at IS NULL OR u.banned_until <= %s)
               AND (pr.rating > v.rating OR (pr.rating = v.rating AND pr.id < v.id))
        )
          FROM unnest(%s::bigint[], %s::float8[]) AS v(id, rating)
    """
    with connection.cursor() as cursor:
        cursor.execute(sql, [mode, now, [r.pk for r in rows], [r.rating for r in rows]])
        return dict(cursor.fetchall())


# --------------------------------------------------------------------------------------------
# Game lists (history, profile).
# --------------------------------------------------------------------------------------------
@dataclass
class GameRow:
    table: Table
    seats: list[Seat | None] = field(default_factory=lambda: [None] * 4)
    seat: int | None = None  # the followed player's seat
    change: RatingChange | None = None

    @property
    def cancelled(self) -> bool:
        return self.table.status == Table.Status.CANCELLED

    @property
    def result(self) -> str:
        if self.cancelled:
            return "cancelada"
        if self.seat is None:
            return ""
        return "ganada" if self.table.winner_team == self.seat % 2 else "perdida"

    @property
    def teams(self) -> list[list[Seat | None]]:
        return [[self.seats[0], self.seats[2]], [self.seats[1], self.seats[3]]]

    @property
    def partner(self) -> Seat | None:
        return None if self.seat is None else self.seats[(self.seat + 2) % 4]

    @property
    def opponents(self) -> list[Seat | None]:
        if self.seat is None:
            return []
        return [self.seats[(self.seat + 1) % 4], self.seats[(self.seat + 3) % 4]]

    @property
    def my_scores(self) -> list[int]:
        scores = list(self.table.scores or [0, 0])
        if self.seat is not None and self.seat % 2 == 1:
            scores.reverse()
        return scores


def can_see_private(viewer: Any, player: User | None) -> bool:
    if viewer is None or not viewer.is_authenticated:
        return False
    return viewer.is_staff or (player is not None and viewer.pk == player.pk)


def private_filter(viewer: Any, prefix: str = "table__") -> Q:
    """Public games, or private ones the viewer sat at."""
    public = Q(**{f"{prefix}private": False})
    if viewer is None or not viewer.is_authenticated:
        return public
    sat = Exists(Seat.objects.filter(table_id=OuterRef(f"{prefix}id"), user_id=viewer.pk))
    return public | Q(sat)


TABLE_FIELDS = (
    "mode",
    "private",
    "rated",
    "practice",
    "status",
    "scores",
    "winner_team",
    "ended_by",
    "cancel_reason",
    "created_at",
    "finished_at",
)


def player_games(
    player: User,
    viewer: Any,
    *,
    mode: str = "",
    result: str = "",
    page: int = 1,
    per_page: int = HISTORY_PAGE,
) -> Page:
    """A player's finished and cancelled games, latest first (3 queries)."""
    qs = (
        Seat.objects.filter(user=player, table__status__in=ENDED)
        .select_related("table")
        .only("seat", "table", *(f"table__{f}" for f in TABLE_FIELDS))
        .annotate(seat_team=F("seat") % 2)
        .order_by("-table__finished_at", "-table_id")
    )
    if mode:
        qs = qs.filter(table__mode=mode)
    if result == "ganadas":
        qs = qs.filter(table__status=Table.Status.FINISHED, table__winner_team=F("seat_team"))
    elif result == "perdidas":
        qs = qs.filter(table__status=Table.Status.FINISHED).exclude(
            table__winner_team=F("seat_team")
        )
    elif result == "canceladas":
        qs = qs.filter(table__status=Table.Status.CANCELLED)
    if not can_see_private(viewer, player):
        qs = qs.filter(private_filter(viewer))
    found = _paged(qs, page, per_page)
    rows = [GameRow(table=s.table, seat=s.seat) for s in found.rows]
    _fill_rows(rows, change_user=player.pk)
    found.rows = rows
    return found


def recent_games(viewer: Any, *, mode: str = "", page: int = 1) -> Page:
    """Everybody's latest finished games (the history page without a player), 2 queries."""
    qs = (
        Table.objects.filter(status=Table.Status.FINISHED)
        .filter(private_filter(viewer, prefix=""))
        .only(*TABLE_FIELDS)
        .order_by("-finished_at", "-id")
    )
    if mode:
        qs = qs.filter(mode=mode)
    found = _paged(qs, page, HISTORY_PAGE)
    rows = [GameRow(table=t) for t in found.rows]
    _fill_rows(rows, change_user=None)
    found.rows = rows
    return found


def _fill_rows(rows: list[GameRow], change_user: int | None) -> None:
    if not rows:
        return
    by_table = {row.table.pk: row for row in rows}
    seats = (
        Seat.objects.filter(table_id__in=list(by_table))
        .select_related("user")
        .only("seat", "table", "user", *(f"user__{f}" for f in USER_FIELDS))
    )
    for seat in seats:
        by_table[seat.table_id].seats[seat.seat] = seat
    if change_user is not None:
        changes = RatingChange.objects.filter(user_id=change_user, table_id__in=list(by_table))
        for change in changes:
            by_table[change.table_id].change = change
