"""The rating maths on its own (rankings.elo), no database."""

from __future__ import annotations

import pytest

from rankings import elo
from rankings.elo import Standing


def test_everybody_starts_at_1500() -> None:
    assert Standing().rating == elo.INITIAL_RATING == 1500


def test_equal_ratings_expect_half_and_move_by_half_of_k() -> None:
    assert elo.expected_score(1500, 1500) == 0.5
    established = [Standing(1500, 30)] * 4
    assert elo.rate(established, winner_team=0) == [1510, 1490, 1510, 1490]


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
    standings = [Standing(1500, 29), Standing(1500, 100), Standing(1500, 30), Standing(1500, 40)]
    changes = elo.changes(standings, winner_team=0)
    assert [c.k for c in changes] == [40, 20, 20, 20]
    # Everybody at the table is (nearly) known: seat 0, with 29 games, is trusted 29/30.
    assert [c.weight for c in changes] == pytest.approx([1, 59 / 60, 29 / 30, 59 / 60])
    assert [c.after - c.before for c in changes] == pytest.approx(
        [20, -10 * 59 / 60, 10 * 29 / 30, -10 * 59 / 60]
    )


def test_a_result_against_two_brand_new_accounts_moves_nothing() -> None:
    mate = Standing(1500, 100)
    for me in (Standing(1500, 0), Standing(1700, 200)):
        for winner in (0, 1):
            changes = elo.changes([me, Standing(), mate, Standing()], winner)
            assert changes[0].after == me.rating and changes[0].weight == 0


def test_a_result_with_a_brand_new_partner_moves_nothing_for_you() -> None:
    """Else a booster with a fresh partner each game could farm two throwaway rivals, who grow
    trusted by playing while their losses to a half-new pair count little."""
    for me in (Standing(1500, 0), Standing(1700, 200)):
        rival = Standing(1500, 100)
        changes = elo.changes([me, rival, Standing(), rival], winner_team=0)
        assert changes[0].after == me.rating and changes[0].weight == 0
        # The new partner's own rating does move: the rivals are known.
        assert changes[2].weight == elo.reliability(me.games) and changes[2].k == 40


def test_a_result_weighs_as_much_as_the_rival_pair_and_the_partner_are_trusted() -> None:
    assert [elo.reliability(g) for g in (0, 3, 15, 29, 30, 500)] == [0, 0.1, 0.5, 29 / 30, 1, 1]
    assert elo.pair_reliability(Standing(games=0), Standing(games=30)) == 0.5
    me, mate = Standing(1500, 100), Standing(1500, 100)
    for rivals, weight in [((0, 0), 0), ((6, 6), 0.2), ((0, 30), 0.5), ((15, 45), 0.75)]:
        a, b = (Standing(1500, g) for g in rivals)
        change = elo.changes([me, a, mate, b], winner_team=0)[0]
        assert change.weight == pytest.approx(weight)
        assert change.after - change.before == pytest.approx(10 * weight)
    known = Standing(1500, 100)
    for partner_games, weight in [(0, 0), (3, 0.1), (15, 0.5), (30, 1)]:
        changes = elo.changes([me, known, Standing(1500, partner_games), known], winner_team=1)
        assert changes[0].weight == pytest.approx(weight)


def test_rating_refuses_a_game_that_is_not_four_players_or_has_no_winner() -> None:
    with pytest.raises(ValueError):
        elo.rate([Standing()] * 3, 0)
    with pytest.raises(ValueError):
        elo.rate([Standing()] * 4, None)  # type: ignore[arg-type]
