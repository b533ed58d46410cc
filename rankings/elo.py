"""The rating maths: pure functions, no Django (tested on their own). docs/ratings.md says why.

One Elo ladder per mode. A pair plays as the mean of its two players' ratings; the expected
score of a pair is ``E = 1 / (1 + 10 ** ((R_opp - R_own) / 400))``. Each player of the pair
moves by ``K * (S - E) * W``:

- ``K`` is their own: 40 during their first 30 rated games in the mode (a provisional rating,
  shown with «?»), 20 afterwards.
- ``W``, the weight of the result, is how far the result reaches beyond the table: the *circle*
  of the others is how many different players, not at this table, they have shared a rated
  table with. A closed group (a ring of throwaway accounts, however many games it plays) has a
  circle no larger than itself; honest newcomers in random fours widen theirs by up to three
  with every game. ``W`` is the lesser of the ramp of the rivals' circle and of the three
  others' circle (from nothing at `CIRCLE_MIN` players to everything at `CIRCLE_FULL`), and of
  each other player's first games (a brand-new account decides nothing). For an established
  player (30 rated games or more) it is also at most how settled the others' ratings are
  (rated games / 30; the lesser of the partner's and the rival pair's mean): a game with
  newcomers moves an established rating little.

Everything a game's changes depend on (ratings, game counts, acquaintances) is what the four
players had before it, so replaying the games in order rebuilds the ladders exactly.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

INITIAL_RATING = 1500.0
PROVISIONAL_GAMES = 30
K_PROVISIONAL = 40
K_ESTABLISHED = 20
#: A circle this small (or smaller) tells the ladder nothing beyond the group: weight 0.
CIRCLE_MIN = 5
#: From a circle this wide on, the result counts in full.
CIRCLE_FULL = 14
#: Rated games after which an account decides in full for the others at its table (nothing in
#: its first game, half in its second).
FIRST_GAMES = 2


@dataclass(frozen=True)
class Standing:
    """A player as the ladder knew them before a game: rating, rated games in the mode, and the
    players they had shared a rated table with (``met`` of them; ``acquaintances`` may be left
    empty when ``met`` alone already fills a circle, see `circle`)."""

    rating: float = INITIAL_RATING
    games: int = 0
    player: int | None = None
    met: int = 0
    acquaintances: frozenset[int] = field(default=frozenset(), compare=False)


@dataclass(frozen=True)
class Change:
    """One seat's move in a rated game: ``after = before + k * (score - expected) * weight``."""

    before: float
    after: float
    k: int
    weight: float
    limit: str = ""


def is_provisional(games: int) -> bool:
    return games < PROVISIONAL_GAMES


def k_factor(games_before: int) -> int:
    """K for a player who has played ``games_before`` rated games in this mode."""
    return K_PROVISIONAL if is_provisional(games_before) else K_ESTABLISHED


def circle(others: Iterable[Standing], table: Iterable[int | None]) -> int:
    """How many different players, not at the table, ``others`` have shared a rated table with,
    counted up to `CIRCLE_FULL` (all that matters). A player whose ``met`` alone fills it needs
    no list (a table holds at most three of the players they met besides the one asking)."""
    others = list(others)
    if any(o.met - 3 >= CIRCLE_FULL for o in others):
        return CIRCLE_FULL
    seated = {p for p in table if p is not None}
    union: set[int] = set()
    for other in others:
        union |= other.acquaintances
    return min(CIRCLE_FULL, len(union - seated))


def reach(size: int) -> float:
    """How much a result counts for a circle of ``size`` players: 0 to 1."""
    return min(1.0, max(0.0, (size - CIRCLE_MIN) / (CIRCLE_FULL - CIRCLE_MIN)))


def known(games: int) -> float:
    """How much a player's result tells about the others after ``games`` rated games: 0 to 1."""
    return min(1.0, games / FIRST_GAMES)


@dataclass(frozen=True)
class Weight:
    """How much a game counts for one seat and what limited it (`Limit`)."""

    value: float
    limit: str


class Limit:
    """Why a result counted less than in full (stored with the change; the game page says it)."""

    FULL = ""
    NEW = "nuevos"  # an account at the table in its first rated games
    RIVALS = "rivales"  # the rivals have played with few other players
    CLOSED = "cerrado"  # the three others have played with few other players: a closed group
    SETTLED = "asentada"  # an established rating, and the others' are still provisional


def settled(games: int) -> float:
    """How far a rating is measured after ``games`` rated games (provisional until 30): 0 to 1."""
    return min(1.0, games / PROVISIONAL_GAMES)


def weight_of(seat: int, standings: Sequence[Standing]) -> Weight:
    """How much the game counts for ``seat``: the least of the others' first games, the rivals'
    circle and the three others' circle; and, for an established player, how settled the
    others' ratings are (the lesser of the partner's and the rival pair's mean), so that a game
    with newcomers moves them little."""
    others = [standings[(seat + i) % 4] for i in (1, 2, 3)]
    rivals = [others[0], others[2]]
    table = [s.player for s in standings]
    candidates = [
        (min(known(o.games) for o in others), Limit.NEW),
        (reach(circle(rivals, table)), Limit.RIVALS),
        (reach(circle(others, table)), Limit.CLOSED),
    ]
    if not is_provisional(standings[seat].games):
        rivals_settled = (settled(rivals[0].games) + settled(rivals[1].games)) / 2
        candidates.append((min(settled(others[1].games), rivals_settled), Limit.SETTLED))
    value, limit = min(candidates, key=lambda c: c[0])
    return Weight(value, limit if value < 1 else Limit.FULL)


def weight(seat: int, standings: Sequence[Standing]) -> float:
    return weight_of(seat, standings).value


def pair_rating(a: float, b: float) -> float:
    return (a + b) / 2


def expected_score(own: float, opponent: float) -> float:
    return 1 / (1 + 10 ** ((opponent - own) / 400))


def changes(standings: Sequence[Standing], winner_team: int) -> list[Change]:
    """The four seats' changes (0–3; team 0 = seats 0 and 2, team 1 = seats 1 and 3)."""
    if len(standings) != 4:
        raise ValueError("a game of Mus has four players")
    if winner_team not in (0, 1):
        raise ValueError("winner_team must be 0 or 1")
    ratings = (
        pair_rating(standings[0].rating, standings[2].rating),
        pair_rating(standings[1].rating, standings[3].rating),
    )
    out = []
    for seat, standing in enumerate(standings):
        team = seat % 2
        expected = expected_score(ratings[team], ratings[1 - team])
        score = 1.0 if team == winner_team else 0.0
        k = k_factor(standing.games)
        w = weight_of(seat, standings)
        after = standing.rating + k * (score - expected) * w.value
        out.append(Change(standing.rating, after, k, w.value, w.limit))
    return out


def abandonment_change(standings: Sequence[Standing], seat: int) -> Change:
    """RULES.md §8.4: the player who abandoned ``seat`` is charged as if their pair had lost the
    game to the rival pair, with their own K and no weight: whoever they left, leaving costs in
    full (a weight would make leaving a table of new accounts free). Nobody else moves."""
    own = pair_rating(standings[seat].rating, standings[(seat + 2) % 4].rating)
    rivals = pair_rating(standings[(seat + 1) % 4].rating, standings[(seat + 3) % 4].rating)
    standing = standings[seat]
    k = k_factor(standing.games)
    return Change(standing.rating, standing.rating - k * expected_score(own, rivals), k, 1.0)


def rate(standings: Sequence[Standing], winner_team: int) -> list[float]:
    """New ratings of the four seats (see `changes`)."""
    return [change.after for change in changes(standings, winner_team)]
