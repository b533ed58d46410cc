"""The rating maths: pure functions, no Django (tested on their own).

One Elo ladder per mode. A pair plays as the mean of its two players' ratings; the expected
score of a pair is ``E = 1 / (1 + 10 ** ((R_opp - R_own) / 400))`` and each player of the pair
moves by ``K * (S - E)``, with their own K: 40 during their first 30 rated games in the mode
(a provisional rating, shown with «?»), 20 afterwards.
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


def is_provisional(games: int) -> bool:
    return games < PROVISIONAL_GAMES


def k_factor(games_before: int) -> int:
    """K for a player who has played ``games_before`` rated games in this mode."""
    return K_PROVISIONAL if is_provisional(games_before) else K_ESTABLISHED


def pair_rating(a: float, b: float) -> float:
    return (a + b) / 2


def expected_score(own: float, opponent: float) -> float:
    return 1 / (1 + 10 ** ((opponent - own) / 400))


def rate(standings: list[Standing] | tuple[Standing, ...], winner_team: int) -> list[float]:
    """New ratings of the four seats (0–3; team 0 = seats 0 and 2, team 1 = seats 1 and 3)."""
    if len(standings) != 4:
        raise ValueError("a game of Mus has four players")
    if winner_team not in (0, 1):
        raise ValueError("winner_team must be 0 or 1")
    pairs = (
        pair_rating(standings[0].rating, standings[2].rating),
        pair_rating(standings[1].rating, standings[3].rating),
    )
    new = []
    for seat, standing in enumerate(standings):
        team = seat % 2
        expected = expected_score(pairs[team], pairs[1 - team])
        score = 1.0 if team == winner_team else 0.0
        new.append(standing.rating + k_factor(standing.games) * (score - expected))
    return new
