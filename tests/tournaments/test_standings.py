"""Standings from results (tournaments.standings), against a hand computation."""

from __future__ import annotations

from tournaments.standings import Result, Seed, standings


def test_points_buchholz_and_tantos_as_computed_by_hand() -> None:
    seeds = [Seed(1, 1600), Seed(2, 1580), Seed(3, 1550), Seed(4, 1500), Seed(5, 1450)]
    results = [
        # Round 1: 1 beats 3 40–30, 4 beats 2 40–35, 5 sits out.
        Result(1, 3, 1, 40, 30),
        Result(2, 4, 4, 35, 40),
        Result(5, None, 5),
        # Round 2: 4 beats 1 40–20, 5 beats 3 40–39, 2 sits out.
        Result(1, 4, 4, 20, 40),
        Result(5, 3, 5, 40, 39),
        Result(2, None, 2),
        # Round 3: 4 and 5 both lost (neither came), 1 beats 2 40–38, 3 sits out.
        Result(4, 5, None, 0, 0),
        Result(2, 1, 1, 38, 40),
        Result(3, None, 3),
    ]
    rows = standings(seeds, results)
    # By hand: points 1:2, 2:1, 3:1, 4:2, 5:2. Buchholz (opponents' points, byes left out):
    # 1: 3+4+2 → 1+2+1 = 4; 2: 4+1 → 4; 3: 1+5 → 4; 4: 2+1+5 → 5; 5: 3+4 → 3.
    # Tantos: 1: +10 −20 +2 = −8; 2: −5 −2 = −7; 3: −10 −1 = −11; 4: +5 +20 +0 = 25; 5: +1.
    table = [(r.rank, r.pair, r.points, r.buchholz, r.tantos, r.played, r.byes) for r in rows]
    assert table == [
        (1, 4, 2, 5, 25, 3, 0),
        (2, 1, 2, 4, -8, 3, 0),
        (3, 5, 2, 3, 1, 2, 1),
        (4, 2, 1, 4, -7, 2, 1),
        (5, 3, 1, 4, -11, 2, 1),
    ]


def test_complete_ties_go_to_the_higher_rating_then_the_earlier_registration() -> None:
    rows = standings([Seed(7, 1500), Seed(3, 1500), Seed(9, 1510)], [])
    assert [r.pair for r in rows] == [9, 7, 3]
