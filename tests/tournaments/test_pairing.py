"""The pure pairing of tournament rounds (tournaments.pairing): Swiss rounds by score groups with
no rematches and a bye, and seeded knockout brackets with byes. Property tests (hypothesis)
against brute force where the claim is about every possible pairing."""

from __future__ import annotations

import random
from itertools import combinations

from hypothesis import given, settings
from hypothesis import strategies as st

from tournaments.pairing import (
    Entrant,
    bracket_size,
    knockout_bracket,
    knockout_next,
    knockout_rounds,
    max_swiss_rounds,
    ranked,
    seed_positions,
    swiss_round,
)


def entrants_from(scores: list[float], seed: int) -> list[Entrant]:
    rng = random.Random(seed)
    return [Entrant(i + 1, s, round(rng.uniform(1300, 1700))) for i, s in enumerate(scores)]


def has_perfect_matching(ids: list[int], played: set[frozenset[int]]) -> bool:
    if not ids:
        return True
    first, rest = ids[0], ids[1:]
    return any(
        has_perfect_matching([x for x in rest if x != other], played)
        for other in rest
        if frozenset((first, other)) not in played
    )


def clean_pairing_exists(
    entrants: list[Entrant], played: set[frozenset[int]], byes: set[int]
) -> bool:
    ids = [e.id for e in entrants]
    if len(ids) % 2 == 0:
        return has_perfect_matching(ids, played)
    candidates = [i for i in ids if i not in byes] or ids
    return any(has_perfect_matching([x for x in ids if x != b], played) for b in candidates)


@st.composite
def histories(draw: st.DrawFn, max_pairs: int = 10) -> tuple[list[Entrant], set, set]:
    """Some pairs after some rounds played by `swiss_round` itself, with random results."""
    n = draw(st.integers(2, max_pairs))
    rounds = draw(st.integers(0, max_swiss_rounds(n)))
    seed = draw(st.integers(0, 10**6))
    rng = random.Random(seed)
    scores = dict.fromkeys(range(1, n + 1), 0.0)
    ratings = {i: float(rng.randrange(1200, 1800)) for i in scores}
    played: set[frozenset[int]] = set()
    byes: set[int] = set()
    for _ in range(rounds):
        entrants = [Entrant(i, scores[i], ratings[i]) for i in scores]
        found = swiss_round(entrants, played, byes)
        for a, b in found.pairs:
            played.add(frozenset((a, b)))
            scores[rng.choice((a, b))] += 1
        if found.bye is not None:
            byes.add(found.bye)
            scores[found.bye] += 1
    return [Entrant(i, scores[i], ratings[i]) for i in scores], played, byes


@given(histories())
@settings(max_examples=300, deadline=None)
def test_every_pair_plays_once_or_sits_out_and_only_an_odd_count_has_a_bye(
    history: tuple[list[Entrant], set, set],
) -> None:
    entrants, played, byes = history
    found = swiss_round(entrants, played, byes)
    seen = [x for p in found.pairs for x in p] + ([found.bye] if found.bye is not None else [])
    assert sorted(seen) == sorted(e.id for e in entrants)
    assert (found.bye is not None) == (len(entrants) % 2 == 1)


@given(histories())
@settings(max_examples=300, deadline=None)
def test_nobody_meets_a_pair_twice_when_any_pairing_allows_it(
    history: tuple[list[Entrant], set, set],
) -> None:
    entrants, played, byes = history
    found = swiss_round(entrants, played, byes)
    repeats = [p for p in found.pairs if frozenset(p) in played]
    assert len(repeats) == found.rematches
    if clean_pairing_exists(entrants, played, byes):
        assert repeats == []


@given(histories())
@settings(max_examples=300, deadline=None)
def test_the_bye_goes_to_a_pair_that_has_not_had_one_lowest_first(
    history: tuple[list[Entrant], set, set],
) -> None:
    entrants, played, byes = history
    found = swiss_round(entrants, played, byes)
    if found.bye is None:
        return
    without = [e for e in ranked(entrants) if e.id not in byes]
    if without:
        assert found.bye not in byes
    # Nobody ranked below the bye could have sat out without forcing a rematch.
    order = [e.id for e in ranked(entrants)]
    below = [e.id for e in without if order.index(e.id) > order.index(found.bye)]
    for other in below:
        assert not has_perfect_matching([i for i in order if i != other], played)


@given(
    st.lists(st.sampled_from([0.0, 1.0, 2.0, 3.0]), min_size=2, max_size=16),
    st.integers(0, 10**6),
)
@settings(max_examples=300, deadline=None)
def test_without_history_pairs_stay_in_their_score_group_but_for_one_floater_per_group(
    scores: list[float], seed: int
) -> None:
    entrants = entrants_from(scores, seed)
    found = swiss_round(entrants)
    score = {e.id: e.score for e in entrants}
    across = [p for p in found.pairs if score[p[0]] != score[p[1]]]
    assert len(across) <= len(set(scores)) - 1
    # The higher-ranked pair of each pairing comes first, and the best pairs play first.
    order = [e.id for e in ranked(entrants)]
    assert all(order.index(a) < order.index(b) for a, b in found.pairs)
    assert [a for a, _b in found.pairs] == sorted((a for a, _b in found.pairs), key=order.index)


def test_round_one_pairs_the_top_half_against_the_bottom_half_by_rating() -> None:
    entrants = [Entrant(i, 0, 2000 - 10 * i) for i in range(1, 9)]  # 1 is the best
    assert swiss_round(entrants).pairs == [(1, 5), (2, 6), (3, 7), (4, 8)]


def test_a_score_group_pairs_top_half_against_bottom_half_and_avoids_rematches() -> None:
    # Four pairs on 1 point (1–4 by rating), four on 0 (5–8).
    entrants = [Entrant(i, 1.0 if i <= 4 else 0.0, 2000 - 10 * i) for i in range(1, 9)]
    assert swiss_round(entrants).pairs == [(1, 3), (2, 4), (5, 7), (6, 8)]
    # 1 has already met 3: it plays 4, and 2 plays 3.
    found = swiss_round(entrants, {frozenset((1, 3))})
    assert found.pairs == [(1, 4), (2, 3), (5, 7), (6, 8)]
    assert found.rematches == 0


def test_an_odd_group_sends_its_lowest_pair_down_and_the_lowest_pair_sits_out() -> None:
    # 1–3 on 1 point, 4–7 on 0: 3 floats down to play 4; 7, the lowest, has the bye.
    entrants = [Entrant(i, 1.0 if i <= 3 else 0.0, 2000 - 10 * i) for i in range(1, 8)]
    found = swiss_round(entrants)
    assert found.bye == 7
    assert found.pairs == [(1, 2), (3, 4), (5, 6)]
    # 7 had a bye already: 6 sits out instead.
    assert swiss_round(entrants, byes={7}).bye == 6


def test_when_every_pairing_repeats_a_game_it_still_pairs_everybody() -> None:
    entrants = [Entrant(i, 0, 1500) for i in range(1, 5)]
    played = {frozenset(p) for p in combinations(range(1, 5), 2)}
    found = swiss_round(entrants, played)
    assert sorted(x for p in found.pairs for x in p) == [1, 2, 3, 4]
    assert found.rematches == 2


def test_sixty_four_pairs_pair_quickly_even_late() -> None:
    rng = random.Random(5)
    scores = dict.fromkeys(range(1, 65), 0.0)
    played: set[frozenset[int]] = set()
    for _ in range(10):
        found = swiss_round([Entrant(i, s, 1500 + i) for i, s in scores.items()], played)
        assert found.rematches == 0
        for a, b in found.pairs:
            played.add(frozenset((a, b)))
            scores[rng.choice((a, b))] += 1


def test_the_most_swiss_rounds_let_everybody_meet_everybody_once() -> None:
    assert [max_swiss_rounds(n) for n in (1, 2, 3, 4, 5, 8)] == [1, 1, 3, 3, 5, 7]


# --------------------------------------------------------------------------------------------
# Knockout.
# --------------------------------------------------------------------------------------------
def test_the_seeds_of_an_eight_bracket_are_placed_as_in_every_tennis_draw() -> None:
    assert seed_positions(8) == [1, 8, 4, 5, 2, 7, 3, 6]
    assert seed_positions(2) == [1, 2]


@given(st.integers(1, 6))
def test_seeds_one_and_two_can_only_meet_in_the_final_and_each_first_match_sums_to_size_plus_one(
    power: int,
) -> None:
    size = 2**power
    order = seed_positions(size)
    assert sorted(order) == list(range(1, size + 1))
    assert all(order[i] + order[i + 1] == size + 1 for i in range(0, size, 2))
    half = size // 2
    assert (1 in order[:half]) != (2 in order[:half])
    if size >= 4:  # the top four are in four different quarters
        quarters = [set(order[q : q + size // 4]) for q in range(0, size, size // 4)]
        assert all(len(q & {1, 2, 3, 4}) == 1 for q in quarters)


@given(st.integers(2, 64))
def test_the_byes_go_to_the_top_seeds_and_no_match_is_two_byes(n: int) -> None:
    seeded = list(range(101, 101 + n))  # the pairs' ids, best first
    matches = knockout_bracket(seeded)
    size = bracket_size(n)
    assert len(matches) == size // 2
    assert sorted(x for m in matches for x in m if x is not None) == seeded
    with_bye = sorted(a for a, b in matches if b is None)
    assert with_bye == seeded[: size - n]
    assert all(a is not None for a, _b in matches)


@given(st.integers(2, 64), st.integers(0, 10**6))
def test_a_bracket_played_out_has_one_winner_after_its_rounds(n: int, seed: int) -> None:
    rng = random.Random(seed)
    matches = knockout_bracket(list(range(n)))
    rounds = 1
    while True:
        winners = [a if b is None else rng.choice((a, b)) for a, b in matches]
        if len(winners) == 1:
            break
        matches = knockout_next(winners)
        rounds += 1
    assert rounds == knockout_rounds(n)
    assert winners[0] in range(n)


def test_a_match_nobody_won_leaves_a_walkover_in_the_next_round() -> None:
    assert knockout_next([5, None, None, None]) == [(5, None), (None, None)]
