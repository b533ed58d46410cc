"""What the ladder's rule («circle», `rankings.elo`) does to a launch cohort and to farms, beside
plain Elo («plain», every result counted in full) and trust by the count of games («count», the
rule of issue #13), simulated with `rankings.elo` alone (no database).

    python manage.py ladder_farming

1. A launch cohort: 40 new players, each with a hidden skill (normal, sd `SKILL_SD` Elo points:
   a clearly better pair wins 60–65 % of games, Mus's luck), play rated games in random fours,
   ten games each; each figure is the mean over `COHORTS` cohorts. Rank correlation (Spearman)
   of the ratings with the skills, and spread (the best quarter's mean minus the worst's).
2. Farms: the booster's rating change from a new account (1500, no games) and from an
   established one (1650, 200 games, hundreds of players met), the losers losing on purpose
   («accts» counts every account involved, strangers included); «honest» is the booster's
   mean change when the same games are played honestly among equals (`HONEST_RUNS` runs).
   «days» is the fewest days the pairs' limit (3 rated games a day for the same two pairs)
   makes it last.
3. An established player (1500, 200 games) in games with newcomers: how far ten wins move them.
"""

from __future__ import annotations

import math
import random
import statistics
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from itertools import combinations

from games.services import PAIR_GAMES_PER_DAY
from rankings import elo

Rate = Callable[[Sequence[elo.Standing], int], list[float]]

SKILL_SD = 60.0
COHORT = 40
COHORT_GAMES = 10
COHORTS = 200
HONEST_RUNS = 50
#: An established, well-connected account: it has met this many players.
WIDE = 500


def _pairs(standings: Sequence[elo.Standing]) -> tuple[float, float]:
    return (
        elo.pair_rating(standings[0].rating, standings[2].rating),
        elo.pair_rating(standings[1].rating, standings[3].rating),
    )


def _weighted(
    standings: Sequence[elo.Standing], winner_team: int, weights: list[float]
) -> list[float]:
    teams = _pairs(standings)
    return [
        s.rating
        + elo.k_factor(s.games)
        * ((seat % 2 == winner_team) - elo.expected_score(teams[seat % 2], teams[1 - seat % 2]))
        * weights[seat]
        for seat, s in enumerate(standings)
    ]


def plain_elo(standings: Sequence[elo.Standing], winner_team: int) -> list[float]:
    """Elo with every result counted in full (the ladder before issue #13)."""
    return _weighted(standings, winner_team, [1.0] * 4)


def by_count(standings: Sequence[elo.Standing], winner_team: int) -> list[float]:
    """The rule of issue #13: a player's reliability is min(1, rated games / 30); W is the lesser
    of the rival pair's (the mean of its two) and the partner's."""

    def rel(s: elo.Standing) -> float:
        return float(min(1.0, s.games / elo.PROVISIONAL_GAMES))

    weights = [
        min(
            rel(standings[(seat + 2) % 4]),
            (rel(standings[(seat + 1) % 4]) + rel(standings[(seat + 3) % 4])) / 2,
        )
        for seat in range(4)
    ]
    return _weighted(standings, winner_team, weights)


RULES: dict[str, Rate] = {"count": by_count, "plain": plain_elo, "circle": elo.rate}


@dataclass(eq=False)
class Account:
    rating: float = elo.INITIAL_RATING
    games: int = 0
    number: int = 0  # the booster is 0
    met: set[int] = field(default_factory=set)
    shared: Counter[int] = field(default_factory=Counter)  # rated games with each player
    wide: bool = False  # established and well connected (WIDE more players met)

    def standing(self) -> elo.Standing:
        # A wide account's list holds the simulation's players it met: the site loads those of
        # its acquaintances that the others at the table may have met too, which is the same.
        met = len(self.met) + (WIDE if self.wide else 0)
        return elo.Standing(
            self.rating, self.games, self.number, met, frozenset(self.met), dict(self.shared)
        )


class Ladder:
    def __init__(self, rate: Rate, rng: random.Random | None = None) -> None:
        self.rate = rate
        self.rng = rng  # None: the first pair named wins (farming); else honest coin flips
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

    def new(self, **fields: object) -> Account:
        self.accounts += 1
        return Account(number=self.accounts, **fields)  # type: ignore[arg-type]

    def established(self) -> Account:
        """An honest established player: 1500, 200 games, met hundreds of players."""
        return self.new(games=200, wide=True)

    def play(self, winners: tuple[Account, Account], losers: tuple[Account, Account]) -> None:
        seats = [winners[0], losers[0], winners[1], losers[1]]
        winner = 0 if self.rng is None else self.rng.randrange(2)
        after = self.rate([a.standing() for a in seats], winner)
        for account, rating in zip(seats, after, strict=True):
            account.rating = rating
            account.games += 1
            account.met |= {a.number for a in seats if a is not account}
            account.shared.update(a.number for a in seats if a is not account)
        self.games += 1
        pairs = (frozenset(a.number for a in winners), frozenset(a.number for a in losers))
        self.pairings[frozenset(pairs)] += 1


Scenario = Callable[[Ladder, Account, int], None]


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


def rotate(ladder: Ladder, booster: Account, donors: list[Account], games: int) -> None:
    """Each game one donor partners the booster and two others lose, rotating through them."""
    pairings = [
        (p, (a, b)) for p in donors for a, b in combinations([d for d in donors if d is not p], 2)
    ]
    random.Random(len(donors)).shuffle(pairings)
    for game in range(games):
        partner, rivals = pairings[game % len(pairings)]
        ladder.play((booster, partner), rivals)


def age(ladder: Ladder, ring: list[Account], games_each: int) -> None:
    """The ring plays among itself (every two-against-two split in turn, alternate results)
    until each account has `games_each` rated games."""
    splits = [
        ((four[0], four[i]), tuple(x for x in four[1:] if x is not four[i]))
        for four in combinations(ring, 4)
        for i in (1, 2, 3)
    ]
    turn = 0
    while min(a.games for a in ring) < games_each:
        pair_a, pair_b = splits[turn % len(splits)]
        ladder.play(pair_a, pair_b) if turn % 2 else ladder.play(pair_b, pair_a)  # type: ignore[arg-type]
        turn += 1


def own_ring(ladder: Ladder, booster: Account, games: int) -> None:
    """The booster and three throwaways, always the same: each game one of the three partners
    the booster and the other two lose (three pairings, so 9 rated games a day)."""
    rotate(ladder, booster, [ladder.new() for _ in range(3)], games)


def ring_of(size: int, aged: int = 0, outside: int = 0, honest: bool = False) -> Scenario:
    """A ring of `size` throwaways: first (`aged`) they play among themselves until each has that
    many rated games, then (`outside`) each plays that many games with established strangers,
    then they feed the booster, rotating partners and rivals. With `honest`, one honest
    established player plays in the ring's own games."""

    def scenario(ladder: Ladder, booster: Account, games: int) -> None:
        ring = [ladder.new() for _ in range(size)]
        if honest:
            age(ladder, [*ring, ladder.established()], aged)
        elif aged:
            age(ladder, ring, aged)
        for donor in ring:
            for _ in range(outside):
                a, b, c = (ladder.established() for _ in range(3))
                ladder.play((donor, a), (b, c)) if ladder.games % 2 else ladder.play(
                    (b, c), (donor, a)
                )
        rotate(ladder, booster, ring, games)

    return scenario


def wide_partner(ladder: Ladder, booster: Account, games: int) -> None:
    """An established accomplice partners the booster; a ring of 8 throwaways that played among
    themselves lose to them."""
    partner = ladder.established()
    ring = [ladder.new() for _ in range(8)]
    age(ladder, ring, 4)
    pairs = list(combinations(ring, 2))
    for game in range(games):
        ladder.play((booster, partner), pairs[game % len(pairs)])


SCENARIOS: list[tuple[str, Scenario, int]] = [
    ("fresh partner and rivals each game (#13)", fresh_each_game, 5),
    ("fresh partner and rivals each game", fresh_each_game, 30),
    ("the same two rivals, a fresh partner", same_rivals, 30),
    ("the same partner, two fresh rivals", same_partner, 30),
    ("the booster and the same 3 throwaways", own_ring, 30),
    ("a ring of 8 throwaways, rotating", ring_of(8), 30),
    ("a ring of 8, aged 10 games among themselves", ring_of(8, aged=10), 30),
    ("a ring of 5 aged 30 games (issue #29)", ring_of(5, aged=30), 30),
    ("a ring of 8 aged 30 with 1 honest player", ring_of(8, aged=30, honest=True), 30),
    ("a ring of 8, 1 outside game each", ring_of(8, outside=1), 30),
    ("a ring of 8, 2 outside games each", ring_of(8, outside=2), 30),
    ("a ring of 8 aged, 1 outside game each", ring_of(8, aged=10, outside=1), 30),
    ("a ring of 8 aged, 3 outside games each", ring_of(8, aged=10, outside=3), 30),
    ("a ring of 16 aged 10 games", ring_of(16, aged=10), 30),
    ("a ring of 20 aged 10 games", ring_of(20, aged=10), 30),
    ("an established accomplice partner, ring of 8", wide_partner, 30),
]


#: The farms issue #29 asks to pay nothing: 3 throwaways, a ring of 8, the aged ring of 5.
ISSUE_FARMS = {SCENARIOS[i][1] for i in (4, 5, 7)}


def _yes(ok: bool) -> str:
    return "yes" if ok else "NO"


def run(
    scenario: Scenario, games: int, rate: Rate, start: Account, rng: random.Random | None = None
) -> tuple[float, Ladder]:
    ladder = Ladder(rate, rng)
    booster = Account(start.rating, start.games, wide=start.wide)
    scenario(ladder, booster, games)
    return booster.rating - start.rating, ladder


def honest(scenario: Scenario, games: int, rate: Rate, start: Account) -> float:
    rng = random.Random(29)
    return float(
        statistics.mean(run(scenario, games, rate, start, rng)[0] for _ in range(HONEST_RUNS))
    )


def spearman(xs: Sequence[float], ys: Sequence[float]) -> float:
    def ranks(values: Sequence[float]) -> list[int]:
        out = [0] * len(values)
        for rank, i in enumerate(sorted(range(len(values)), key=lambda i: values[i])):
            out[i] = rank
        return out

    a, b = ranks(xs), ranks(ys)
    mean = (len(a) - 1) / 2
    cov = sum((p - mean) * (q - mean) for p, q in zip(a, b, strict=True))
    var = sum((p - mean) ** 2 for p in a)
    return float(cov / var)


def spread(ratings: Sequence[float]) -> float:
    ordered = sorted(ratings)
    quarter = len(ordered) // 4
    return statistics.mean(ordered[-quarter:]) - statistics.mean(ordered[:quarter])


def cohort(rate: Rate, seed: int) -> tuple[float, float]:
    """One launch cohort under ``rate``: (rank correlation with skill, spread)."""
    rng = random.Random(seed)
    skills = [rng.gauss(0, SKILL_SD) for _ in range(COHORT)]
    ladder = Ladder(rate)
    players = [ladder.new() for _ in range(COHORT)]
    for _ in range(COHORT_GAMES):
        order = list(range(COHORT))
        rng.shuffle(order)
        for g in range(COHORT // 4):
            a, b, c, d = order[4 * g : 4 * g + 4]
            edge = (skills[a] + skills[c] - skills[b] - skills[d]) / 2
            if rng.random() < elo.expected_score(edge, 0):
                ladder.play((players[a], players[c]), (players[b], players[d]))
            else:
                ladder.play((players[b], players[d]), (players[a], players[c]))
    ratings = [p.rating for p in players]
    return spearman(ratings, skills), spread(ratings)


def cohort_figures(rate: Rate) -> tuple[float, float]:
    runs = [cohort(rate, seed) for seed in range(COHORTS)]
    return statistics.mean(r for r, _ in runs), statistics.mean(s for _, s in runs)


def established_move(rate: Rate) -> float:
    """An established player (1500, 200 games, hundreds of players met) wins ten games with a
    partner and two rivals drawn from a launch cohort that has played five games each: their
    rating change."""
    rng = random.Random(3)
    ladder = Ladder(rate, rng)
    cohort = [ladder.new() for _ in range(COHORT)]
    for _ in range(5):
        rng.shuffle(cohort)
        for g in range(COHORT // 4):
            a, b, c, d = cohort[4 * g : 4 * g + 4]
            ladder.play((a, c), (b, d))
    veteran = ladder.established()
    ladder.rng = None
    for _ in range(10):
        partner, *rivals = rng.sample(cohort, 3)
        ladder.play((veteran, partner), (rivals[0], rivals[1]))
    return float(veteran.rating - elo.INITIAL_RATING)


def main(write: Callable[[str], None] = print) -> None:
    write(f"1. A launch cohort: {COHORT} new players, {COHORT_GAMES} games each, {COHORTS} cohorts")
    write(f"{'rule':8} {'rank corr.':>10} {'spread':>7} {'of plain':>8}")
    figures = {name: cohort_figures(rate) for name, rate in RULES.items()}
    for name, (corr, gap) in figures.items():
        share = gap / figures["plain"][1]
        write(f"{name:8} {corr:10.3f} {gap:7.1f} {share:8.0%}")
    (corr, gap), (plain_corr, plain_gap) = figures["circle"], figures["plain"]
    write(
        f"circle against plain: correlation {corr - plain_corr:+.3f} (within 0.05:"
        f" {_yes(abs(corr - plain_corr) <= 0.05)}), spread {gap / plain_gap:.0%}"
        f" (at least 80 %: {_yes(gap >= 0.8 * plain_gap)})"
    )
    write("")
    write("2. Farms: the booster's change (new account; established 1650/200 games)")
    starts = {"new": Account(), "estab.": Account(1650.0, 200, wide=True)}
    head = f"{'farming (booster games)':46} {'games':>5} {'accts':>5} {'all':>4} {'days':>4}"
    for name in starts:
        head += f" | {name:>6} {'honest':>6} {'count':>6} {'plain':>6}"
    write(head)
    worst = -math.inf
    for label, scenario, games in SCENARIOS:
        line = ""
        ladder = None
        for start in starts.values():
            gain, ladder = run(scenario, games, elo.rate, start)
            fair = honest(scenario, games, elo.rate, start)
            if scenario in ISSUE_FARMS:
                worst = max(worst, gain - fair)
            count = run(scenario, games, by_count, start)[0]
            plain = run(scenario, games, plain_elo, start)[0]
            line += f" | {gain:+6.1f} {fair:+6.1f} {count:+6.1f} {plain:+6.1f}"
        assert ladder is not None
        write(
            f"{label:46} {games:5d} {ladder.accounts:5d} {ladder.games:4d} {ladder.days:4d}{line}"
        )
    write(
        f"issue #29's three farms: the booster's most over honest play {worst:+.1f}"
        f" (at most +5: {_yes(worst <= 5)})"
    )
    write("")
    write("3. An established player wins 10 games with newcomers of a cohort (5 games each)")
    for name, rate in RULES.items():
        write(f"{name:8} {established_move(rate):+6.1f}")
