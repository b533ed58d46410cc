"""The quick-play matcher as a pure function (games.matchmaking): who sits down together, as which
pairs, and in what order; examples first, then properties over random queues (hypothesis)."""

from __future__ import annotations

import itertools
import math
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.matchmaking import (
    MAX_CANDIDATES,
    WINDOWS,
    Match,
    Waiting,
    best_teams,
    match,
    may_sit_together,
    window,
)

SETTINGS = settings(
    max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True
)
NOW = 100.0


def solo(key: int, rating: float, since: float = NOW) -> Waiting:
    return Waiting(key, (key,), (rating,), since)


def pair(key: int, a: float, b: float, since: float = NOW) -> Waiting:
    return Waiting(key, (key, key + 1000), (a, b), since)


# --------------------------------------------------------------------------------------------
# Examples.
# --------------------------------------------------------------------------------------------
def test_four_newcomers_with_the_same_rating_sit_down_at_once() -> None:
    found = match([solo(i, 1500) for i in range(4)], NOW)
    assert [m.entries for m in found] == [(0, 1, 2, 3)]


def test_three_players_wait_for_a_fourth() -> None:
    assert match([solo(i, 1500) for i in range(3)], NOW) == []


def test_nine_players_make_two_tables_and_the_last_to_arrive_waits() -> None:
    queue = [solo(i, 1500, since=NOW - 9 + i) for i in range(9)]
    found = match(queue, NOW)
    assert [m.entries for m in found] == [(0, 1, 2, 3), (4, 5, 6, 7)]


def test_the_pairs_are_formed_so_their_means_are_closest() -> None:
    # 1800 + 1200 against 1600 + 1400: both pairs 1500.
    found = match([solo(1, 1600), solo(2, 1800), solo(3, 1400), solo(4, 1200)], NOW + 40)
    assert len(found) == 1
    teams = {frozenset(t) for t in found[0].teams}
    assert teams == {frozenset({2, 4}), frozenset({1, 3})}


def test_a_pair_who_came_together_is_never_split() -> None:
    # The balanced split would be 2000+1000 against 1500+1500; the pair stays together anyway.
    found = match([pair(1, 2000, 1500), solo(2, 1000), solo(3, 1500)], NOW + 40)
    assert len(found) == 1
    assert (1, 1001) in found[0].teams


def test_two_pairs_play_each_other() -> None:
    found = match([pair(1, 1500, 1500), pair(2, 1520, 1480)], NOW)
    assert found[0].teams == ((1, 1001), (2, 1002))
    assert found[0].seats == (1, 2, 1001, 1002)


def test_a_player_far_from_the_others_waits_until_the_windows_widen() -> None:
    queue = [solo(1, 1500, 0), solo(2, 1510, 0), solo(3, 1490, 0), solo(4, 1850, 0)]
    assert match(queue, 5) == []  # ±100: 1850 is too far
    assert match(queue, 15) == []  # ±200
    assert match(queue, 25) != []  # ±400


def test_after_thirty_seconds_anyone_plays_anyone() -> None:
    queue = [solo(1, 800, 0), solo(2, 2400, 0), solo(3, 1500, 0), solo(4, 1900, 0)]
    assert match(queue, 29) == []
    assert [m.entries for m in match(queue, 30)] == [(1, 2, 3, 4)]


def test_someone_who_waited_long_plays_with_newcomers_far_from_them() -> None:
    # The longer wait widens the window for both: the newcomers need not wait 30 s themselves.
    queue = [solo(1, 1000, 0), solo(2, 1500, 20), solo(3, 1500, 20), solo(4, 1500, 20)]
    assert match(queue, 25) == []  # ±400 after 25 s: 500 points is too far still
    assert [m.entries for m in match(queue, 30)] == [(1, 2, 3, 4)]


def test_newcomers_far_from_each_other_still_wait_for_their_windows() -> None:
    queue = [solo(1, 1000, 0), solo(2, 1500, 99), solo(3, 1500, 99), solo(4, 1750, 99)]
    assert match(queue, 100) == []  # 1500 and 1750 are both new: ±100 between them
    assert match(queue, 119) != []  # ±400 after 20 s


def test_the_longest_waiting_entry_that_can_play_plays_first() -> None:
    # 5 compatible players: the four who came first sit down; the fifth waits.
    queue = [solo(i, 1500, since=float(10 - i)) for i in range(5)]  # 4 came first, 0 last
    assert match(queue, 20)[0].entries == (4, 3, 2, 1)


def test_an_entry_that_cannot_play_does_not_hold_up_the_others() -> None:
    queue = [solo(1, 3000, 0), *(solo(i, 1500, 1) for i in range(2, 6))]
    assert [m.entries for m in match(queue, 2)] == [(2, 3, 4, 5)]


def test_the_window_widens_with_the_wait() -> None:
    assert window(0) == 100
    assert window(9.9) == 100
    assert window(10) == 200
    assert window(20) == 400
    assert window(30) == math.inf
    widths = [window(t / 10) for t in range(0, 400)]
    assert widths == sorted(widths)


@pytest.mark.parametrize(
    "players,ratings",
    [((), ()), ((1, 2, 3), (1, 1, 1)), ((1,), (1, 2)), ((1, 1), (1500, 1500))],
)
def test_an_entry_is_one_player_or_a_pair_of_two_different_players(
    players: tuple[int, ...], ratings: tuple[float, ...]
) -> None:
    with pytest.raises(ValueError):
        Waiting(1, players, ratings, 0)


def test_players_who_blocked_each_other_never_sit_together() -> None:
    queue = [solo(i, 1500, since=NOW - 5 + i) for i in range(5)]
    found = match(queue, NOW, apart={frozenset({0, 2})})
    assert [m.entries for m in found] == [(0, 1, 3, 4)]
    assert match(queue[:4], NOW, apart={frozenset({1, 3})}) == []


def test_a_block_keeps_a_pair_apart_from_the_blocked_player() -> None:
    queue = [pair(1, 1500, 1500), solo(2, 1500), solo(3, 1500)]
    assert match(queue, NOW, apart={frozenset({1001, 3})}) == []
    assert not may_sit_together(queue[0], queue[2], NOW, apart={frozenset({1001, 3})})


def test_two_entries_with_one_key_are_refused() -> None:
    with pytest.raises(ValueError):
        match([solo(1, 1500), Waiting(1, (2,), (1500,), NOW)], NOW)


# --------------------------------------------------------------------------------------------
# Properties.
# --------------------------------------------------------------------------------------------
@st.composite
def queues(draw: st.DrawFn, max_entries: int = 10) -> list[Waiting]:
    n = draw(st.integers(0, max_entries))
    entries = []
    for key in range(n):
        since = draw(st.sampled_from([0.0, 5.0, 12.0, 18.0, 25.0, 45.0, 58.0, 60.0]))
        if draw(st.booleans()) and draw(st.booleans()):
            a = draw(st.integers(1000, 2000))
            b = draw(st.integers(1000, 2000))
            entries.append(Waiting(key, (2 * key, 2 * key + 1), (a, b), since))
        else:
            entries.append(Waiting(key, (2 * key,), (draw(st.integers(1000, 2000)),), since))
    return entries


def groups_of_four(entries: list[Waiting]) -> list[tuple[Waiting, ...]]:
    """Every set of entries that makes exactly four players."""
    out = []
    for size in (2, 3, 4):
        for combo in itertools.combinations(entries, size):
            if sum(len(e.players) for e in combo) == 4:
                out.append(combo)
    return out


def all_compatible(
    group: tuple[Waiting, ...] | list[Waiting],
    now: float,
    apart: frozenset[frozenset[int]] = frozenset(),
) -> bool:
    return all(
        may_sit_together(a, b, now, apart=apart) for a, b in itertools.combinations(group, 2)
    )


def gap(teams: tuple[tuple[int, int], tuple[int, int]], rating: dict[int, float]) -> float:
    return abs(sum(rating[p] for p in teams[0]) - sum(rating[p] for p in teams[1])) / 2


@SETTINGS
@given(queues())
def test_every_table_is_four_different_players_from_the_queue(entries: list[Waiting]) -> None:
    found = match(entries, 60.0)
    by_key = {e.key: e for e in entries}
    seen: set[int] = set()
    for m in found:
        players = [p for team in m.teams for p in team]
        assert len(players) == 4 == len(set(players))
        assert sorted(players) == sorted(p for k in m.entries for p in by_key[k].players)
        assert not seen & set(m.entries)
        seen |= set(m.entries)


@SETTINGS
@given(queues())
def test_pairs_who_came_together_are_partners(entries: list[Waiting]) -> None:
    by_key = {e.key: e for e in entries}
    for m in match(entries, 60.0):
        teams = {frozenset(t) for t in m.teams}
        for key in m.entries:
            if len(by_key[key].players) == 2:
                assert frozenset(by_key[key].players) in teams


@SETTINGS
@given(queues())
def test_everybody_at_a_table_is_within_everybody_elses_window(entries: list[Waiting]) -> None:
    by_key = {e.key: e for e in entries}
    for m in match(entries, 60.0):
        assert all_compatible([by_key[k] for k in m.entries], 60.0)


@SETTINGS
@given(queues())
def test_the_pairs_means_are_as_close_as_the_pairs_allow(entries: list[Waiting]) -> None:
    by_key = {e.key: e for e in entries}
    for m in match(entries, 60.0):
        group = [by_key[k] for k in m.entries]
        rating = {p: r for e in group for p, r in zip(e.players, e.ratings, strict=True)}
        fixed = [set(e.players) for e in group if len(e.players) == 2]
        players = list(rating)
        best = math.inf
        for team in itertools.combinations(players, 2):
            other = tuple(p for p in players if p not in team)
            if any(not (s <= set(team) or s <= set(other)) for s in fixed):
                continue
            best = min(best, gap((team, other), rating))  # type: ignore[arg-type]
        assert gap(m.teams, rating) == best


@SETTINGS
@given(queues())
def test_nobody_left_waiting_could_have_sat_down_together(entries: list[Waiting]) -> None:
    seated = {k for m in match(entries, 60.0) for k in m.entries}
    left = [e for e in entries if e.key not in seated]
    assert not any(all_compatible(g, 60.0) for g in groups_of_four(left))


@SETTINGS
@given(queues())
def test_the_longest_waiting_entry_that_can_play_is_seated(entries: list[Waiting]) -> None:
    seated = {k for m in match(entries, 60.0) for k in m.entries}
    playable = [
        e
        for e in sorted(entries, key=lambda e: (e.since, e.key))
        if any(e in g and all_compatible(g, 60.0) for g in groups_of_four(entries))
    ]
    if playable:
        assert playable[0].key in seated


@SETTINGS
@given(queues(), st.randoms(use_true_random=False))
def test_the_order_the_queue_is_read_in_changes_nothing(
    entries: list[Waiting], rng: random.Random
) -> None:
    shuffled = list(entries)
    rng.shuffle(shuffled)
    assert match(shuffled, 60.0) == match(entries, 60.0)


@SETTINGS
@given(st.lists(st.integers(0, 4000), min_size=4, max_size=4))
def test_four_players_who_waited_thirty_seconds_always_play(ratings: list[int]) -> None:
    queue = [solo(i, r, since=0) for i, r in enumerate(ratings)]
    assert len(match(queue, WINDOWS[-1][0])) == 1


@SETTINGS
@given(st.lists(st.integers(1450, 1550), min_size=4, max_size=4))
def test_four_newcomers_within_a_hundred_points_play_at_once(ratings: list[int]) -> None:
    queue = [solo(i, r, since=NOW) for i, r in enumerate(ratings)]
    assert len(match(queue, NOW)) == 1


@SETTINGS
@given(queues(), st.data())
def test_with_blocks_nobody_sits_with_a_blocked_player_and_nobody_who_could_play_waits(
    entries: list[Waiting], data: st.DataObject
) -> None:
    # (a pair who came together never blocked each other: invitations are refused across blocks)
    pairs = [
        frozenset((p, q))
        for a, b in itertools.combinations(entries, 2)
        for p in a.players
        for q in b.players
    ]
    drawn = data.draw(st.lists(st.sampled_from(pairs), max_size=6)) if pairs else []
    apart = frozenset(drawn)
    found = match(entries, 60.0, apart=apart)
    by_key = {e.key: e for e in entries}
    for m in found:
        seated = [p for team in m.teams for p in team]
        assert not any(frozenset(c) in apart for c in itertools.combinations(seated, 2))
    seated_keys = {k for m in found for k in m.entries}
    left = [e for e in entries if e.key not in seated_keys]
    assert not any(all_compatible(g, 60.0, apart) for g in groups_of_four(left))
    assert all(all_compatible([by_key[k] for k in m.entries], 60.0, apart) for m in found)


def test_a_long_queue_of_players_who_cannot_play_is_searched_quickly() -> None:
    # Ratings 150 apart: nobody fits anybody's ±100 window; the search gives up fast.
    queue = [solo(i, 1000 + 150 * i, since=NOW) for i in range(4 * MAX_CANDIDATES)]
    assert match(queue, NOW) == []


def test_best_teams_refuses_a_group_that_is_not_four_players() -> None:
    with pytest.raises(ValueError):
        best_teams([solo(1, 1500), solo(2, 1500)])


def test_a_match_seats_partners_opposite_each_other() -> None:
    m = Match((1, 2), ((10, 11), (20, 21)))
    assert m.seats == (10, 20, 11, 21)
