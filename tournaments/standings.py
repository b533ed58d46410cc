"""Standings of a tournament from its results: pure functions, no Django.

A win scores 1 point, a bye too; a loss 0 (a game both pairs lost, such as two absent pairs,
scores 0 for each). Ties are broken by the Buchholz score (the sum of the points of the pairs
played, byes left out), then by the tantos difference (tantos won minus tantos conceded in the
games played), then by rating at the start (the seed), then by who registered first.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

WIN = 1.0


@dataclass(frozen=True, slots=True)
class Result:
    """One decided game: pair `a` against pair `b` (None: `a` had the bye); `winner` is `a`,
    `b` or None (both lost); `tantos_a` and `tantos_b` the score it counts with."""

    a: int
    b: int | None
    winner: int | None
    tantos_a: int = 0
    tantos_b: int = 0


@dataclass(frozen=True, slots=True)
class Seed:
    """A pair in the standings: its id and its rating at the start."""

    id: int
    rating: float


@dataclass(slots=True)
class Row:
    pair: int
    points: float = 0.0
    buchholz: float = 0.0
    tantos: int = 0
    played: int = 0
    wins: int = 0
    byes: int = 0
    opponents: tuple[int, ...] = ()
    rank: int = 0


def standings(seeds: Sequence[Seed], results: Iterable[Result]) -> list[Row]:
    """Every pair of `seeds` ranked by points, Buchholz, tantos difference, rating, then the
    order of `seeds` (registration); `rank` is 1 for the first."""
    rows = {s.id: Row(s.id) for s in seeds}
    results = list(results)
    for r in results:
        a = rows[r.a]
        if r.b is None:
            a.byes += 1
            if r.winner == r.a:
                a.points += WIN
                a.wins += 1
            continue
        b = rows[r.b]
        for me, them, mine, theirs in (
            (a, b, r.tantos_a, r.tantos_b),
            (b, a, r.tantos_b, r.tantos_a),
        ):
            me.played += 1
            me.tantos += mine - theirs
            me.opponents = (*me.opponents, them.pair)
            if r.winner == me.pair:
                me.points += WIN
                me.wins += 1
    for row in rows.values():
        row.buchholz = sum(rows[o].points for o in row.opponents)
    position = {s.id: i for i, s in enumerate(seeds)}
    rating = {s.id: s.rating for s in seeds}
    ordered = sorted(
        rows.values(),
        key=lambda r: (-r.points, -r.buchholz, -r.tantos, -rating[r.pair], position[r.pair]),
    )
    for i, row in enumerate(ordered, start=1):
        row.rank = i
    return ordered
