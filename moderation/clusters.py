"""Suspicious account clusters: the staff's list of likely ladder farms (issue #13).

The ladder gives nothing for results inside closed groups of accounts (docs/ratings.md); what is
left to farm needs a few accounts playing each other a lot, usually young ones, with results
that favour one of them. This finds them in the last `WINDOW_DAYS` days of ladder games
(finished, four people, rated or left unrated by the pairs' limit):

- A game is *among young accounts* when at least two of the other three players joined less
  than `YOUNG_DAYS` before it.
- An account is *flagged* when at least `MIN_GAMES` of its games were among young accounts and
  either it won `LOPSIDED` of them or more (a booster fed by throwaways), or it played them
  with few different people: `CLOSED` games or more per person met (a ring of throwaways
  playing each other to look established).
- A cluster is a flagged account with everybody it met in those games; clusters that share
  an account are merged.

It is a list for people to judge, not a verdict: a strong newcomer who beats other newcomers,
or four new friends who always play together, show up too.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from django.db import connection
from django.utils import timezone

from accounts.models import User
from games.models import Table
from rankings.models import RatingChange

WINDOW_DAYS = 30
YOUNG_DAYS = 14
MIN_GAMES = 3
LOPSIDED = 0.8
CLOSED = 2.0
#: The most games read (the latest first): the page stays quick whatever the site's size.
MAX_GAMES = 20_000

# Ladder games of the window with at least two young players (a game where some player has two
# young accounts among the other three has at least two in all).
_GAMES_SQL = """
    SELECT t.id, t.winner_team, array_agg(s.user_id ORDER BY s.seat),
           array_agg(u.date_joined > t.finished_at - %(young)s ORDER BY s.seat)
      FROM games_table t
      JOIN games_seat s ON s.table_id = t.id
      JOIN accounts_user u ON u.id = s.user_id
     WHERE t.status = %(finished)s AND NOT t.practice AND t.finished_at >= %(since)s
       AND (t.rated OR t.unrated_reason <> '') AND t.winner_team IS NOT NULL
     GROUP BY t.id
    HAVING count(*) = 4 AND NOT bool_or(u.is_bot)
       AND count(*) FILTER (WHERE u.date_joined > t.finished_at - %(young)s) >= 2
     ORDER BY t.finished_at DESC
     LIMIT %(limit)s
"""


@dataclass(frozen=True)
class Reason:
    """Why an account is flagged: `lopsided` (won `a` of `b` games among young accounts) or
    `closed` (`a` such games with only `b` different people)."""

    kind: str
    a: int
    b: int


@dataclass
class Member:
    user: User
    young: bool
    reasons: list[Reason]
    games: int = 0  # games of the cluster this account played
    wins: int = 0
    gained: float = 0.0  # rating won or lost in them (flagged accounts only)


@dataclass
class Cluster:
    members: list[Member]
    games: list[int]  # table ids, latest first

    @property
    def young(self) -> int:
        return sum(1 for m in self.members if m.young)

    @property
    def flagged(self) -> list[Member]:
        return [m for m in self.members if m.reasons]


@dataclass
class _Circle:
    """An account's games among young accounts."""

    games: list[int] = field(default_factory=list)
    wins: int = 0
    met: set[int] = field(default_factory=set)


def _games(since: datetime) -> list[tuple[int, int, list[int], list[bool]]]:
    with connection.cursor() as cursor:
        cursor.execute(
            _GAMES_SQL,
            {
                "young": timedelta(days=YOUNG_DAYS),
                "finished": Table.Status.FINISHED,
                "since": since,
                "limit": MAX_GAMES,
            },
        )
        return cursor.fetchall()


def _circles(games: list[tuple[int, int, list[int], list[bool]]]) -> dict[int, _Circle]:
    circles: dict[int, _Circle] = defaultdict(_Circle)
    for table_id, winner, users, young in games:
        for seat, user_id in enumerate(users):
            others = [s for s in range(4) if s != seat]
            if sum(young[s] for s in others) < 2:
                continue
            circle = circles[user_id]
            circle.games.append(table_id)
            circle.wins += int(seat % 2 == winner)
            circle.met.update(users[s] for s in others)
    return circles


def _reasons(circle: _Circle) -> list[Reason]:
    n = len(circle.games)
    if n < MIN_GAMES:
        return []
    reasons = []
    if circle.wins >= LOPSIDED * n:
        reasons.append(Reason("lopsided", circle.wins, n))
    if n >= CLOSED * len(circle.met):
        reasons.append(Reason("closed", n, len(circle.met)))
    return reasons


def suspicious_clusters(now: datetime | None = None) -> list[Cluster]:
    """The clusters of the window, the ones with most games first."""
    now = now or timezone.now()
    games = _games(now - timedelta(days=WINDOW_DAYS))
    seated = {table_id: users for table_id, _w, users, _y in games}
    winners = {table_id: winner for table_id, winner, _u, _y in games}
    circles = _circles(games)
    flagged = {u: r for u, circle in circles.items() if (r := _reasons(circle))}
    if not flagged:
        return []
    # Union-find: a flagged account joins everybody at its circle's games.
    parent: dict[int, int] = {}

    def root(u: int) -> int:
        parent.setdefault(u, u)
        while parent[u] != u:
            parent[u] = parent[parent[u]]
            u = parent[u]
        return u

    tables = {t for u in flagged for t in circles[u].games}
    for table_id in tables:
        first, *rest = seated[table_id]
        for other in rest:
            parent[root(other)] = root(first)
    users = User.objects.in_bulk(list(parent))
    gained: dict[int, float] = defaultdict(float)
    changes = RatingChange.objects.filter(table_id__in=tables, user_id__in=list(flagged))
    for user_id, before, after in changes.values_list("user_id", "before", "after"):
        gained[user_id] += after - before
    young_since = now - timedelta(days=YOUNG_DAYS)
    members: dict[int, dict[int, Member]] = defaultdict(dict)
    cluster_tables: dict[int, list[int]] = defaultdict(list)
    for table_id in sorted(tables, reverse=True):
        key = root(seated[table_id][0])
        cluster_tables[key].append(table_id)
        for seat, user_id in enumerate(seated[table_id]):
            member = members[key].get(user_id)
            if member is None:
                user = users[user_id]
                member = members[key][user_id] = Member(
                    user, user.date_joined > young_since, flagged.get(user_id, [])
                )
                member.gained = gained.get(user_id, 0.0)
            member.games += 1
            member.wins += int(seat % 2 == winners[table_id])
    clusters = [
        Cluster(
            sorted(group.values(), key=lambda m: (not m.reasons, -m.games, m.user.pk)),
            cluster_tables[key],
        )
        for key, group in members.items()
    ]
    clusters.sort(key=lambda c: (-len(c.games), c.members[0].user.pk))
    return clusters
