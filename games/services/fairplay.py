"""Fair play at the start of a game: the same two pairs count for the ladder a few times a day.

Four accounts could otherwise trade wins among themselves all day (issue #13). A game counts
against the limit when it started rated in the last 24 hours with the same two pairs: partners
in either seat order, either pair on either side. Games cancelled do not count (they were never
rated). Past the limit the game is still played, unrated, and the table says so: in the waiting
room before the start (`pair_limit_reached`) and on the live table and the game page after it
(`Table.unrated_reason`). docs/ratings.md explains the rule with the rest of the ladder's.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta

from django.db import connection
from django.utils import timezone

from ..models import Table
from .storage import compare_and_set, seat_rows

#: Rated games the same two pairs may play in `PAIR_WINDOW`; later ones are unrated.
PAIR_GAMES_PER_DAY = 3
PAIR_WINDOW = timedelta(hours=24)

# The other tables where these four sat in the window, rated and not cancelled, with the first
# two players as partners (then the other two are partners too). Starts from the first player's
# seats (the seats' user index), so it reads a few rows, not the tables of the whole site.
_SAME_PAIRS_SQL = """
    SELECT count(*) FROM games_seat a
      JOIN games_table t ON t.id = a.table_id
     WHERE a.user_id = %(a)s
       AND t.id <> %(table)s
       AND t.rated AND NOT t.practice
       AND t.status = ANY(%(statuses)s)
       AND t.started_at >= %(since)s
       AND (SELECT count(*) FROM games_seat s
             WHERE s.table_id = t.id AND s.user_id = ANY(%(four)s)) = 4
       AND EXISTS (SELECT 1 FROM games_seat b
                    WHERE b.table_id = t.id AND b.user_id = %(b)s AND b.seat %% 2 = a.seat %% 2)
"""


def rated_games_between(
    seat_users: Sequence[int], *, exclude: int = 0, now: datetime | None = None
) -> int:
    """Rated games the pairs of `seat_users` (seats 0–3: 0+2 against 1+3) started in the window."""
    a, b = seat_users[0], seat_users[2]
    with connection.cursor() as cursor:
        cursor.execute(
            _SAME_PAIRS_SQL,
            {
                "a": a,
                "b": b,
                "four": list(seat_users),
                "table": exclude,
                "statuses": [Table.Status.PLAYING, Table.Status.FINISHED],
                "since": (now or timezone.now()) - PAIR_WINDOW,
            },
        )
        return cursor.fetchone()[0]


def _seated_players(table: Table) -> list[int] | None:
    """The four players' ids by seat, or None unless four different people sit there."""
    users: list[int | None] = [None] * 4
    for row in seat_rows(table):
        users[row["seat"]] = row["user_id"]
    if None in users or len(set(users)) != 4:
        return None
    return [u for u in users if u is not None]


def pair_limit_reached(table: Table) -> bool:
    """Would starting `table` now go past the pairs' limit? (Only a full, rated table can.)"""
    if not table.rated or table.practice:
        return False
    players = _seated_players(table)
    if players is None:
        return False
    return rated_games_between(players, exclude=table.pk) >= PAIR_GAMES_PER_DAY


def check_at_start(table: Table) -> None:
    """Called with the table locked, just before the deal: past the limit, the game is unrated."""
    if pair_limit_reached(table):
        compare_and_set(table, rated=False, unrated_reason=Table.UnratedReason.PAIR_LIMIT)
