"""The rating maths: pure functions, no Django (tested on their own). docs/ratings.md says why.

One Elo ladder per mode. A pair plays as the mean of its two players' ratings; the expected
score of a pair is ``E = 1 / (1 + 10 ** ((R_opp - R_own) / 400))``. Each player of the pair
moves by ``K * (S - E) * W``:

- ``K`` is their own: 40 during their first 30 rated games in the mode (a provisional rating,
  shown with «?»), 20 afterwards.
- ``W``, the weight of the result, is how far the ladder knows the players who, besides them,
  decided it: the rival pair and the partner. A player's reliability is ``min(1, rated games /
  30)``; a pair's, the mean of its two (as its rating is); ``W`` is the lesser of the rival
  pair's and the partner's. A result with a brand-new partner or against two brand-new
  rivals moves nothing; among established players it counts in full. A provisional rating is
  one the ladder does not trust yet, for the player (big K) and for everybody at the table
  with them (small W).

Everything a game's changes depend on (ratings, game counts) is what the four players had before
it, so replaying the games in order rebuilds the ladders exactly.
"""

from __future__ import annotations

from dataclasses import dataclass

INITIAL_RATING = 1500.0
PROVISIONAL_GAMES = 30
K_PROVISIONAL = 40
K_ESTABLISHED = 20


@dataclass(frozen=True)
class Standing:
    """A player's rating and how many rated games they had played in the mode before this one."""

    rating: float = INITIAL_RATING
    games: int = 0


@dataclass(frozen=True)
class Change:
    """One seat's move in a rated game: ``after = before + k * (score - expected) * weight``."""

    before: float
    after: float
    k: int
    weight: float


def is_provisional(games: int) -> bool:
    return games < PROVISIONAL_GAMES


def k_factor(games_before: int) -> int:
    """K for a player who has played ``games_before`` rated games in this mode."""
    return K_PROVISIONAL if is_provisional(games_before) else K_ESTABLISHED


def reliability(games_before: int) -> float:
    """How far the ladder trusts a rating after ``games_before`` rated games: 0 to 1."""
    return min(1.0, games_before / PROVISIONAL_GAMES)


def pair_rating(a: float, b: float) -> float:
    return (a + b) / 2


def pair_reliability(a: Standing, b: Standing) -> float:
    """How far the ladder knows a pair: the mean of its two players', as the pair's rating is."""
    return (reliability(a.games) + reliability(b.games)) / 2


def weight(partner: Standing, rivals: tuple[Standing, Standing]) -> float:
    """How much a game counts for a player: as far as the ladder knows both the rival pair and
    the partner (the lesser of the two)."""
    return min(pair_reliability(*rivals), reliability(partner.games))


def expected_score(own: float, opponent: float) -> float:
    return 1 / (1 + 10 ** ((opponent - own) / 400))


def changes(standings: list[Standing] | tuple[Standing, ...], winner_team: int) -> list[Change]:
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
        w = weight(
            standings[(seat + 2) % 4], (standings[(seat + 1) % 4], standings[(seat + 3) % 4])
        )
        out.append(Change(standing.rating, standing.rating + k * (score - expected) * w, k, w))
    return out


def abandonment_change(standings: list[Standing] | tuple[Standing, ...], seat: int) -> Change:
    """RULES.md §8.4: the player who abandoned ``seat`` is charged as if their pair had lost the
    game to the rival pair, with their own K and no weight: whoever they left, leaving costs in
    full (a weight would make leaving a table of new accounts free). Nobody else moves."""
    own = pair_rating(standings[seat].rating, standings[(seat + 2) % 4].rating)
    rivals = pair_rating(standings[(seat + 1) % 4].rating, standings[(seat + 3) % 4].rating)
    standing = standings[seat]
    k = k_factor(standing.games)
    return Change(standing.rating, standing.rating - k * expected_score(own, rivals), k, 1.0)


def rate(standings: list[Standing] | tuple[Standing, ...], winner_team: int) -> list[float]:
    """New ratings of the four seats (see `changes`)."""
    return [change.after for change in changes(standings, winner_team)]
