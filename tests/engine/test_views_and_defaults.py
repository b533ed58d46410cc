"""What each seat sees (docs/protocol.md), the turn-clock defaults (docs/rules.md §8.2), cancel
and apply."""

from __future__ import annotations

import copy
import json
import random
from typing import Any

import pytest

from games.engine import (
    LANCES,
    MODES,
    Action,
    apply,
    cancel,
    default_action,
    export_record,
    legal_actions,
    new_game,
    replay,
    seat_view,
    step_key,
    view,
)
from games.engine.cards import CODES
from games.engine.view import HISTORY_KEYS
from tools.arena import random_player

from .support import deal, lances, pass_all, pass_lance, play, strings_in

BASE = {0: "12o 12c 7o 1o", 1: "11o 11c 6o 4e", 2: "5o 4o 6c 1c", 3: "10o 7c 6e 5e"}
ALL_CODES = frozenset(CODES)


def test_modes_and_lances_are_the_contract_constants():
    assert LANCES == ("grande", "chica", "pares", "juego", "punto")
    assert MODES == ("4-reyes", "8-reyes")


def test_new_game_deals_four_cards_to_everybody_with_the_injected_rng():
    a = new_game("8-reyes", 2, random.Random(5))
    b = new_game("8-reyes", 2, random.Random(5))
    assert export_record(a) == export_record(b)
    assert (a.phase, a.mano, a.hand_no, a.scores, a.winner, a.ended_by) == (
        "mus",
        2,
        1,
        (0, 0),
        None,
        None,
    )
    assert a.lance is None and a.to_act() == [2]
    cards = [c for s in range(4) for c in a.hand_codes(s)]
    assert len(cards) == len(set(cards)) == 16
    assert new_game("4-reyes", 0).hand_codes(0)  # the system's generator by default
    with pytest.raises(ValueError):
        new_game("3-reyes", 0)


def test_a_view_is_json_and_shows_only_the_seats_own_cards():
    g = play(deal(BASE), "0 mus", "1 mus", "2 mus", "3 mus", "1 descarte 4e")
    for seat in range(4):
        v = view(g, seat)
        json.dumps(v)
        assert v["you"]["cards"] == g.hand_codes(seat)
        assert strings_in(v) & ALL_CODES == set(g.hand_codes(seat))
    spectator = view(g, None)
    assert spectator["you"] is None
    assert not strings_in(spectator) & ALL_CODES
    assert spectator["hands"] is None


def test_a_view_has_the_fields_the_table_needs():
    g = play(deal(BASE), "0 corto", "0 envido 2")
    v = view(g, 1)
    for key in (
        "phase", "mode", "mano", "hand_no", "scores", "winner", "ended_by", "lance", "to_act",
        "you", "changed", "discarded", "answers", "bet", "said", "lances", "hands",
    ):  # fmt: skip
        assert key in v
    assert v["you"]["legal"] == legal_actions(g, 1)
    assert v["lance"] == "grande" and v["to_act"] == [1, 3]
    assert v["said"] == [
        {"seat": 0, "act": "corto"},
        {"seat": 0, "act": "envido", "to": 2, "lance": "grande"},
    ]
    assert v["bet"] == {
        "lance": "grande",
        "amount": 2,
        "ordago": False,
        "by_team": 0,
        "by_seat": 0,
        "answering_team": 1,
        "votes": [],
    }


def test_votes_in_progress_are_secret_even_from_the_partner():
    g = play(deal(BASE), "0 corto", "0 envido 2", "1 envido 5")
    v = view(g, 3)
    assert v["bet"]["votes"] == [1]
    assert all(e["seat"] != 1 or e["act"] != "envido" for e in v["said"])
    g = play(g, "3 quiero")  # the round resolves: now everybody sees both votes
    said = view(g, 2)["said"]
    assert {"seat": 1, "act": "envido", "to": 5, "lance": "grande", "more": 3} in said
    assert {"seat": 3, "act": "quiero", "lance": "grande", "overruled": True} in said


def overruled(g: Any) -> list[tuple[int, str]]:
    return [(e["seat"], e["act"]) for e in view(g, 0)["said"] if e.get("overruled")]


def test_a_vote_its_partner_overrode_is_marked_once_the_answer_is_complete():
    # Iñaki (1) raises, Jon (3) refuses: the raise is the pair's answer, the refusal does not count.
    g = play(deal(BASE), "0 corto", "0 envido 2", "3 no_quiero", "1 envido 5")
    assert overruled(g) == [(3, "no_quiero")]
    # Maite (0) accepts, Ane (2) refuses: one «Quiero» is enough.
    g = play(g, "2 no_quiero", "0 quiero")
    assert overruled(g) == [(3, "no_quiero"), (2, "no_quiero")]
    # Both refuse: both count.
    g = play(deal(BASE), "0 corto", "0 envido 2", "1 no_quiero", "3 no_quiero")
    assert overruled(g) == []
    # Two raises: the bigger one wins; equal ones go to the earlier speaker (Iñaki before Jon).
    g = play(deal(BASE), "0 corto", "0 envido 2", "1 envido 4", "3 envido 6")
    assert overruled(g) == [(1, "envido")]
    g = play(deal(BASE), "0 corto", "0 envido 2", "3 envido 4", "1 envido 4")
    assert overruled(g) == [(3, "envido")]
    # An answer in progress is secret, and so is whether it will count.
    g = play(deal(BASE), "0 corto", "0 envido 2", "1 no_quiero")
    assert overruled(g) == [] and all(e["seat"] != 1 for e in view(g, 3)["said"][2:])


def test_lance_winners_decided_by_the_cards_are_hidden_until_the_recuento():
    g = play(deal(BASE), "0 corto", "0 envido 2", "1 quiero", "3 quiero")
    g = pass_lance(g)  # chica en paso
    rows = view(g, 0)["lances"]
    assert [(r["lance"], r["how"], r["winner"]) for r in rows] == [
        ("grande", "querido", None),
        ("chica", "paso", None),
    ]
    g = pass_all(g)
    rows = view(g, 0)["lances"]
    assert [(r["lance"], r["winner"]) for r in rows][:2] == [("grande", 0), ("chica", 0)]


def test_a_refused_bet_is_shown_at_once():
    g = play(deal(BASE), "0 corto", "0 envido 2", "1 no_quiero", "3 no_quiero")
    (row,) = view(g, 1)["lances"]
    assert (row["how"], row["winner"], row["tantos"]) == ("no_querido", 0, 1)


@pytest.mark.parametrize("phase", ["recuento", "terminada", "cancelada"])
def test_all_hands_are_shown_from_the_recuento_on(phase):
    g = play(deal(BASE), "0 corto")
    if phase == "recuento":
        g = pass_all(g)
    elif phase == "terminada":
        g = play(g, "0 ordago", "1 quiero", "3 quiero")
    else:
        g = cancel(g)
    assert g.phase == phase
    assert view(g, 2)["hands"] == [g.hand_codes(s) for s in range(4)]


def test_to_act_lists_every_seat_that_may_act():
    g = play(deal(BASE), "0 mus", "1 mus", "2 mus", "3 mus")
    assert g.to_act() == [0, 1, 2, 3]
    g = pass_all(play(deal(BASE), "0 corto"))
    assert g.to_act() == [0, 1, 2, 3]  # anybody may deal; the platform lets only the host
    assert all(legal_actions(g, s) == [{"act": "repartir"}] for s in range(4))


def test_apply_never_changes_the_game_it_is_given():
    g = play(deal(BASE), "0 mus", "1 mus", "2 mus", "3 mus")
    before = (export_record(g), [view(g, s) for s in (None, 0, 1, 2, 3)], g.to_act())
    g2 = apply(g, Action(0, "descarte", cards=("12o",)))
    g3 = play(g2, "1 descarte 11o", "2 descarte 5o", "3 descarte 10o")
    assert (export_record(g), [view(g, s) for s in (None, 0, 1, 2, 3)], g.to_act()) == before
    assert g3.phase == "mus" and g2.phase == "descarte"


def test_cancel_keeps_the_record_and_has_no_winner():
    g = play(deal(BASE), "0 corto", "0 envido 2")
    c = cancel(g)
    assert (c.phase, c.winner, c.ended_by, c.to_act()) == ("cancelada", None, None, [])
    assert export_record(c) == export_record(g)
    assert g.phase == "lance"
    assert legal_actions(c, 1) == [] and default_action(c, 1) is None
    r = replay(export_record(c))
    assert (r.winner, r.ended_by) == (None, None)


# §8.2 defaults -------------------------------------------------------------------------------


def test_the_default_in_the_mus_is_corto():
    g = deal(BASE)
    assert default_action(g, 0) == Action(0, "corto")
    assert default_action(g, 1) is None


@pytest.mark.parametrize(
    ("mode", "hand", "lowest"),
    [
        ("4-reyes", "12o 3o 2o 7o", "2o"),
        ("8-reyes", "12o 3o 2o 7o", "2o"),  # the 2 plays as an as
        ("8-reyes", "12o 3o 4o 7o", "4o"),  # the 3 plays as a rey
        ("4-reyes", "12o 3o 4o 7o", "3o"),
    ],
)
def test_the_default_in_a_discard_round_is_the_lowest_card_for_grande(mode, hand, lowest):
    g = play(deal({0: hand}, mode=mode), "0 mus", "1 mus", "2 mus", "3 mus")
    assert default_action(g, 0) == Action(0, "descarte", cards=(lowest,))
    g = apply(g, default_action(g, 0))
    assert default_action(g, 0) is None


def test_the_default_when_opening_is_paso_and_when_answering_no_quiero():
    g = play(deal(BASE), "0 corto")
    assert default_action(g, 0) == Action(0, "paso")
    g = play(g, "0 envido 2")
    assert default_action(g, 1) == Action(1, "no_quiero")
    assert default_action(g, 2) is None


def test_the_default_at_the_recuento_is_the_next_deal():
    g = pass_all(play(deal(BASE), "0 corto"))
    assert default_action(g, 3) == Action(3, "repartir")
    assert apply(g, default_action(g, 3)).hand_no == 2


def test_defaults_alone_finish_a_game():
    g = new_game("4-reyes", 1, random.Random(3))
    for _ in range(10_000):
        if g.phase == "terminada":
            break
        seat = g.to_act()[0]
        g = apply(g, default_action(g, seat), random.Random(1))
    assert g.phase == "terminada" and g.ended_by == "puntos"
    assert lances(g)


# -- history: the public summary of the earlier hands ---------------------------------------------


def test_history_counts_what_was_said_in_earlier_hands():
    g = play(deal(BASE), "0 corto", "0 ordago", "1 no_quiero", "3 no_quiero")  # grande
    g = play(g, "0 paso", "1 envido 2", "0 envido 10", "2 quiero", "1 quiero", "3 no_quiero")
    assert view(g, 0)["history"] == {
        "hands": 0,
        "seats": [dict.fromkeys(HISTORY_KEYS, 0) for _ in range(4)],
    }  # this hand is not history yet: it is in "said"
    g = pass_all(g)
    assert g.phase == "recuento"
    chica = lances(g)["chica"]["winner"]
    g = play(g, "0 repartir")
    h = view(g, 3)["history"]
    assert h["hands"] == 1
    zero = dict.fromkeys(HISTORY_KEYS, 0)
    won = {"shown_won": 1} if chica == 0 else {"shown_lost": 1}
    lost = {"shown_lost": 1} if chica == 0 else {"shown_won": 1}
    assert h["seats"] == [
        # órdago in grande, paso in chica, a raise from 2 to 10 (big), paso in pares and punto
        {**zero, "opens": 4, "pasos": 3, "raises": 1, "big": 1, "ordagos": 1, **won},
        # no quiero to the órdago, envido 2 in chica, quiero to 10, paso in pares and punto
        {**zero, "opens": 3, "pasos": 2, "bets": 1, "quiero": 1, "no_quiero": 1, **lost},
        {**zero, "opens": 1, "pasos": 1, "quiero": 1},  # punto only (no pares: does not speak)
        {**zero, "opens": 1, "pasos": 1, "no_quiero": 2},
    ]
    assert all(view(g, s)["history"] == h for s in (0, 1, 2, None))


def test_recall_shows_each_earlier_hand_as_the_table_saw_it_at_its_recuento():
    g = play(deal(BASE), "0 corto", "0 envido 2", "1 quiero", "3 no_quiero")  # grande
    g = pass_all(g)
    assert g.phase == "recuento"
    at_recuento = view(g, 1)
    assert "past" not in at_recuento and view(g, 1, recall=True)["past"] == []
    g = play(g, "0 repartir")
    assert g.hand_no == 2 and g.phase == "mus"
    assert "past" not in view(g, 3)  # the state messages never carry it
    for seat in (0, 1, 2, 3, None):
        past = view(g, seat, recall=True)["past"]
        assert past == [
            {
                "mano": 0,
                "scores": [0, 0],
                "said": at_recuento["said"],
                "hands": at_recuento["hands"],
            }
        ]
    # Nothing of the hand being played: no card of it but the seat's own.
    seen = strings_in(view(g, 3, recall=True)) & ALL_CODES
    assert seen == set(view(g, 3)["you"]["cards"]) | strings_in(at_recuento["hands"])
    json.dumps(view(g, 3, recall=True))


def _past_hands_reshuffled(record: dict, rng: random.Random) -> dict | None:
    """The record with, in every earlier hand without a reshuffle, the cards nobody saw (the
    discards and the cards never drawn) permuted among themselves, in the deck and in the
    discard actions alike: the same game for everybody at the table. None if nothing moves."""
    rec = copy.deepcopy(record)
    moved = False
    for hand in rec["hands"][:-1]:
        if "reshuffles" in hand:
            continue
        discards = [c for a in hand["actions"] if a["act"] == "descarte" for c in a["cards"]]
        drawn = 16 + len(discards)
        hidden = discards + hand["deck"][drawn:]
        perm = hidden[:]
        rng.shuffle(perm)
        to = dict(zip(hidden, perm, strict=True))
        moved |= perm != hidden
        hand["deck"] = [to.get(c, c) for c in hand["deck"]]
        for a in hand["actions"]:
            if a["act"] == "descarte":
                a["cards"] = [to[c] for c in a["cards"]]
    return rec if moved else None


def test_history_is_the_same_whatever_the_cards_nobody_saw():
    """Permuting the discards and the undrawn cards of earlier hands (the hands shown at the
    recuento stay the same) changes no view's history nor its recall of the earlier hands:
    only public information is in them."""
    compared = 0
    for seed in range(30):
        rng = random.Random(seed)
        g = new_game(MODES[seed % 2], seed % 4, rng)
        while g.phase not in ("terminada", "cancelada") and g.hand_no < 6:
            seat = rng.choice(g.to_act())
            g = apply(g, random_player(view(g, seat), rng), rng)
        if g.hand_no < 2:
            continue
        alt_record = _past_hands_reshuffled(export_record(g), rng)
        if alt_record is None:
            continue
        alt = replay(alt_record)
        assert any(a[0] != b[0] for a, b in zip(alt._past, g._past, strict=True))
        for seat in (0, 1, 2, 3, None):
            assert view(alt, seat)["history"] == view(g, seat)["history"]
            assert view(alt, seat, recall=True)["past"] == view(g, seat, recall=True)["past"]
        h = view(g, 0)["history"]
        assert h["hands"] == g.hand_no - 1 and not strings_in(h) & ALL_CODES
        json.dumps(h)
        compared += 1
    assert compared >= 15


def test_the_seat_part_and_the_step_key_agree_with_the_full_view_all_game_long():
    # The server builds one spectator view per move and adds each seat's `seat_view`, and it
    # tells steps apart with `step_key`: both must say exactly what `view` says, in every phase.
    rng = random.Random(7)
    for mode in MODES:
        g = new_game(mode, rng.randrange(4), rng)
        while g.phase != "terminada":
            spectator = view(g, None)
            for seat in range(4):
                full = view(g, seat)
                assert full["you"] == seat_view(g, seat)
                assert {**full, "you": None} == spectator
            bet = spectator["bet"] or {}
            assert step_key(g) == (
                spectator["hand_no"],
                spectator["phase"],
                spectator["lance"],
                bet.get("amount"),
                bet.get("ordago"),
                bet.get("answering_team"),
            )
            g = apply(g, random_player(view(g, g.to_act()[0]), rng))
