"""What ladder farming with throwaway accounts earns a booster, under the ladder's rule and under
plain Elo (every result counted in full), simulated with `rankings.elo` alone (no database).

    python manage.py ladder_farming

Each row is one way of farming (docs/ratings.md discusses them): the booster's rating change,
from a new account (1500, no games) and from an established one (1650, 200 games), the accounts
and games it took, and the fewest days the pairs' limit (3 rated games a day for the same two
pairs) makes it last. The losers always lose on purpose. With `rankings.elo` the ladder is
deterministic, so the figures are exact, not samples.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from itertools import combinations

from games.services.fairplay import PAIR_GAMES_PER_DAY
from rankings import elo

Rate = Callable[[list[elo.Standing], int], list[float]]


def plain_elo(standings: list[elo.Standing], winner_team: int) -> list[float]:
    """Elo with every result counted in full (the ladder before issue #13)."""
    teams = (
        elo.pair_rating(standings[0].rating, standings[2].rating),
        elo.pair_rating(standings[1].rating, standings[3].rating),
    )
    return [
        s.rating
        + elo.k_factor(s.games)
        * ((seat % 2 == winner_team) - elo.expected_score(teams[seat % 2], teams[1 - seat % 2]))
        for seat, s in enumerate(standings)
    ]


@dataclass
class Account:
    rating: float = elo.INITIAL_RATING
    games: int = 0
    number: int = 0  # the booster is 0


class Ladder:
    def __init__(self, rate: Rate) -> None:
        self.rate = rate
        self.accounts = 0
        self.games = 0
        # Rated games per pairing (the same two pairs), for the days the pairs' limit imposes.
        self.pairings: Counter[frozenset[frozenset[int]]] = Counter()

    @property
    def days(self) -> int:
        """The fewest days the games need, at `PAIR_GAMES_PER_DAY` rated games per pairing."""
        busiest = max(self.pairings.values(), default=0)
        per_day: int = PAIR_GAMES_PER_DAY
        return math.ceil(busiest / per_day)

    def new(self) -> Account:
        self.accounts += 1
        return Account(number=self.accounts)

    def play(self, winners: tuple[Account, Account], losers: tuple[Account, Account]) -> None:
        seats = [winners[0], losers[0], winners[1], losers[1]]
        after = self.rate([elo.Standing(a.rating, a.games) for a in seats], 0)
        for account, rating in zip(seats, after, strict=True):
            account.rating = rating
            account.games += 1
        self.games += 1
        pairs = (frozenset(a.number for a in winners), frozenset(a.number for a in losers))
        self.pairings[frozenset(pairs)] += 1


def fresh_each_game(ladder: Ladder, booster: Account, games: int) -> None:
    """The script of issue #13: a fresh partner and two fresh rivals every game."""
    for _ in range(games):
        ladder.play((booster, ladder.new()), (ladder.new(), ladder.new()))


def same_rivals(ladder: Ladder, booster: Account, games: int) -> None:
    """Two throwaway rivals kept, a fresh partner each game (so never the same two pairs)."""
    rivals = ladder.new(), ladder.new()
    for _ in range(games):
        ladder.play((booster, ladder.new()), rivals)


def same_partner(ladder: Ladder, booster: Account, games: int) -> None:
    """One throwaway partner kept, two fresh rivals each game."""
    partner = ladder.new()
    for _ in range(games):
        ladder.play((booster, partner), (ladder.new(), ladder.new()))


def own_ring(ladder: Ladder, booster: Account, games: int) -> None:
    """The booster and three throwaways, always the same: each game one of the three partners
    the booster and the other two lose (three pairings, so 9 rated games a day)."""
    three = [ladder.new() for _ in range(3)]
    for game in range(games):
        partner, *rivals = (three[(game + i) % 3] for i in range(3))
        ladder.play((booster, partner), (rivals[0], rivals[1]))


def ring_first(ladder: Ladder, booster: Account, games: int, size: int = 6) -> None:
    """`size` throwaways first play among themselves until each is established (30 rated
    games; results alternate), then two of them lose to the booster and a third each game."""
    ring = [ladder.new() for _ in range(size)]
    groups = [
        ((a, b), (c, d))
        for four in combinations(ring, 4)
        for (a, b), (c, d) in (
            ((four[0], four[1]), (four[2], four[3])),
            ((four[0], four[2]), (four[1], four[3])),
            ((four[0], four[3]), (four[1], four[2])),
        )
    ]
    turn = 0
    while min(a.games for a in ring) < elo.PROVISIONAL_GAMES:
        pair_a, pair_b = groups[turn % len(groups)]
        ladder.play(pair_a, pair_b) if turn % 2 else ladder.play(pair_b, pair_a)
        turn += 1
    for game in range(games):
        partner, *rivals = (ring[(game + i) % size] for i in range(3))
        ladder.play((booster, partner), (rivals[0], rivals[1]))


SCENARIOS: list[tuple[str, Callable[[Ladder, Account, int], None], int]] = [
    ("fresh partner and rivals each game", fresh_each_game, 5),
    ("fresh partner and rivals each game", fresh_each_game, 100),
    ("the same two rivals, a fresh partner", same_rivals, 5),
    ("the same two rivals, a fresh partner", same_rivals, 30),
    ("the same two rivals, a fresh partner", same_rivals, 100),
    ("the same partner, two fresh rivals", same_partner, 30),
    ("the booster and the same 3 throwaways", own_ring, 5),
    ("the booster and the same 3 throwaways", own_ring, 30),
    ("a ring of 6 established among themselves", ring_first, 30),
    ("a ring of 6 established among themselves", ring_first, 100),
]


def run(
    scenario: Callable[[Ladder, Account, int], None], games: int, rate: Rate, start: Account
) -> tuple[float, Ladder]:
    ladder = Ladder(rate)
    booster = Account(start.rating, start.games)
    scenario(ladder, booster, games)
    return booster.rating - start.rating, ladder


def main(write: Callable[[str], None] = print) -> None:
    starts = {"new": Account(), "established": Account(1650.0, 200)}
    first = "farming (booster's games)"
    write(
        f"{first:42} {'games':>5} {'accounts':>8} {'all games':>9}"
        f" {'days':>4} {'new':>7} {'(plain)':>8} {'estab.':>7} {'(plain)':>8}"
    )
    for label, scenario, games in SCENARIOS:
        cells = []
        ladder = Ladder(elo.rate)
        for start in starts.values():
            for rate in (elo.rate, plain_elo):
                gain, ladder = run(scenario, games, rate, start)
                cells.append(gain)
        write(
            f"{label:42} {games:5d} {ladder.accounts:8d} {ladder.games:9d} {ladder.days:4d}"
            f" {cells[0]:+7.1f} {cells[1]:+8.1f} {cells[2]:+7.1f} {cells[3]:+8.1f}"
        )
