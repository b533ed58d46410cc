"""The queries behind the pages. Each page costs a fixed number of queries, whatever the data size.

Paging is by offset with one extra row fetched to know whether a next page exists (no COUNT over
a 100,000-row ladder on every page view).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from functools import lru_cache
from typing import Any
from urllib.parse import quote

from django.db import connection
from django.db.models import Count, Q
from django.urls import reverse
from django.utils import timezone

from accounts import names
from accounts.models import User
from games import hooks, labels, services
from games.hooks import RatingLabel, TableLink
from games.models import ENDED_STATUSES, Mode, Table

from . import elo
from .models import Ladder, PlayerRating

DEFAULT_MODE = Mode.CUATRO_REYES.value
LEADERBOARD_PAGE = 25
HISTORY_PAGE = 20
MAX_PAGE = 10_000
SEARCH_MAX = 40
RESULTS = ("ganadas", "perdidas", "canceladas")
USER_FIELDS = ("id", "username", "display_name", "is_bot")


@lru_cache(maxsize=1)
def _url_patterns() -> tuple[str, str]:
    # Reversed once: a page of rows would otherwise reverse a hundred URLs.
    return reverse("accounts:profile", args=["~u~"]), reverse("game_detail", args=[987654321])


def profile_url(username: str) -> str:
    return _url_patterns()[0].replace("~u~", quote(username, safe="@+-_."))


def game_url(table_id: int) -> str:
    return _url_patterns()[1].replace("987654321", str(table_id))


def parse_mode(value: str | None, *, allow_all: bool = False) -> str:
    if value in Mode.values:
        return value
    return "" if allow_all else DEFAULT_MODE


def parse_ladder(value: str | None) -> str:
    """A leaderboard's ladder: a mode's, or a mode's bots ladder (models.Ladder)."""
    return value if value in Ladder.values else DEFAULT_MODE


def most_played_mode(user: Any) -> str | None:
    """The mode in which ``user`` has played the most rated games (None: none yet): the ranking
    opens on it."""
    if user is None or not user.is_authenticated:
        return None
    return (
        PlayerRating.objects.filter(user=user, games__gt=0, mode__in=Mode.values)
        .order_by("-games", "mode")
        .values_list("mode", flat=True)
        .first()
    )


def opening_mode(user: Any) -> str | None:
    """The mode the ranking opens on (a people's ladder; the bots ladders are only chosen): the
    one ``user`` plays most, else the one whose ladder has the most players (an empty ladder is
    no welcome while the other has players); None when nobody has played a rated game (the first
    mode)."""
    return most_played_mode(user) or (
        PlayerRating.objects.filter(visible(), games__gt=0, mode__in=Mode.values)
        .values("mode")
        .annotate(players=Count("pk"))
        .order_by("-players", "mode")
        .values_list("mode", flat=True)
        .first()
    )


def parse_page(value: str | None) -> int:
    try:
        page = int(value or 1)
    except ValueError:
        return 1
    return max(1, min(page, MAX_PAGE))


def visible() -> Q:
    """Ladder rows shown on leaderboards: not hidden, or hidden by a ban that has run out."""
    return Q(hidden_until__isnull=True) | Q(hidden_until__lte=timezone.now())


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


# --------------------------------------------------------------------------------------------
# Leaderboard.
# --------------------------------------------------------------------------------------------
def leaderboard(
    mode: str, *, query: str = "", page: int = 1, established: bool = False
) -> tuple[Page, str]:
    """One page of a ladder; each row gets ``rank`` (its place on the whole, unsearched ladder)."""
    ladder = PlayerRating.objects.filter(mode=mode, games__gt=0).filter(visible())
    if established:
        ladder = ladder.filter(games__gte=elo.PROVISIONAL_GAMES)
    query = query.strip()[:SEARCH_MAX]
    if query:
        # By the lower-case name keys (indexed prefixes), not by a scan of the users table.
        key = query.lower()
        ladder = ladder.filter(Q(username_key__startswith=key) | Q(display_key__startswith=key))
    # The page's ids first (an index-only scan, even deep into the ladder), then those rows and
    # their players: still one query.
    offset = (page - 1) * LEADERBOARD_PAGE
    ids = ladder.order_by("-rating", "id").values("id")[offset : offset + LEADERBOARD_PAGE + 1]
    qs = (
        PlayerRating.objects.filter(id__in=ids)
        # (a player's bot account is marked with its owner's name: in the same query)
        .select_related("user", "user__bot_owner")
        .only(
            "mode",
            "rating",
            "games",
            "wins",
            "last_played_at",
            "user",
            *(f"user__{f}" for f in USER_FIELDS),
            "user__bot_owner",
            "user__bot_owner__username",
            "user__bot_owner__display_name",
        )
        .order_by("-rating", "id")
    )
    rows = list(qs)
    result = Page(page, LEADERBOARD_PAGE, rows[:LEADERBOARD_PAGE], len(rows) > LEADERBOARD_PAGE)
    if query and result.rows:
        ranks = _ranks(mode, result.rows, established)
        for row in result.rows:
            row.rank = ranks[row.pk]
    else:
        for i, row in enumerate(result.rows, result.offset + 1):
            row.rank = i
    for row in result.rows:
        row.profile_url = profile_url(row.user.username)
    return result, query


def _ranks(mode: str, rows: list[PlayerRating], established: bool) -> dict[int, int]:
    """Ladder places of a few rows, in one query: 1 + the visible players ordered before each.

    Those are: every player of the buckets above the row's (``RatingBucket``, a thousand rows at
    most), plus the players before it inside its own one-point bucket (a short index range),
    minus the hidden players before it (a partial index of the few banned players).
    """
    games = "AND pr.games >= 30" if established else "AND pr.games > 0"
    column = "established" if established else "players"
    before = "(pr.rating > f.rating OR (pr.rating = f.rating AND pr.id < f.id))"
    sql = f"""
        SELECT f.id, 1
             + COALESCE((SELECT sum(b.{column}) FROM rankings_ratingbucket b
                          WHERE b.mode = %(mode)s AND b.bucket > floor(f.rating)), 0)
             + (SELECT count(*) FROM rankings_playerrating pr
                 WHERE pr.mode = %(mode)s {games}
                   AND pr.rating >= floor(f.rating) AND pr.rating < floor(f.rating) + 1
                   AND {before})
             - (SELECT count(*) FROM rankings_playerrating pr
                 WHERE pr.mode = %(mode)s {games} AND pr.hidden_until IS NOT NULL
                   AND pr.hidden_until > %(now)s AND {before})
          FROM unnest(%(ids)s::bigint[], %(ratings)s::float8[]) AS f(id, rating)
    """
    params = {
        "mode": mode,
        "now": timezone.now(),
        "ids": [r.pk for r in rows],
        "ratings": [r.rating for r in rows],
    }
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return {pk: int(rank) for pk, rank in cursor.fetchall()}


# --------------------------------------------------------------------------------------------
# Game lists (history, profile).
# --------------------------------------------------------------------------------------------
@dataclass
class GameRow:
    """One ended game in a list, as seen by one of its players (``seat``) or by anybody."""

    id: int
    mode: str
    private: bool
    rated: bool
    status: str
    scores: list[int]
    winner_team: int | None
    ended_by: str
    finished_at: datetime | None
    seat: int | None  # the followed player's seat
    seats: list[dict[str, Any] | None] = field(default_factory=lambda: [None] * 4)
    before: float | None = None
    after: float | None = None
    practice: bool = False  # against bots: unrated and out of the statistics
    bots_ladder: bool = False  # rated on its mode's bots ladder only (docs/bot-api.md)
    tag: TableLink | None = None  # what a higher app ran it for: «Torneo de otoño · Ronda 2»

    @property
    def url(self) -> str:
        return game_url(self.id)

    @property
    def mode_label(self) -> str:
        return str(Mode(self.mode).label)

    @property
    def cancelled(self) -> bool:
        return self.status == Table.Status.CANCELLED

    @property
    def result(self) -> str:
        if self.cancelled:
            return "cancelada"
        if self.seat is None:
            return ""
        return "ganada" if self.winner_team == self.seat % 2 else "perdida"

    @property
    def delta(self) -> float | None:
        return None if self.after is None or self.before is None else self.after - self.before

    def _links(self, seats: list[int]) -> list[dict[str, Any]]:
        return [self.seats[n] for n in seats if self.seats[n] is not None]

    @property
    def partner_links(self) -> list[dict[str, Any]]:
        return [] if self.seat is None else self._links([(self.seat + 2) % 4])

    @property
    def opponent_links(self) -> list[dict[str, Any]]:
        return [] if self.seat is None else self._links([(self.seat + 1) % 4, (self.seat + 3) % 4])

    @property
    def team_links(self) -> list[list[dict[str, Any]]]:
        return [self._links([0, 2]), self._links([1, 3])]

    @property
    def my_scores(self) -> list[int]:
        scores = list(self.scores or [0, 0])
        if self.seat is not None and self.seat % 2 == 1:
            scores.reverse()
        return scores


def can_see_private(viewer: Any, player: User | None) -> bool:
    if viewer is None or not viewer.is_authenticated:
        return False
    return viewer.is_staff or (player is not None and viewer.pk == player.pk)


def _visible_sql(viewer: Any, held: Mapping[int, str] | None, params: dict[str, Any]) -> str:
    """The games the viewer (holding the invitations `held`) may open, as a condition on `t`:
    `services.visible_to`, the game page's own rule, compiled by the ORM for the alias `t` (a
    condition on the listed row itself: a subquery of ids would join every table to itself),
    its positional parameters renamed for this query's named ones."""
    rule = services.visible_to(viewer, held)
    if not rule:
        return "TRUE"  # staff: every game
    query = Table.objects.filter(rule).query
    query.change_aliases({query.get_initial_alias(): "t"})
    sql, values = query.get_compiler(connection=connection).compile(query.where)
    names = iter(range(len(values)))
    sql = re.sub(r"(?<!%)%s", lambda _m: f"%(visible{next(names)})s", sql)
    params.update({f"visible{i}": value for i, value in enumerate(values)})
    return f"({sql})"


# The seats of a listed game with their players' names, and the followed player's rating change,
# fetched with the game itself (one query per page, no ORM objects).
_ROW_COLUMNS = """
    t.id, t.mode, t.private, t.rated, t.status, t.scores, t.winner_team, t.ended_by,
    t.finished_at, t.practice, t.unrated_reason,
    (SELECT json_agg(json_build_array(s.seat, u.username, u.display_name, u.is_bot, s.bot_level)
                     ORDER BY s.seat)
       FROM games_seat s JOIN accounts_user u ON u.id = s.user_id
      WHERE s.table_id = t.id) AS players
"""


def _rows(sql: str, params: dict[str, Any], number: int, per_page: int, followed: bool) -> Page:
    params = {**params, "limit": per_page + 1, "offset": (number - 1) * per_page}
    with connection.cursor() as cursor:
        cursor.execute(sql + " LIMIT %(limit)s OFFSET %(offset)s", params)
        fetched = cursor.fetchall()
    rows = []
    for record in fetched[:per_page]:
        (pk, mode, private, rated, status, scores, winner, ended_by, finished_at, practice) = (
            record[:10]
        )
        players = record[11]
        if isinstance(scores, str):
            scores = json.loads(scores)
        if isinstance(players, str):
            players = json.loads(players)
        row = GameRow(pk, mode, private, rated, status, scores, winner, ended_by, finished_at, None)
        row.practice = practice
        row.bots_ladder = record[10] == Table.UnratedReason.BOTS
        for seat, username, display_name, is_bot, level in players or []:
            name = labels.seat_name(names.shown(username, display_name), level if is_bot else None)
            row.seats[seat] = {"name": name, "url": profile_url(username)}
        if followed:
            row.seat, change = record[12:14]
            if isinstance(change, str):
                change = json.loads(change)
            if change:
                row.before, row.after = change
        rows.append(row)
    tags = hooks.table_tags([row.id for row in rows])
    for row in rows:
        row.tag = tags.get(row.id)
    return Page(number, per_page, rows, len(fetched) > per_page)


def player_games(
    player: User,
    viewer: Any,
    *,
    held: Mapping[int, str] | None = None,
    mode: str = "",
    result: str = "",
    page: int = 1,
    per_page: int = HISTORY_PAGE,
) -> Page:
    """A player's finished and cancelled games that `viewer` (holding the invitations `held`)
    may open, latest first: one query."""
    params: dict[str, Any] = {"player": player.pk, "ended": list(ENDED_STATUSES)}
    where = ["me.user_id = %(player)s", "t.status = ANY(%(ended)s)"]
    if mode:
        where.append("t.mode = %(mode)s")
        params["mode"] = mode
    if result == "ganadas":
        where.append("t.status = 'terminada' AND t.winner_team = me.seat %% 2")
    elif result == "perdidas":
        where.append("t.status = 'terminada' AND t.winner_team <> me.seat %% 2")
    elif result == "canceladas":
        where.append("t.status = 'cancelada'")
    if not can_see_private(viewer, player):  # (they sat at every one of them)
        where.append(_visible_sql(viewer, held, params))
    sql = f"""
        SELECT {_ROW_COLUMNS}, me.seat,
               (SELECT json_build_array(rc.before, rc.after) FROM rankings_ratingchange rc
                 WHERE rc.table_id = t.id AND rc.user_id = me.user_id) AS change
          FROM games_seat me
          JOIN games_table t ON t.id = me.table_id
         WHERE {" AND ".join(where)}
         ORDER BY t.finished_at DESC, t.id DESC
    """
    return _rows(sql, params, page, per_page, followed=True)


def recent_games(
    viewer: Any, *, held: Mapping[int, str] | None = None, mode: str = "", page: int = 1
) -> Page:
    """Everybody's latest finished games that `viewer` (holding the invitations `held`) may
    open (the history page without a player): one query."""
    params: dict[str, Any] = {"finished": Table.Status.FINISHED}
    where = ["t.status = %(finished)s", "t.finished_at IS NOT NULL"]
    where.append(_visible_sql(viewer, held, params))
    if mode:
        where.append("t.mode = %(mode)s")
        params["mode"] = mode
    sql = f"""
        SELECT {_ROW_COLUMNS} FROM games_table t
         WHERE {" AND ".join(where)}
         ORDER BY t.finished_at DESC, t.id DESC
    """
    return _rows(sql, params, page, HISTORY_PAGE, followed=False)


# --------------------------------------------------------------------------------------------
# Ratings where players meet (the lobby and the tables, through `games.hooks`).
# --------------------------------------------------------------------------------------------
def rating_labels(pairs: Iterable[tuple[int, str]]) -> dict[tuple[int, str], RatingLabel]:
    """Each (player, mode)'s rating as shown, in one query; nobody rated yet in a mode starts
    where everybody starts (and is provisional)."""
    wanted = set(pairs)
    rows = PlayerRating.objects.filter(user_id__in={user_id for user_id, _mode in wanted})
    found = {
        (user_id, mode): (rating, games)
        for user_id, mode, rating, games in rows.values_list("user_id", "mode", "rating", "games")
    }
    labels = {}
    for pair in wanted:
        rating, games = found.get(pair, (elo.INITIAL_RATING, 0))
        labels[pair] = RatingLabel(round(rating), elo.is_provisional(games))
    return labels
