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
  with every game. ``W`` is the least of: the ramp of the rivals' circle *beyond the player's
  own* (the people the rivals met whom the player has not met; from nothing at `CIRCLE_MIN`
  players to everything at `CIRCLE_FULL`); the ramp of the three others' circle; how little of
  the rivals' games were played with the player (`FAMILIAR_FROM`, `FAMILIAR_UP_TO`); and the
  first games of each of the four (a brand-new account decides nothing, not even for itself).
  For an established player (30 rated games or more) it is also at most how settled the
  others' ratings are (rated games / 30; the lesser of the partner's and the rival pair's
  mean): a game with newcomers moves an established rating little.

Everything a game's changes depend on (ratings, game counts, acquaintances) is what the four
players had before it, so replaying the games in order rebuilds the ladders exactly.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

INITIAL_RATING = 1500.0
PROVISIONAL_GAMES = 30
K_PROVISIONAL = 40
K_ESTABLISHED = 20
#: A circle this small (or smaller) tells the ladder nothing beyond the group: weight 0.
CIRCLE_MIN = 6
#: From a circle this wide on, the result counts in full.
CIRCLE_FULL = 12
#: An account that has met this many players besides a table's fills any circle, beyond
#: anybody's: a ring's accounts cannot meet that many strangers cheaply, and no list longer
#: than this is ever read.
MET_WIDELY = 40
#: Rated games after which an account decides in full at its table, for the others and for
#: itself (nothing in its first game, a third in its second, two thirds in its third).
FIRST_GAMES = 3
#: The share of the rivals' rated games played with the player (at the same table, any seat)
#: from which the result counts less, and at which it counts nothing: rivals who have played
#: mostly with the player tell the ladder little about the player's strength beyond them.
FAMILIAR_FROM = 0.2
FAMILIAR_UP_TO = 0.4


@dataclass(frozen=True)
class Standing:
    """A player as the ladder knew them before a game: rating, rated games in the mode, and the
    players they had shared a rated table with (``met`` of them; ``acquaintances`` may be left
    empty when ``met`` alone already fills a circle, see `circle`, and otherwise needs only the
    ones the others at the table may have met too); ``shared``: how many rated games they had
    played with each of the other players at this table."""

    rating: float = INITIAL_RATING
    games: int = 0
    player: int | None = None
    met: int = 0
    acquaintances: frozenset[int] = field(default=frozenset(), compare=False)
    shared: Mapping[int, int] = field(default_factory=dict, compare=False)


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


def is_wide(standing: Standing, beyond: Standing | None = None) -> bool:
    """Whether ``met`` alone fills a circle (beyond the players ``beyond`` has met, if given):
    no list of acquaintances is needed for such a player. A table holds at most three of the
    players they met besides the one asking. From `MET_WIDELY` on, it fills one beyond anybody."""
    if standing.met - 3 >= MET_WIDELY:
        return True
    return standing.met - 3 - (beyond.met if beyond else 0) >= CIRCLE_FULL


def circle(
    others: Iterable[Standing], table: Iterable[int | None], beyond: Standing | None = None
) -> int:
    """How many different players, not at the table, ``others`` have shared a rated table with
    (and, with ``beyond``, whom that player has not: the circle beyond theirs), counted up to
    `CIRCLE_FULL` (all that matters). An other whose ``met`` alone fills it needs no list;
    ``beyond`` needs only their acquaintances among the others' (`needs_list`)."""
    others = list(others)
    if any(is_wide(o, beyond) for o in others):
        return CIRCLE_FULL
    seated = {p for p in table if p is not None}
    union: set[int] = set()
    for other in others:
        union |= other.acquaintances
    if beyond is not None:
        union -= beyond.acquaintances
    return min(CIRCLE_FULL, len(union - seated))


def needs_list(seat: int, mets: Sequence[int]) -> bool:
    """Whether `weight_of` may read all of ``seat``'s acquaintances, given the four players'
    ``met``: only if their count does not fill a circle beyond one of their rivals' (so no
    list longer than `MET_WIDELY` is ever read). Everybody else's are needed only among those
    lists."""
    beyond = max(mets[(seat + 1) % 4], mets[(seat + 3) % 4])
    return mets[seat] - 3 < MET_WIDELY and mets[seat] - 3 - beyond < CIRCLE_FULL


def reach(size: int) -> float:
    """How much a result counts for a circle of ``size`` players: 0 to 1."""
    return min(1.0, max(0.0, (size - CIRCLE_MIN) / (CIRCLE_FULL - CIRCLE_MIN)))


def known(games: int) -> float:
    """How much a player's result tells after ``games`` rated games: 0 to 1."""
    return min(1.0, games / FIRST_GAMES)


def familiarity(player: Standing, rivals: Sequence[Standing]) -> float:
    """The share of the rivals' rated games that they played with ``player``: 0 to 1."""
    games = sum(r.games for r in rivals)
    if not games or player.player is None:
        return 0.0
    return sum(r.shared.get(player.player, 0) for r in rivals) / games


def strangeness(share: float) -> float:
    """How much a result counts when ``share`` of the rivals' games were with the player."""
    return min(1.0, max(0.0, (FAMILIAR_UP_TO - share) / (FAMILIAR_UP_TO - FAMILIAR_FROM)))


@dataclass(frozen=True)
class Weight:
    """How much a game counts for one seat and what limited it (`Limit`)."""

    value: float
    limit: str


class Limit:
    """Why a result counted less than in full (stored with the change; the game page says it)."""

    FULL = ""
    NEW = "nuevos"  # an account at the table (the player's own included) in its first games
    RIVALS = "rivales"  # the rivals have played with few players the player has not met
    FAMILIAR = "habitual"  # much of the rivals' games were played with the player
    CLOSED = "cerrado"  # the three others have played with few other players: a closed group
    SETTLED = "asentada"  # an established rating, and the others' are still provisional


def settled(games: int) -> float:
    """How far a rating is measured after ``games`` rated games (provisional until 30): 0 to 1."""
    return min(1.0, games / PROVISIONAL_GAMES)


def weight_of(seat: int, standings: Sequence[Standing]) -> Weight:
    """How much the game counts for ``seat``: the least of the four's first games, the rivals'
    circle beyond the player's, the three others' circle and how little of the rivals' games
    were with the player; and, for an established player, how settled the others' ratings are
    (the lesser of the partner's and the rival pair's mean), so that a game with newcomers
    moves them little."""
    own = standings[seat]
    others = [standings[(seat + i) % 4] for i in (1, 2, 3)]
    rivals = [others[0], others[2]]
    table = [s.player for s in standings]
    candidates = [
        (min(known(s.games) for s in standings), Limit.NEW),
        (reach(circle(rivals, table, beyond=own)), Limit.RIVALS),
        (reach(circle(others, table)), Limit.CLOSED),
        (strangeness(familiarity(own, rivals)), Limit.FAMILIAR),
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
    """docs/rules.md §8.4: the player who abandoned ``seat`` is charged as if their pair had lost
    the game to the rival pair, with their own K and no weight: whoever they left, leaving costs in
    full (a weight would make leaving a table of new accounts free). Nobody else moves."""
    own = pair_rating(standings[seat].rating, standings[(seat + 2) % 4].rating)
    rivals = pair_rating(standings[(seat + 1) % 4].rating, standings[(seat + 3) % 4].rating)
    standing = standings[seat]
    k = k_factor(standing.games)
    return Change(standing.rating, standing.rating - k * expected_score(own, rivals), k, 1.0)


def rate(standings: Sequence[Standing], winner_team: int) -> list[float]:
    """New ratings of the four seats (see `changes`)."""
    return [change.after for change in changes(standings, winner_team)]
