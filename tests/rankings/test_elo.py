"""The rating maths on its own (rankings.elo), no database."""

from __future__ import annotations

import pytest

from rankings import elo
from rankings.elo import Standing


def test_everybody_starts_at_1500() -> None:
    assert Standing().rating == elo.INITIAL_RATING == 1500


def test_equal_ratings_expect_half_and_move_by_half_of_k() -> None:
    assert elo.expected_score(1500, 1500) == 0.5
    after = elo.rate([Standing()] * 4, winner_team=0)
    assert after == [1520, 1480, 1520, 1480]


def test_the_expected_score_follows_the_elo_formula() -> None:
    assert elo.expected_score(1700, 1500) == pytest.approx(1 / (1 + 10 ** (-200 / 400)))
    assert elo.expected_score(1500, 1900) == pytest.approx(1 / 11)
    assert elo.expected_score(1620, 1480) + elo.expected_score(1480, 1620) == pytest.approx(1)


def test_a_pair_plays_as_the_mean_of_its_two_players() -> None:
    assert elo.pair_rating(1400, 1600) == 1500
    # Team 0 = seats 0+2 (1400, 1600 → 1500), team 1 = seats 1+3 (1450, 1550 → 1500): even.
    standings = [Standing(1400, 50), Standing(1450, 50), Standing(1600, 50), Standing(1550, 50)]
    after = elo.rate(standings, winner_team=1)
    assert [round(a - s.rating, 9) for a, s in zip(after, standings, strict=True)] == [
        -10,
        10,
        -10,
        10,
    ]


def test_an_upset_moves_more_than_an_expected_win() -> None:
    strong = [Standing(1800, 40), Standing(1400, 40), Standing(1800, 40), Standing(1400, 40)]
    expected_win = elo.rate(strong, winner_team=0)
    upset = elo.rate(strong, winner_team=1)
    gain_expected = expected_win[0] - 1800
    gain_upset = upset[1] - 1400
    e_strong = 1 / (1 + 10 ** ((1400 - 1800) / 400))
    assert gain_expected == pytest.approx(20 * (1 - e_strong))
    assert gain_upset == pytest.approx(20 * e_strong)
    assert gain_upset > 10 > gain_expected > 0
    # The losers lose exactly what the winners win when everybody has the same K.
    assert sum(upset) == pytest.approx(sum(s.rating for s in strong))


def test_k_is_40_for_the_first_30_rated_games_and_20_after() -> None:
    assert elo.k_factor(0) == 40
    assert elo.k_factor(29) == 40
    assert elo.k_factor(30) == 20
    assert elo.is_provisional(29) and not elo.is_provisional(30)


def test_each_player_moves_by_their_own_k() -> None:
    standings = [Standing(1500, 0), Standing(1500, 100), Standing(1500, 30), Standing(1500, 29)]
    after = elo.rate(standings, winner_team=0)
    assert after == [1520, 1490, 1510, 1480]


def test_rating_refuses_a_game_that_is_not_four_players_or_has_no_winner() -> None:
    with pytest.raises(ValueError):
        elo.rate([Standing()] * 3, 0)
    with pytest.raises(ValueError):
        elo.rate([Standing()] * 4, None)  # type: ignore[arg-type]
