"""Pairing a tournament's rounds: pure functions, no Django (kept pure by import-linter).

- `swiss_round`: the next round of a Swiss tournament. Pairs are ranked by score, then rating;
  within a score group the top half plays the bottom half in order (1st against the first of
  the bottom half, and so on), the lowest of an odd group plays into the next group down; no two
  pairs meet twice when any pairing allows it (a search that tries the next candidates in that
  order); with an odd count the lowest-ranked pair that has not had a bye sits out, scoring a win.
- `knockout_bracket`: the first round of a seeded knockout: the bracket is the next power of two,
  seeds placed so that the top two can only meet in the final, the top seeds get the byes.
- `knockout_next`: the next round from the winners of the last one.
"""

from __future__ import annotations

from collections.abc import Collection, Iterator, Sequence
from dataclasses import dataclass

#: How many partial pairings the Swiss search may try before it settles for a rematch: enough
#: for any real tournament (tests: tens of steps for 64 pairs), finite when none exists.
SEARCH_BUDGET = 20_000


@dataclass(frozen=True, slots=True)
class Entrant:
    """A pair as the Swiss pairing sees it: its id, score so far and rating (the seed)."""

    id: int
    score: float
    rating: float


@dataclass(frozen=True, slots=True)
class SwissRound:
    """`pairs` (higher-ranked first), the pair with the bye (or None), and how many of the pairs
    are rematches (0 unless no pairing without one could be found)."""

    pairs: list[tuple[int, int]]
    bye: int | None
    rematches: int = 0


def ranked(entrants: Sequence[Entrant]) -> list[Entrant]:
    """The order of pairing: score, then rating, then id (the earliest registered)."""
    return sorted(entrants, key=lambda e: (-e.score, -e.rating, e.id))


def max_swiss_rounds(pairs: int) -> int:
    """The most rounds `pairs` can play without a rematch: everybody meets everybody once
    (with an odd count each round one sits out, so one more round)."""
    return max(0, pairs - 1 if pairs % 2 == 0 else pairs)


def swiss_round(
    entrants: Sequence[Entrant],
    played: Collection[frozenset[int]] = (),
    byes: Collection[int] = (),
) -> SwissRound:
    """The next round for `entrants`, who have already met as in `played` (pairs of ids) and
    of whom `byes` have sat out a round."""
    order = ranked(entrants)
    played = set(played)
    budget = _Budget()
    if len(order) % 2 == 0:
        return _pair_all(order, played, None, budget)
    # The bye: the lowest-ranked pair without one whose absence lets the rest pair cleanly.
    candidates = [e for e in reversed(order) if e.id not in byes] or list(reversed(order))
    for bye in candidates:
        found = _search([e for e in order if e.id != bye.id], played, budget)
        if found is not None:
            return SwissRound(found, bye.id)
    bye = candidates[0]
    return _pair_all([e for e in order if e.id != bye.id], played, bye.id, budget)


def _pair_all(
    order: list[Entrant], played: set[frozenset[int]], bye: int | None, budget: _Budget
) -> SwissRound:
    found = _search(order, played, budget)
    if found is not None:
        return SwissRound(found, bye)
    pairs = _greedy(order, played)
    return SwissRound(pairs, bye, sum(frozenset(p) in played for p in pairs))


def preferences(top: Entrant, rest: Sequence[Entrant]) -> Iterator[Entrant]:
    """The opponents `top` (the highest-ranked pair not yet paired) should meet, best first.

    First its own score group: the bottom half from its first, then the top half upwards (the
    nearest first); then the lower groups in ranking order.
    """
    group = [e for e in rest if e.score == top.score]
    others = [e for e in rest if e.score != top.score]
    half = (len(group) + 1) // 2  # `top` is the first of a group of len(group) + 1
    yield from group[half - 1 :]  # (an empty group has half 0: nothing either way)
    yield from reversed(group[: max(0, half - 1)])
    yield from others


@dataclass
class _Budget:
    """The steps left to one round's search (all its bye candidates together)."""

    left: int = SEARCH_BUDGET


def _search(
    order: list[Entrant], played: set[frozenset[int]], budget: _Budget
) -> list[tuple[int, int]] | None:
    """A pairing of `order` without rematches, preferred first; None if none was found."""
    pairs: list[tuple[int, int]] = []

    def solve(rest: list[Entrant]) -> bool:
        if not rest:
            return True
        budget.left -= 1
        if budget.left < 0:
            return False
        top, others = rest[0], rest[1:]
        for opponent in preferences(top, others):
            if frozenset((top.id, opponent.id)) in played:
                continue
            pairs.append((top.id, opponent.id))
            if solve([e for e in others if e.id != opponent.id]):
                return True
            pairs.pop()
            if budget.left < 0:
                return False
        return False

    return pairs if solve(order) else None


def _greedy(order: list[Entrant], played: set[frozenset[int]]) -> list[tuple[int, int]]:
    """The preferred pairing allowing rematches, each pair taking its best opponent it has not
    met if one is left (when no pairing without a rematch exists)."""
    rest = list(order)
    pairs = []
    while rest:
        top, others = rest[0], rest[1:]
        options = list(preferences(top, others))
        fresh = [e for e in options if frozenset((top.id, e.id)) not in played]
        opponent = (fresh or options)[0]
        pairs.append((top.id, opponent.id))
        rest = [e for e in others if e.id != opponent.id]
    return pairs


# --------------------------------------------------------------------------------------------
# Knockout.
# --------------------------------------------------------------------------------------------
def bracket_size(pairs: int) -> int:
    """The bracket's size: the smallest power of two that holds `pairs` (at least 2)."""
    size = 2
    while size < pairs:
        size *= 2
    return size


def knockout_rounds(pairs: int) -> int:
    return bracket_size(pairs).bit_length() - 1


def seed_positions(size: int) -> list[int]:
    """Seeds (1 = best) in bracket order: for 8, 1 8 4 5 2 7 3 6, so that seeds 1 and 2 can
    only meet in the final, 1–4 in the semifinals, and each first match is seed s against
    size + 1 − s."""
    order = [1]
    while len(order) < size:
        n = 2 * len(order)
        order = [x for s in order for x in (s, n + 1 - s)]
    return order


def knockout_bracket(seeded: Sequence[int]) -> list[tuple[int | None, int | None]]:
    """The first round's matches for the pairs `seeded` (best first): None is a bye, which the
    top seeds get (a match against a bye is won without playing)."""
    size = bracket_size(len(seeded))
    slots = [seeded[s - 1] if s <= len(seeded) else None for s in seed_positions(size)]
    return [(slots[i], slots[i + 1]) for i in range(0, size, 2)]


def knockout_next(winners: Sequence[int | None]) -> list[tuple[int | None, int | None]]:
    """The next round: the winner of match 2k against the winner of match 2k + 1 (None where a
    match had no winner, both pairs having lost it)."""
    return [(winners[i], winners[i + 1]) for i in range(0, len(winners) - 1, 2)]
