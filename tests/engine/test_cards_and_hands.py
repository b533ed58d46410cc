"""docs/rules.md §2 (cards, modes) and the hand comparisons of §5, with the rules page's examples."""

from __future__ import annotations

import pytest

from games.engine import MODES
from games.engine.cards import CODE_TO_ID, CODES, EFFECTIVE_RANK, RANK_POINTS
from games.engine.evaluate import HandEval, best_seat, evaluate


def ev(hand: str, mode: str = "4-reyes") -> HandEval:
    return evaluate([CODE_TO_ID[c] for c in hand.split()], mode)


def winner(lance: str, hands: list[str], mode: str = "4-reyes") -> int:
    """Index of the winning hand, the first one being the earliest speaker."""
    evals = [ev(h, mode) for h in hands]
    return best_seat(evals, tuple(range(len(hands))), lance)


# §2.1, §2.2 ---------------------------------------------------------------------------------


def test_the_deck_has_forty_cards_of_ten_ranks_and_four_suits():
    assert len(CODES) == 40 == len(set(CODES))
    assert {c[:-1] for c in CODES} == {"1", "2", "3", "4", "5", "6", "7", "10", "11", "12"}
    assert {c[-1] for c in CODES} == {"o", "c", "e", "b"}
    for code in ("12o", "1b", "10c"):
        assert code in CODE_TO_ID


def test_suits_never_matter():
    assert ev("12o 12c 5e 1b") == ev("12b 12e 5o 1c")
    assert winner("grande", ["12o 11o 10o 7o", "12b 11b 10b 7b"]) == 0  # a tie: mano wins


# §2.3 - §2.5 --------------------------------------------------------------------------------


def test_the_modes_are_four_and_eight_reyes():
    assert MODES == ("4-reyes", "8-reyes")


def test_in_eight_reyes_every_three_is_a_rey_and_every_two_an_as():
    eff = EFFECTIVE_RANK["8-reyes"]
    for suit in "oceb":
        assert eff[CODE_TO_ID[f"3{suit}"]] == eff[CODE_TO_ID[f"12{suit}"]]
        assert eff[CODE_TO_ID[f"2{suit}"]] == eff[CODE_TO_ID[f"1{suit}"]]
    four = EFFECTIVE_RANK["4-reyes"]
    assert four[CODE_TO_ID["3o"]] != four[CODE_TO_ID["12o"]]
    assert four[CODE_TO_ID["2o"]] != four[CODE_TO_ID["1o"]]


def test_point_values_figures_ten_others_their_number():
    assert ev("12o 11o 10o 7o").points == 37
    assert ev("1o 2o 3o 4o").points == 10
    assert ev("5o 6o 7o 1c").points == 19
    assert RANK_POINTS == (1, 2, 3, 4, 5, 6, 7, 10, 10, 10)


def test_in_eight_reyes_a_three_is_worth_ten_and_a_two_one():
    assert ev("3o 2o 4o 5o", "8-reyes").points == 10 + 1 + 4 + 5
    assert ev("3o 2o 4o 5o", "4-reyes").points == 3 + 2 + 4 + 5


@pytest.mark.parametrize("mode", MODES)
def test_rank_order_high_to_low_for_grande(mode):
    order = ["12o", "11o", "10o", "7o", "6o", "5o", "4o", "3o", "2o", "1o"]
    if mode == "8-reyes":
        order = ["12o", "11o", "10o", "7o", "6o", "5o", "4o", "1o"]  # 3 = rey, 2 = as
    filler = "1c 1e 1b"
    strengths = [ev(f"{c} {filler}", mode).grande for c in order]
    assert strengths == sorted(strengths, reverse=True)
    assert len(set(strengths)) == len(strengths)
    if mode == "8-reyes":
        assert ev(f"3o {filler}", mode).grande == ev(f"12c {filler}", mode).grande
        assert ev(f"2o {filler}", mode).grande == ev(f"1o {filler}", mode).grande


# §5.1 grande ----------------------------------------------------------------------------------


def test_grande_compares_high_to_low_card_by_card():
    # Reference 000: rey, rey, cuatro, as beats rey, caballo, caballo, sota.
    assert winner("grande", ["12c 11o 11c 10o", "12o 12e 4o 1o"]) == 1
    assert winner("grande", ["12o 12e 4o 1o", "12c 11o 11c 10o"]) == 0
    assert winner("grande", ["12o 7o 6o 5o", "12c 7c 6c 4c"]) == 0  # the last card decides


def test_grande_in_eight_reyes_the_three_plays_as_a_rey():
    assert winner("grande", ["12o 11o 1o 1c", "3o 12c 1e 1b"], "8-reyes") == 1
    assert winner("grande", ["12o 11o 1o 1c", "3o 12c 1e 1b"], "4-reyes") == 0


# §5.2 chica ------------------------------------------------------------------------------------


def test_chica_compares_low_to_high_the_lower_wins():
    # Reference 000: as, as, siete, rey beats as, cuatro, cinco, seis.
    assert winner("chica", ["1c 4o 5o 6o", "1o 1e 7o 12o"]) == 1
    assert winner("chica", ["1o 1e 7o 12o", "1c 4o 5o 6o"]) == 0


def test_chica_in_eight_reyes_the_two_plays_as_an_as():
    assert winner("chica", ["1o 4o 5o 6o", "2o 3c 7e 12b"], "8-reyes") == 0  # tie on as: 4 < 7
    assert winner("chica", ["1o 4o 5o 6o", "2o 2c 7e 12b"], "8-reyes") == 1  # two ases
    assert winner("chica", ["1o 4o 5o 6o", "2o 2c 7e 12b"], "4-reyes") == 0


def test_a_tie_goes_to_the_earlier_speaker():
    assert winner("grande", ["12o 11o 5o 4o", "12c 11c 5c 4c"]) == 0
    assert winner("chica", ["12o 11o 5o 4o", "12c 11c 5c 4c", "12e 11e 5e 4e"]) == 0
    assert best_seat([ev("12o 11o 5o 4o")] * 4, (2, 3, 0, 1), "grande") == 2


# §5.3 pares ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("hand", "value"),
    [
        ("12o 12c 5o 1o", 1),  # dos reyes, un cinco y un as: par
        ("7o 7c 7e 4o", 2),  # tres sietes y un cuatro: medias
        ("11o 11c 4o 4c", 3),  # dos caballos y dos cuatros: duples
        ("10o 10c 10e 10b", 3),  # cuatro sotas: duples
        ("12o 3o 6o 1o", 0),  # rey, tres, seis y as: sin pares (4 reyes)
        ("3o 12o 2o 1o", 0),  # tres, rey, dos y as: nothing with 4 reyes
    ],
)
def test_pares_values_in_four_reyes(hand, value):
    assert ev(hand).pares_value == value
    assert (ev(hand).pares > 0) == (value > 0)


def test_pares_in_eight_reyes_the_three_pairs_with_the_rey_and_the_two_with_the_as():
    assert ev("12o 3o 6o 1o", "8-reyes").pares_value == 1  # the same hand: par de reyes
    assert ev("3o 12o 2o 1o", "8-reyes").pares_value == 3  # reyes and ases: duples


def test_duples_beat_medias_beat_par():
    assert winner("pares", ["12o 12c 12e 1o", "4o 4c 5o 5c"]) == 1
    assert winner("pares", ["12o 12c 5e 1o", "4o 4c 4e 5c"]) == 1
    assert winner("pares", ["12o 12c 5e 1o", "4o 4c 6e 5c"]) == 0


def test_same_kind_of_pares_higher_rank_wins():
    assert winner("pares", ["10o 10c 5e 1o", "12o 12c 4e 5c"]) == 1  # reyes beat sotas
    assert winner("pares", ["5o 5c 5e 1o", "7o 7c 7e 6c"]) == 1


def test_duples_compare_the_higher_pair_then_the_lower():
    assert winner("pares", ["12o 12c 1e 1o", "11o 11c 10e 10c"]) == 0
    assert winner("pares", ["12o 12c 4e 4o", "12e 12b 5e 5c"]) == 1


def test_four_reyes_are_duples_that_beat_reyes_and_caballos():
    assert winner("pares", ["12o 12c 11o 11c", "12e 12b 3e 3c"], "8-reyes") == 1
    assert ev("12e 12b 3e 3c", "8-reyes").pares_value == 3


# §5.4 juego and §5.5 punto ---------------------------------------------------------------------


def test_juego_is_31_or_more():
    assert ev("12o 11o 10o 1o").juego > 0  # 31
    assert ev("12o 11o 7o 3o").juego == 0  # 30: no juego
    assert ev("12o 11o 7o 3o").points == 30


def test_juego_order_31_32_40_37_36_35_34_33():
    hands = {
        31: "12o 11o 10o 1o",  # rey, caballo, sota y as
        32: "12o 10o 7o 5o",  # rey, sota, siete y cinco
        40: "12o 11o 10o 12c",  # cuatro figuras
        37: "12o 11o 10o 7o",
        36: "12o 11o 10o 6o",
        35: "12o 11o 10o 5o",
        34: "12o 11o 10o 4o",
        33: "12o 11o 7o 6o",  # rey, caballo, siete y seis
    }
    strengths = []
    for points, hand in hands.items():
        e = ev(hand)
        assert e.points == points
        strengths.append(e.juego)
    assert strengths == sorted(strengths, reverse=True)
    assert len(set(strengths)) == 8


def test_a_31_is_worth_three_other_juegos_two():
    assert ev("12o 11o 10o 1o").juego_value == 3
    assert ev("12o 10o 7o 5o").juego_value == 2
    assert ev("12o 11o 10o 12c").juego_value == 2
    assert ev("12o 11o 7o 3o").juego_value == 0


def test_juego_in_eight_reyes_the_three_is_worth_ten_and_the_two_one():
    # Reference 000: tres, rey, caballo y dos: 31 with 8 reyes, 25 with 4 reyes.
    assert ev("3o 12o 11o 2o", "8-reyes").points == 31
    assert ev("3o 12o 11o 2o", "8-reyes").juego_value == 3
    assert ev("3o 12o 11o 2o", "4-reyes").points == 25
    assert ev("3o 12o 11o 2o", "4-reyes").juego == 0


def test_punto_the_highest_total_wins_and_30_is_best():
    assert winner("punto", ["12o 11o 5o 1o", "12c 11c 7o 3o"]) == 1  # 26 vs 30
    assert winner("punto", ["12o 11o 7c 3c", "12c 11c 7o 3o"]) == 0  # 30 vs 30: the mano
