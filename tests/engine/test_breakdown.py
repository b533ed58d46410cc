"""The recuento explained (docs/rules.md §7): each lance's tantos as the parts a player adds up, the
hand that won it, and raises as the tantos they put over the bet («cinco más»)."""

from __future__ import annotations

import random

import pytest

from games.engine import MODES, apply, new_game, view
from tools.engine_bench import random_action

from .support import deal, pass_all, pass_lance, play

# 4 reyes: seat 0 duples (reyes and caballos, 40 points), seat 2 a par of sietes; seat 1 a par
# of seises; seat 3 nothing. Only seat 0 has juego.
HANDS = {0: "12o 12c 11o 11c", 1: "6o 6c 5c 4c", 2: "7o 7c 5o 4o", 3: "1c 4e 5e 6e"}


def rows(g):
    v = view(g, None)
    return {b["lance"]: (row, b) for row, b in zip(v["lances"], v["breakdown"], strict=True)}


def test_a_refused_pares_bet_is_the_deje_plus_each_pares_of_the_winning_pair():
    g = play(deal(HANDS), "0 corto")
    g = pass_lance(pass_lance(g))  # grande and chica en paso
    assert g.lance == "pares"
    g = play(g, "0 envido 2", "1 no_quiero")
    assert g.phase == "recuento"
    row, b = rows(g)["pares"]
    assert (row["how"], row["winner"], row["tantos"]) == ("no_querido", 0, 5)
    assert b["parts"] == [
        {"kind": "deje", "tantos": 1},
        {"kind": "duples", "tantos": 3, "seat": 0},
        {"kind": "par", "tantos": 1, "seat": 2},
    ]
    assert b["win"] is None  # nobody's cards were compared


def test_lances_en_paso_name_the_winning_hand_and_the_one_it_beat():
    g = pass_lance(pass_lance(play(deal(HANDS), "0 corto")))
    g = pass_lance(g)  # pares en paso: seat 0's duples beat seat 1's par
    by_lance = rows(g)
    row, b = by_lance["grande"]
    assert b["parts"] == [{"kind": "paso", "tantos": 1}] and row["tantos"] == 1
    assert b["win"] == {"seat": 0, "combo": None, "points": None}
    row, b = by_lance["pares"]
    assert b["win"] == {"seat": 0, "combo": "duples", "points": None}
    assert b["beat"] == {"seat": 1, "combo": "par", "points": None}
    assert b["parts"] == [
        {"kind": "duples", "tantos": 3, "seat": 0},
        {"kind": "par", "tantos": 1, "seat": 2},
    ]
    # Juego: only seat 0 has it, no betting: 40 is worth 2.
    row, b = by_lance["juego"]
    assert row["how"] == "sin_apuesta"
    assert b["win"] == {"seat": 0, "combo": "juego", "points": 40}
    assert b["beat"] is None
    assert b["parts"] == [{"kind": "juego", "tantos": 2, "seat": 0, "points": 40}]


def test_an_accepted_ordago_names_the_hands_that_decided_the_game():
    g = pass_lance(pass_lance(play(deal(HANDS), "0 corto")))
    g = play(g, "0 paso", "1 ordago", "0 quiero", "2 no_quiero")
    assert (g.phase, g.ended_by, g.winner) == ("terminada", "ordago", 0)
    row, b = rows(g)["pares"]
    assert row["how"] == "ordago"
    assert b["win"]["seat"] == 0 and b["win"]["combo"] == "duples"
    assert b["beat"] == {"seat": 1, "combo": "par", "points": None}
    assert b["parts"] == []


def test_there_is_no_breakdown_while_the_cards_are_hidden():
    g = play(deal(HANDS), "0 corto")
    assert view(g, 0)["breakdown"] is None
    g = play(g, "0 envido 2", "1 no_quiero", "3 no_quiero")  # a deje is known at once
    assert view(g, 0)["breakdown"] is None


def test_a_raise_says_how_many_tantos_it_puts_over_the_bet():
    g = play(deal(HANDS), "0 corto", "0 envido 2", "1 envido 5", "3 envido 7")
    g = play(g, "2 quiero", "0 envido 10", "1 quiero", "3 no_quiero")
    said = [e for e in view(g, None)["said"] if e.get("lance") == "grande"]
    assert [(e["seat"], e["act"], e.get("to"), e.get("more")) for e in said] == [
        (0, "envido", 2, None),  # an opening bet is no raise
        (1, "envido", 5, 3),
        (3, "envido", 7, 5),  # both raised over the same 2
        (2, "quiero", None, None),
        (0, "envido", 10, 3),  # over the 7 that won the round
        (1, "quiero", None, None),
        (3, "no_quiero", None, None),
    ]


def test_the_first_hand_mano_who_cuts_is_told_apart_from_the_deal():
    g = play(deal(HANDS), "0 mus", "1 corto")
    v = view(g, None)
    assert (v["mano"], v["deal_mano"]) == (1, 0)


@pytest.mark.parametrize("mode", MODES)
def test_in_random_games_the_parts_add_up_and_every_raise_is_over_the_standing_bet(mode):
    rng = random.Random(20)
    checked = raises = 0
    for first in range(40):
        g = new_game(mode, first % 4, rng)
        standing: dict[int, int] = {}  # index of a raise in the hand's actions -> bet it answered
        while g.phase != "terminada":
            if g.phase == "recuento":
                standing = {}
            action = random_action(g, rng)
            if action.act == "envido" and g.phase == "lance" and g._open_i < 0:
                standing[len(g._acts)] = g._bet_amt
            g = apply(g, action, rng)
            if g.phase in ("recuento", "terminada"):
                v = view(g, None)
                for i, e in enumerate(v["said"]):
                    assert e.get("more") == (e["to"] - standing[i] if i in standing else None)
                    raises += i in standing
                for row, b in zip(v["lances"], v["breakdown"], strict=True):
                    assert b["lance"] == row["lance"]
                    assert sum(p["tantos"] for p in b["parts"]) == row["tantos"]
                    checked += 1
    assert checked > 200 and raises > 20


def test_a_lance_won_by_being_closer_to_the_mano_says_it_was_a_tie():
    # Maite (0, mano) and Iñaki (1) hold the same grande and the same chica: Maite wins both.
    tied = {0: "12o 12c 7o 4o", 1: "12e 12b 7c 4c", 2: "11o 10o 6o 5o", 3: "11c 10c 6c 5e"}
    g = pass_lance(pass_lance(play(deal(tied), "0 corto")))
    g = pass_all(g)
    by_lance = rows(g)
    for lance in ("grande", "chica"):
        row, b = by_lance[lance]
        assert row["winner"] == 0 and b["win"]["seat"] == 0 and b["beat"]["seat"] == 1
        assert b["tie"] is True
    # Different hands: no tie.
    g = pass_all(pass_lance(pass_lance(play(deal(HANDS), "0 corto"))))
    assert rows(g)["grande"][1]["tie"] is False
