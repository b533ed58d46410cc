"""The arena's measures of how the bots bet (issue #32): score bands of the órdagos, who wins
a lance with the cards as they are, the sensible heuristic player, the leak counters."""

from __future__ import annotations

import random

from games.engine import view
from tools.arena import BANDS, lance_winner, play_game, score_band, sensible_player

from .support import deal, play


def test_score_bands_take_the_first_that_applies():
    assert score_band((0, 0)) == BANDS[2] == "both under 20"
    assert score_band((19, 5)) == BANDS[2]
    assert score_band((31, 25)) == BANDS[0]
    assert score_band((35, 10)) == BANDS[0]
    assert score_band((2, 18)) == BANDS[1]
    assert score_band((22, 25)) == BANDS[3]


def test_lance_winner_reads_the_cards_as_they_are_ties_to_mano():
    g = deal({0: "12o 12c 7e 5b", 1: "12e 12b 7o 5c", 2: "1o 1c 4e 5o", 3: "6o 6c 4o 5e"}, mano=1)
    assert lance_winner(g, "grande") == 1  # seat 1 is mano and ties seat 0
    assert lance_winner(g, "chica") == 0  # seat 2: as, as, 4, 5
    assert lance_winner(g, "pares") == 1
    assert lance_winner(g, "juego") == 1  # 32 and 32: the mano's
    g = deal({0: "7o 7c 6e 5b", 1: "1o 1c 4e 5o", 2: "2o 2c 4o 5e", 3: "3o 3c 4c 5c"}, mano=0)
    assert lance_winner(g, "juego") == 0  # nobody has juego: punto, 25 beats the rest


def test_the_sensible_player_bets_its_cards_and_keeps_the_ordago_for_the_end():
    g = play(deal({0: "12o 12c 12e 12b"}, mano=0), "0 corto")
    v = view(g, 0, recall=True)
    a = sensible_player(v, random.Random(0))
    assert (a.act, a.to) == ("envido", 3)
    v["scores"] = [20, 35]
    assert sensible_player(v, random.Random(0)).act == "ordago"
    g = play(deal({0: "1o 2c 4e 5b"}, mano=0), "0 corto")
    assert sensible_player(view(g, 0, recall=True), random.Random(0)).act == "paso"


def test_a_game_counts_ordagos_by_band_and_the_answer_leaks():
    counters: dict = {}
    envites: dict = {}
    for i in range(6):
        r = play_game("sensato", "normal", i, "both", 1, envites=envites, counters=counters)
        assert r["a_won"] is not None
    for kind in ("sensato", "normal"):
        c = counters[kind]
        assert c["pares answers"] >= c.get("pares calls", 0) >= c.get("pares calls won", 0)
        assert c.get("juego answers", 0) >= c.get("juego refusals", 0)
        ordagos = sum(c.get("ordago " + b, 0) for b in BANDS)
        assert ordagos == envites[kind].get("ordago", 0)
