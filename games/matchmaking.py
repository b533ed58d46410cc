"""Quick play's matcher: which waiting players sit down together, and as which pairs.

Pure functions with no Django, so they can be tested on their own (tests/games/test_matchmaking.py)
and called by the queue (`games.services.queue`) with what it read from the database.

The rules:

- An entry of the queue is one player, or a pair who came together; a pair is never split and
  always plays as partners.
- Four players sit down together when every two of their entries are within the wider of their
  two rating windows: `|a - b| <= max(window(a), window(b))`, an entry's rating being its
  players' mean. A window widens the longer its entry has waited (`WINDOWS`), up to anyone at
  all: whoever has waited long enough plays with anyone, newcomers too, rather than waiting until
  the newcomers' windows have widened as well.
- First come, first served: the entries are taken in the order they arrived; each one, if it can
  still be seated, sits with the earliest arrivals that fit with it. So the longest-waiting entry
  that can play, plays; and once the matcher is done no four players left over could have sat
  down together (every group of them was tried from its oldest member).
- The four are split into the two pairs whose mean ratings are closest (pairs who came together
  stay together).
- Two players of whom one blocked the other (`apart`) never sit at one table.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass

#: (seconds waited, rating window from then on): ±100 at first, then ±200, ±400, then anyone.
WINDOWS: tuple[tuple[float, float], ...] = (
    (0.0, 100.0),
    (10.0, 200.0),
    (20.0, 400.0),
    (30.0, math.inf),
)

#: The entries an anchor considers (the earliest that fit with it): bounds the search when the
#: queue is long and the windows are narrow.
MAX_CANDIDATES = 40


@dataclass(frozen=True, slots=True)
class Waiting:
    """An entry of the queue: one player, or a pair who came together."""

    key: int
    players: tuple[int, ...]
    ratings: tuple[float, ...]
    #: When the entry started waiting, in seconds on any clock the entries share.
    since: float

    def __post_init__(self) -> None:
        if len(self.players) not in (1, 2) or len(self.ratings) != len(self.players):
            raise ValueError("an entry is one player or a pair, with one rating each")
        if len(set(self.players)) != len(self.players):
            raise ValueError("a pair is two different players")

    @property
    def rating(self) -> float:
        return sum(self.ratings) / len(self.ratings)


@dataclass(frozen=True, slots=True)
class Match:
    """Four players who sit down together."""

    #: The entries seated, in the order they arrived.
    entries: tuple[int, ...]
    #: The two pairs (player ids): the first sits at seats 0 and 2, the second at 1 and 3.
    teams: tuple[tuple[int, int], tuple[int, int]]

    @property
    def seats(self) -> tuple[int, int, int, int]:
        """The player at each seat, 0 to 3 (seats 0+2 and 1+3 are partners)."""
        (a, b), (c, d) = self.teams
        return (a, c, b, d)


def window(waited: float, windows: Sequence[tuple[float, float]] = WINDOWS) -> float:
    """The rating window of an entry that has waited `waited` seconds."""
    width = windows[0][1]
    for after, value in windows:
        if waited >= after:
            width = value
    return width


def compatible(
    a: Waiting, b: Waiting, now: float, windows: Sequence[tuple[float, float]] = WINDOWS
) -> bool:
    """May `a` and `b` sit at one table now, as far as their ratings go? The one who has waited
    longer has the wider window, and it decides."""
    limit = max(window(now - a.since, windows), window(now - b.since, windows))
    return abs(a.rating - b.rating) <= limit


def may_sit_together(
    a: Waiting,
    b: Waiting,
    now: float,
    windows: Sequence[tuple[float, float]] = WINDOWS,
    apart: Collection[frozenset[int]] = frozenset(),
) -> bool:
    """`compatible`, and nobody in one entry blocked anybody in the other."""
    if apart and any(frozenset((p, q)) in apart for p in a.players for q in b.players):
        return False
    return compatible(a, b, now, windows)


def best_teams(group: Sequence[Waiting]) -> tuple[tuple[int, int], tuple[int, int]]:
    """The two pairs of the four players of `group` whose mean ratings are closest; pairs that
    came together stay together. Ties go to the first split in the players' order."""
    players: list[int] = []
    rating: dict[int, float] = {}
    together: dict[int, int] = {}
    for entry in group:
        players.extend(entry.players)
        rating.update(zip(entry.players, entry.ratings, strict=True))
        if len(entry.players) == 2:
            a, b = entry.players
            together[a], together[b] = b, a
    if len(players) != 4:
        raise ValueError("a table is four players")
    first = players[0]
    best: tuple[tuple[int, int], tuple[int, int]] | None = None
    best_gap = math.inf
    for partner in players[1:]:
        rest = [p for p in players[1:] if p != partner]
        split = ((first, partner), (rest[0], rest[1]))
        if any(together.get(p, q) != q for team in split for p, q in (team, team[::-1])):
            continue  # it would split a pair who came together
        gap = abs(sum(rating[p] for p in split[0]) - sum(rating[p] for p in split[1])) / 2
        if gap < best_gap:
            best, best_gap = split, gap
    assert best is not None  # the pairs of a group of four always fit one split
    return best


def match(
    waiting: Iterable[Waiting],
    now: float,
    windows: Sequence[tuple[float, float]] = WINDOWS,
    apart: Collection[frozenset[int]] = frozenset(),
) -> list[Match]:
    """Every table that can sit down now, from the entries `waiting` at time `now`; `apart` are
    the pairs of players who must not sit together."""
    queue = sorted(waiting, key=lambda e: (e.since, e.key))
    if len({e.key for e in queue}) != len(queue):
        raise ValueError("two entries with one key")
    seated: set[int] = set()
    found: list[Match] = []
    for anchor in queue:
        if anchor.key in seated:
            continue
        others = [e for e in queue if e.key not in seated and e.key != anchor.key]
        group = _group_for(anchor, others, now, windows, apart)
        if group is None:
            continue
        seated.update(e.key for e in group)
        ordered = sorted(group, key=lambda e: (e.since, e.key))
        found.append(Match(tuple(e.key for e in ordered), best_teams(ordered)))
    return found


def _group_for(
    anchor: Waiting,
    others: list[Waiting],
    now: float,
    windows: Sequence[tuple[float, float]],
    apart: Collection[frozenset[int]],
) -> list[Waiting] | None:
    """The earliest arrivals (in order) that make four players with `anchor`, all of whom may
    sit with each other; None if there are none."""

    def fits(a: Waiting, b: Waiting) -> bool:
        return may_sit_together(a, b, now, windows, apart)

    candidates = [e for e in others if fits(anchor, e)][:MAX_CANDIDATES]
    chosen = [anchor]

    def extend(start: int, need: int) -> bool:
        if need == 0:
            return True
        for i in range(start, len(candidates)):
            entry = candidates[i]
            if len(entry.players) > need:
                continue
            if not all(fits(entry, c) for c in chosen[1:]):
                continue
            chosen.append(entry)
            if extend(i + 1, need - len(entry.players)):
                return True
            chosen.pop()
        return False

    return chosen if extend(0, 4 - len(anchor.players)) else None
