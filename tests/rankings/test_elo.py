"""The rating maths on its own (rankings.elo), no database."""

from __future__ import annotations

import pytest

from rankings import elo
from rankings.elo import Standing


def known(rating: float = 1500, games: int = 100) -> Standing:
    """A player the ladder knows: many games, hundreds of different players met."""
    return Standing(rating, games, met=100)


def test_everybody_starts_at_1500() -> None:
    assert Standing().rating == elo.INITIAL_RATING == 1500


def test_equal_ratings_expect_half_and_move_by_half_of_k() -> None:
    assert elo.expected_score(1500, 1500) == 0.5
    established = [known(games=30)] * 4
    assert elo.rate(established, winner_team=0) == [1510, 1490, 1510, 1490]


def test_the_expected_score_follows_the_elo_formula() -> None:
    assert elo.expected_score(1700, 1500) == pytest.approx(1 / (1 + 10 ** (-200 / 400)))
    assert elo.expected_score(1500, 1900) == pytest.approx(1 / 11)
    assert elo.expected_score(1620, 1480) + elo.expected_score(1480, 1620) == pytest.approx(1)


def test_a_pair_plays_as_the_mean_of_its_two_players() -> None:
    assert elo.pair_rating(1400, 1600) == 1500
    # Team 0 = seats 0+2 (1400, 1600 → 1500), team 1 = seats 1+3 (1450, 1550 → 1500): even.
    standings = [known(1400), known(1450), known(1600), known(1550)]
    after = elo.rate(standings, winner_team=1)
    assert [round(a - s.rating, 9) for a, s in zip(after, standings, strict=True)] == [
        -10,
        10,
        -10,
        10,
    ]


def test_an_upset_moves_more_than_an_expected_win() -> None:
    strong = [known(1800), known(1400), known(1800), known(1400)]
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
    standings = [known(games=29), known(), known(games=30), known(games=40)]
    changes = elo.changes(standings, winner_team=0)
    assert [c.k for c in changes] == [40, 20, 20, 20]
    # An established player's result weighs how settled the others are: seat 0 has 29 of 30.
    assert [c.weight for c in changes] == pytest.approx([1, 59 / 60, 29 / 30, 59 / 60])
    assert [c.after - c.before for c in changes] == pytest.approx(
        [20, -10 * 59 / 60, 10 * 29 / 30, -10 * 59 / 60]
    )
    assert changes[0].limit == "" and changes[2].limit == elo.Limit.SETTLED


def test_an_established_player_barely_moves_with_newcomers_who_know_everybody() -> None:
    """Glicko's point: a result against ratings that are still guesses says little about a
    settled one. Newcomers with five games and wide circles count a sixth for a veteran, in full
    for each other."""
    veteran = known(games=200)
    newcomers = [Standing(1500, 5, p, elo.MET_WIDELY + 3) for p in (2, 3, 4)]
    changes = elo.changes([veteran, *newcomers], winner_team=0)
    assert changes[0].weight == pytest.approx(5 / 30) and changes[0].limit == elo.Limit.SETTLED
    assert changes[0].after - changes[0].before == pytest.approx(10 * 5 / 30)
    assert [c.weight for c in changes[1:]] == [1, 1, 1]


def test_a_result_against_two_brand_new_accounts_moves_nothing() -> None:
    for me in (Standing(1500, 0), known(1700, 200)):
        for winner in (0, 1):
            changes = elo.changes([me, Standing(), known(), Standing()], winner)
            assert changes[0].after == me.rating and changes[0].weight == 0
            assert changes[0].limit == elo.Limit.NEW


def test_a_result_with_a_brand_new_partner_moves_nothing_for_you() -> None:
    for me in (Standing(1500, 0), known(1700, 200)):
        changes = elo.changes([me, known(), Standing(), known()], winner_team=0)
        assert changes[0].after == me.rating and changes[0].weight == 0


def circle_of(size: int, first: int = 100) -> frozenset[int]:
    return frozenset(range(first, first + size))


def test_a_result_weighs_as_much_as_the_circle_of_the_others_reaches() -> None:
    """The circle is the different players, not at this table, the others have played with."""
    me = Standing(1500, 10, 1, 100)
    for size, weight in [(0, 0), (6, 0), (8, 1 / 3), (10, 2 / 3), (12, 1), (40, 1)]:
        # The rivals and the partner have all met the same `size` players, and each other.
        others = [
            Standing(1500, 10, p, size + 3, circle_of(size) | {1, 2, 3, 4} - {p}) for p in (2, 3, 4)
        ]
        change = elo.changes([me, *others], winner_team=0)[0]
        assert change.weight == pytest.approx(weight)
        assert change.after - change.before == pytest.approx(20 * weight)
        assert change.limit == ("" if weight == 1 else elo.Limit.RIVALS)


def test_a_closed_group_counts_nothing_however_long_it_plays() -> None:
    """Eight accounts that have played only among themselves: at a table of four of them each
    one's others have met only the other four of the group."""
    group = list(range(1, 9))
    standings = [Standing(1500, 300, p, 7, frozenset(group) - {p}) for p in group[:4]]
    assert all(c.weight == 0 for c in elo.changes(standings, winner_team=0))


def test_the_rivals_circle_counts_on_its_own() -> None:
    """A partner who knows everybody does not lend trust to two rivals from a closed group."""
    me, partner = Standing(1500, 10, 1, 100), Standing(1500, 10, 3, 100)
    rivals = [Standing(1500, 30, p, 4, frozenset({1, 2, 3, 4, 5}) - {p}) for p in (2, 4)]
    change = elo.changes([me, rivals[0], partner, rivals[1]], winner_team=0)[0]
    assert change.weight == 0 and change.limit == elo.Limit.RIVALS


def test_a_circle_needs_no_list_when_the_count_fills_it() -> None:
    wide = Standing(1500, 10, 9, elo.CIRCLE_FULL + 3)
    assert elo.circle([wide], [9, 1, 2, 3]) == elo.CIRCLE_FULL


def test_rating_refuses_a_game_that_is_not_four_players_or_has_no_winner() -> None:
    with pytest.raises(ValueError):
        elo.rate([Standing()] * 3, 0)
    with pytest.raises(ValueError):
        elo.rate([Standing()] * 4, None)  # type: ignore[arg-type]


def test_rivals_who_played_much_with_the_player_count_less() -> None:
    """The share of the rivals' games played with the player: nothing up to a fifth, nothing
    counted from two fifths, a straight ramp between."""
    for shared, weight in [(0, 1), (4, 1), (6, 0.5), (8, 0), (20, 0)]:
        me = Standing(1500, 10, 1, elo.MET_WIDELY + 3)
        rivals = [
            Standing(1500, 10, p, elo.MET_WIDELY + 3, shared={1: shared // 2}) for p in (2, 4)
        ]
        partner = Standing(1500, 10, 3, elo.MET_WIDELY + 3)
        change = elo.changes([me, rivals[0], partner, rivals[1]], winner_team=0)[0]
        assert change.weight == pytest.approx(weight)
        assert change.limit == ("" if weight == 1 else elo.Limit.FAMILIAR)


def test_the_rivals_circle_counts_only_players_the_player_has_not_met() -> None:
    ring = circle_of(12)
    rivals = [Standing(1500, 10, p, 15, ring | {1, 2, 3, 4} - {p}) for p in (2, 4)]
    partner = Standing(1500, 100, 3, 100)
    stranger = Standing(1500, 10, 1, 3, frozenset({2, 3, 4}))
    insider = Standing(1500, 10, 1, 15, ring | {2, 3, 4})
    assert elo.changes([stranger, rivals[0], partner, rivals[1]], 0)[0].weight == 1
    change = elo.changes([insider, rivals[0], partner, rivals[1]], 0)[0]
    assert change.weight == 0 and change.limit == elo.Limit.RIVALS
