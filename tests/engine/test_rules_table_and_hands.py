"""docs/rules.md §1 (table), §3 (hands and the mano) and §4 (mus and discards)."""

from __future__ import annotations

import random

import pytest

from games.engine import MODES, Action, apply, export_record, legal_actions, replay, view
from games.engine.cards import CODES

from .support import deal, lances, pass_all, play, record, stacked_deck, strings_in

# No 2s or 3s: these hands play the same in both modes. All passing, team 0 wins grande
# (seat 0), chica (seat 2) and pares (seat 0's par of reyes); team 1 wins punto (seat 1, 30).
BASE = {0: "12o 12c 7o 1o", 1: "11o 11c 6o 4e", 2: "5o 4o 6c 1c", 3: "10o 7c 6e 5e"}


# §1 ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
def test_partners_sit_opposite_so_a_bet_is_answered_by_seats_of_the_other_parity(mode):
    g = play(deal(BASE, mode=mode), "0 corto", "0 envido 2")
    assert g.to_act() == [1, 3]
    bet = view(g, 1)["bet"]
    assert (bet["by_team"], bet["answering_team"]) == (0, 1)
    g = play(g, "3 envido 4", "1 no_quiero")
    assert g.to_act() == [0, 2]


def test_speaking_order_runs_from_the_mano_to_the_next_seats():
    g = deal(BASE, mano=2)
    seen = []
    for _ in range(4):
        (seat,) = g.to_act()
        seen.append(seat)
        g = play(g, f"{seat} mus")
    assert seen == [2, 3, 0, 1]
    g = play(deal(BASE, mano=2), "2 corto")
    seen = []
    while g.lance == "grande":
        (seat,) = g.to_act()
        seen.append(seat)
        g = play(g, f"{seat} paso")
    assert seen == [2, 3, 0, 1]


@pytest.mark.parametrize(("mano", "team"), [(0, 0), (3, 1), (1, 1), (2, 1)])
def test_a_tie_in_a_lance_goes_to_the_player_who_speaks_earlier(mano, team):
    # Seats 0 (team 0) and 3 (team 1) hold equal best hands for grande.
    hands = {0: "12o 11o 5o 4o", 3: "12c 11c 5c 4c", 1: "7o 6o 5e 4e", 2: "7c 6e 5b 4b"}
    g = pass_all(play(deal(hands, mano=mano), f"{mano} corto"))
    assert lances(g)["grande"]["winner"] == team


# §2.1-2.2 in records -------------------------------------------------------------------------


def test_card_codes_are_rank_number_and_suit_letter():
    g = deal(BASE)
    assert g.hand_codes(0) == ["12o", "12c", "7o", "1o"]
    assert set(export_record(g)["hands"][0]["deck"]) == set(CODES)


# §3 ------------------------------------------------------------------------------------------


def test_a_game_is_played_to_forty():
    assert deal(BASE).target == 40


def test_the_deal_gives_one_card_at_a_time_starting_with_the_mano():
    deck = list(CODES)
    g = replay(record("4-reyes", 1, {"deck": deck, "actions": []}))
    assert g.hand_codes(1) == [deck[0], deck[4], deck[8], deck[12]]
    assert g.hand_codes(2) == [deck[1], deck[5], deck[9], deck[13]]
    assert g.hand_codes(0) == [deck[3], deck[7], deck[11], deck[15]]
    # the other 24 cards are the pile, drawn from the front (deck[16] first, to the mano)
    g = play(
        g, "1 mus", "2 mus", "3 mus", "0 mus", "2 descarte " + deck[1], f"1 descarte {deck[0]}"
    )
    g = play(g, f"3 descarte {deck[2]}", f"0 descarte {deck[3]}")
    assert g.hand_codes(1)[0] == deck[16]
    assert g.hand_codes(2)[0] == deck[17]
    assert g.hand_codes(0)[0] == deck[19]


@pytest.mark.parametrize("mode", MODES)
def test_in_the_first_hand_who_says_corto_becomes_mano(mode):
    # Seats 0 and 1 tie for grande: the new mano (seat 1) speaks first and wins the tie.
    hands = {0: "12o 11o 5o 4o", 1: "12c 11c 5c 4c", 2: "7o 6o 5e 4e", 3: "7c 6e 5b 4b"}
    g = play(deal(hands, mano=0, mode=mode), "0 mus", "1 corto")
    assert g.mano == 1
    assert g.first_mano == 0
    assert g.to_act() == [1]
    g = pass_all(g)
    assert lances(g)["grande"]["winner"] == 1


def test_each_later_hand_the_mano_is_the_seat_after_the_previous_effective_mano():
    g = pass_all(play(deal(BASE, mano=0), "0 mus", "1 corto"))
    assert g.phase == "recuento"
    g = apply(g, Action(0, "repartir"), random.Random(1))
    assert (g.hand_no, g.mano) == (2, 2)
    g = play(g, "2 mus", "3 corto")  # only in the first hand does a corto move the mano
    assert g.mano == 2
    assert g.to_act() == [2]
    g = pass_all(g)
    g = apply(g, Action(3, "repartir"), random.Random(2))
    assert (g.hand_no, g.mano) == (3, 3)


def test_after_the_recuento_any_seat_may_deal_and_the_deal_is_not_an_action_of_the_record():
    g = pass_all(play(deal(BASE), "0 corto"))
    assert g.phase == "recuento"
    for s in range(4):
        assert legal_actions(g, s) == [{"act": "repartir"}]
    g2 = apply(g, Action(3, "repartir"), random.Random(7))
    assert g2.phase == "mus" and g2.hand_no == 2
    rec = export_record(g2)
    assert len(rec["hands"]) == 2
    assert all(a["act"] != "repartir" for h in rec["hands"] for a in h["actions"])
    assert sorted(rec["hands"][1]["deck"]) == sorted(CODES)


# §4 ------------------------------------------------------------------------------------------


def test_mus_is_asked_in_order_and_the_first_corto_ends_it():
    g = play(deal(BASE), "0 mus", "1 mus")
    assert g.phase == "mus" and g.to_act() == [2]
    g = play(g, "2 corto")
    assert (g.phase, g.lance) == ("lance", "grande")


@pytest.mark.parametrize("mode", MODES)
def test_when_all_four_say_mus_they_discard_at_the_same_time_in_any_order(mode):
    g = play(deal(BASE, mode=mode), "0 mus", "1 mus", "2 mus", "3 mus")
    assert g.phase == "descarte"
    assert g.to_act() == [0, 1, 2, 3]
    g = play(g, "2 descarte 5o")
    assert g.to_act() == [0, 1, 3]
    g = play(g, "0 descarte 7o 1o", "3 descarte 10o")
    assert g.to_act() == [1]
    assert g.hand_codes(0) == ["12o", "12c", "7o", "1o"]  # refilled only when all chose


def test_the_refill_comes_from_the_front_of_the_pile_in_speaking_order_from_the_mano():
    g = deal(BASE, mano=0, pile="12b 11b 10b 7b 6b")
    g = play(g, "0 mus", "1 mus", "2 mus", "3 mus")
    g = play(g, "2 descarte 5o", "0 descarte 7o 1o", "3 descarte 10o", "1 descarte 4e")
    assert g.hand_codes(0) == ["12o", "12c", "12b", "11b"]
    assert g.hand_codes(1) == ["11o", "11c", "6o", "10b"]
    assert g.hand_codes(2) == ["7b", "4o", "6c", "1c"]
    assert g.hand_codes(3) == ["6b", "7c", "6e", "5e"]


def test_after_the_refill_the_mus_is_asked_again_from_the_mano():
    g = play(deal(BASE, mano=3), "3 mus", "0 mus", "1 mus", "2 mus")
    g = play(g, "0 descarte 1o", "1 descarte 4e", "2 descarte 1c", "3 descarte 5e")
    assert g.phase == "mus"
    assert g.to_act() == [3]


def test_everybody_sees_how_many_cards_each_changed_but_not_which():
    g = play(deal(BASE), "0 mus", "1 mus", "2 mus", "3 mus")
    g = play(g, "2 descarte 5o", "0 descarte 7o 1o")
    v = view(g, 1)
    assert v["discarded"] == [0, 2]
    assert v["changed"]["last"] == [0, 0, 0, 0]  # counts are shown once everybody chose
    g = play(g, "3 descarte 10o 7c 6e", "1 descarte 4e")
    v = view(g, 1)
    assert v["changed"] == {"last": [2, 1, 1, 3], "total": [2, 1, 1, 3]}
    discards = [e for e in v["said"] if e["act"] == "descarte"]
    assert sorted((e["seat"], e["n"]) for e in discards) == [(0, 2), (1, 1), (2, 1), (3, 3)]
    assert not strings_in(v) & {"5o", "7o", "1o", "10o", "7c", "6e"}
    g = play(g, "0 mus", "1 mus", "2 mus", "3 mus", "0 descarte 12o", "1 descarte 11o")
    g = play(g, "2 descarte 4o", "3 descarte 5e")
    assert view(g, 0)["changed"] == {"last": [1, 1, 1, 1], "total": [3, 2, 2, 4]}


def _all_mus_discard_four(g, seats_order=(0, 1, 2, 3)):
    g = play(
        g, *(f"{s} mus" for s in (g.mano, (g.mano + 1) % 4, (g.mano + 2) % 4, (g.mano + 3) % 4))
    )
    discards = {}
    for s in seats_order:
        discards[s] = g.hand_codes(s)
        g = apply(g, Action(s, "descarte", cards=tuple(g.hand_codes(s))), random.Random(99))
    return g, discards


@pytest.mark.parametrize("mode", MODES)
def test_when_the_pile_runs_out_only_earlier_rounds_discards_are_reshuffled(mode):
    g = deal(BASE, mode=mode)
    g, first = _all_mus_discard_four(g)  # 16 cards drawn: 8 left in the pile
    g, second = _all_mus_discard_four(g, (3, 1, 0, 2))  # 8 drawn, then the pile runs out
    rec = export_record(g)
    (pile,) = rec["hands"][0]["reshuffles"]
    first_cards = sorted(c for cards in first.values() for c in cards)
    assert sorted(pile) == first_cards
    assert not set(pile) & {c for cards in second.values() for c in cards}
    # the last two seats in speaking order got the reshuffled pile's first 8 cards
    assert g.hand_codes(2) + g.hand_codes(3) == pile[:8]
    # the record replays to the same hands
    again = replay(rec)
    assert [again.hand_codes(s) for s in range(4)] == [g.hand_codes(s) for s in range(4)]


def test_a_first_hand_mus_then_corto_still_moves_the_mano_after_discards():
    g = play(deal(BASE), "0 mus", "1 mus", "2 mus", "3 mus")
    g = play(g, "0 descarte 1o", "1 descarte 4e", "2 descarte 1c", "3 descarte 5e")
    g = play(g, "0 mus", "1 mus", "2 corto")
    assert g.mano == 2 and g.to_act() == [2]


def test_the_deck_of_every_hand_is_a_permutation_of_the_forty_cards():
    deck = stacked_deck(BASE)
    assert sorted(deck) == sorted(CODES)
