"""Property tests over random legal play in both modes (hypothesis chooses the seeds)."""

from __future__ import annotations

import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.engine import (
    MODES,
    Action,
    IllegalAction,
    apply,
    export_record,
    legal_actions,
    new_game,
    replay,
    view,
)
from games.engine.cards import CODES
from tools.engine_bench import random_action

from .support import strings_in

ALL_CODES = frozenset(CODES)
HIDDEN_PHASES = ("mus", "descarte", "lance")
ACTS = ("mus", "corto", "descarte", "paso", "envido", "ordago", "quiero", "no_quiero", "repartir")
SETTINGS = settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True
)


def all_cards(g) -> list[int]:
    """Hands + what is left of the pile + discards not yet reshuffled (engine internals)."""
    cards = [c for h in g._hands for c in h]
    cards += list(g._pile[g._pile_pos :])
    cards += list(g._old_disc)
    return sorted(cards)


def is_legal(g, a: Action) -> bool:
    """Whether ``a`` is allowed according to legal_actions (the protocol's promise)."""
    for d in legal_actions(g, a.seat):
        if d["act"] != a.act:
            continue
        if a.act == "envido":
            return a.to is not None and d["min"] <= a.to <= d["max"]
        if a.act == "descarte":
            held = g.hand_codes(a.seat)
            c = a.cards or ()
            return 1 <= len(c) <= 4 and len(set(c)) == len(c) and set(c) <= set(held)
        return a.to is None and a.cards is None
    return False


def random_other_action(g, rng: random.Random) -> Action:
    seat = rng.randrange(4)
    act = rng.choice(ACTS)
    if act == "envido":
        return Action(seat, act, to=rng.randint(-1, 45))
    if act == "descarte":
        pool = g.hand_codes(seat) + rng.sample(CODES, 3)
        return Action(seat, act, cards=tuple(rng.choices(pool, k=rng.randint(0, 5))))
    return Action(seat, act)


def snapshot(g) -> tuple:
    return (export_record(g), [view(g, s) for s in (None, 0, 1, 2, 3)])


def check_views_hide_other_cards(g) -> None:
    if g.phase not in HIDDEN_PHASES:
        return
    spectator = strings_in(view(g, None)) & ALL_CODES
    assert not spectator, spectator
    for seat in range(4):
        shown = strings_in(view(g, seat)) & ALL_CODES
        assert shown <= set(g.hand_codes(seat)), (seat, shown - set(g.hand_codes(seat)))


def play_checked(mode: str, seed: int, probe_every: int = 3) -> None:
    rng = random.Random(seed)
    g = new_game(mode, rng.randrange(4), rng)
    last_scores = g.scores
    steps = 0
    while g.phase not in ("terminada", "cancelada"):
        assert all_cards(g) == list(range(40))
        assert all(len(h) == 4 for h in g._hands)
        check_views_hide_other_cards(g)
        if steps % probe_every == 0:
            other = random_other_action(g, rng)
            if is_legal(g, other):
                apply(g, other, random.Random(0))  # must be accepted
            else:
                before = snapshot(g)
                try:
                    apply(g, other, random.Random(0))
                except IllegalAction:
                    pass
                else:
                    raise AssertionError(f"accepted an action legal_actions does not list: {other}")
                assert snapshot(g) == before
        a = random_action(g, rng)
        assert is_legal(g, a)
        g = apply(g, a, rng)
        assert g.scores[0] >= last_scores[0] and g.scores[1] >= last_scores[1]
        last_scores = g.scores
        steps += 1
        if steps % 25 == 0:
            assert_replays_to_same_game(g)
    assert g.winner in (0, 1) and g.ended_by in ("puntos", "ordago")
    if g.ended_by == "puntos":
        assert max(g.scores) >= 40 and g.scores[g.winner] >= 40
    assert_replays_to_same_game(g)


def assert_replays_to_same_game(g) -> None:
    again = replay(export_record(g))
    for seat in (None, 0, 1, 2, 3):
        assert view(again, seat) == view(g, seat)
    assert export_record(again) == export_record(g)


@SETTINGS
@given(seed=st.integers(0, 2**32 - 1))
def test_random_play_in_four_reyes_keeps_every_invariant(seed):
    play_checked("4-reyes", seed)


@SETTINGS
@given(seed=st.integers(0, 2**32 - 1))
def test_random_play_in_eight_reyes_keeps_every_invariant(seed):
    play_checked("8-reyes", seed)


@settings(max_examples=25, deadline=None, derandomize=True)
@given(
    mode=st.sampled_from(MODES),
    seed=st.integers(0, 2**32 - 1),
    cut=st.floats(0, 1),
)
def test_replay_upto_gives_the_game_as_it_was_then(mode, seed, cut):
    rng = random.Random(seed)
    g = new_game(mode, rng.randrange(4), rng)
    history = [g]
    while g.phase != "terminada":
        g = apply(g, random_action(g, rng), rng)
        history.append(g)
    rec = export_record(g)
    # history counts "repartir" steps, which are not record actions: map by record length
    k = int(cut * (len(history) - 1))
    target = history[k]
    n = sum(len(h["actions"]) for h in export_record(target)["hands"])
    again = replay(rec, upto=n)
    if again.hand_no == target.hand_no:
        assert view(again, None) == view(target, None)


def test_many_random_games_end_and_replay_identically():
    rng = random.Random(2024)
    for i in range(60):
        mode = MODES[i % 2]
        g = new_game(mode, rng.randrange(4), rng)
        while g.phase != "terminada":
            g = apply(g, random_action(g, rng), rng)
        assert export_record(replay(export_record(g))) == export_record(g)
