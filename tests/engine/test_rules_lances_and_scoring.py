"""docs/rules.md §5 (lances), §6 (betting) and §7 (recuento), with its examples and those of the
site's rules page (deje amounts, pares and juego payments, the end at 40)."""

from __future__ import annotations

import pytest

from games.engine import MODES, Action, IllegalAction, apply, legal_actions, view

from .support import deal, lances, legal_acts, pass_all, pass_lance, play

# No 2s or 3s, so these play the same in both modes. All passing: team 0 wins grande (seat 0),
# chica (seat 2) and pares (seat 0's par of reyes, 1 tanto); nobody has juego; team 1 wins punto
# (seat 1 has 30).
BASE = {0: "12o 12c 7o 1o", 1: "11o 11c 6o 4e", 2: "5o 4o 6c 1c", 3: "10o 7c 6e 5e"}
# Only team 0 has pares (seat 0 par of reyes, seat 2 par of cincos).
PARES_ONE_TEAM = {0: "12o 12c 7o 1o", 1: "11o 10c 6o 4e", 2: "5o 5c 6c 1c", 3: "10o 7c 6e 4o"}
NO_PARES = {0: "12o 11o 7o 1o", 1: "11c 10c 6o 4e", 2: "5o 4o 6c 1c", 3: "10o 7c 6e 5e"}
# Medias of reyes (seat 0, 2 tantos) and a par (seat 2, 1) against medias of caballos (seat 1).
PARES_PAY = {0: "12o 12c 12e 1o", 1: "11o 11c 11e 7o", 2: "5o 5c 4o 6o", 3: "10o 7c 6e 4e"}
# Juego: seat 0 has 31, seat 2 33, seat 1 32, seat 3 none; nobody has pares.
JUEGO_PAY = {0: "12o 11o 10o 1o", 1: "12e 10c 7c 5o", 2: "12c 11c 7o 6o", 3: "4o 5c 6c 1c"}


def to_pares(g):
    """Play corto and pass grande and chica."""
    g = play(g, f"{g.mano} corto")
    g = pass_lance(g)
    return pass_lance(g)


# §5 lances -------------------------------------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
def test_lances_come_in_order_grande_chica_pares_then_juego_or_punto(mode):
    g = play(deal(BASE, mode=mode), "0 corto")
    seen = []
    while g.phase == "lance":
        seen.append(g.lance)
        g = pass_lance(g)
    assert seen == ["grande", "chica", "pares", "punto"]
    g = play(deal(JUEGO_PAY, mode=mode), "0 corto")
    seen = []
    while g.phase == "lance":
        seen.append(g.lance)
        g = pass_lance(g)
    assert seen == ["grande", "chica", "juego"]  # nobody has pares: not played


def test_everybody_speaks_in_grande_and_chica():
    g = play(deal(BASE), "0 corto")
    for lance in ("grande", "chica"):
        order = []
        while g.lance == lance:
            (s,) = g.to_act()
            order.append(s)
            g = play(g, f"{s} paso")
        assert order == [0, 1, 2, 3]


@pytest.mark.parametrize("mode", MODES)
def test_pares_and_juego_answers_are_announced_to_everybody_before_the_lance(mode):
    g = play(deal(BASE, mode=mode), "0 corto")
    assert view(g, 2)["answers"] == {"pares": None, "juego": None}
    g = to_pares(deal(BASE, mode=mode))
    for seat in (None, 0, 1, 2, 3):
        assert view(g, seat)["answers"] == {"pares": [True, True, False, False], "juego": None}
    g = pass_lance(g)
    assert view(g, 3)["answers"]["juego"] == [False, False, False, False]


def test_only_players_who_lleva_speak_and_vote_in_pares():
    g = to_pares(deal(BASE))
    assert g.to_act() == [0]
    g = play(g, "0 paso")
    assert g.to_act() == [1]
    g = play(g, "1 envido 2")
    assert g.to_act() == [0]  # seat 2 has no pares: it does not vote
    assert legal_actions(g, 2) == []


def test_only_players_who_have_juego_speak_in_juego():
    g = to_pares(deal(JUEGO_PAY))
    assert g.lance == "juego"
    assert g.to_act() == [0]
    g = play(g, "0 envido 2")
    assert g.to_act() == [1]  # seat 3 has no juego: it does not vote
    assert view(g, 0)["answers"]["juego"] == [True, True, True, False]


@pytest.mark.parametrize("mode", MODES)
def test_if_only_one_team_lleva_pares_it_wins_the_lance_without_betting(mode):
    g = to_pares(deal(PARES_ONE_TEAM, mode=mode))
    assert g.lance == "punto"  # pares needed nobody to speak
    row = lances(g)["pares"]
    assert (row["how"], row["winner"]) == ("sin_apuesta", 0)
    g = pass_all(g)
    assert lances(g)["pares"]["tantos"] == 2  # both par: 1 + 1


def test_if_only_one_team_has_juego_it_wins_juego_without_betting():
    hands = {0: "12o 11o 10o 1o", 1: "5o 4o 6c 1c", 2: "12c 11c 7o 6o", 3: "4c 5c 6e 1e"}
    g = to_pares(deal(hands))
    assert g.phase == "recuento"
    row = lances(g)["juego"]
    assert (row["how"], row["winner"], row["tantos"]) == ("sin_apuesta", 0, 5)


def test_if_nobody_has_pares_pares_is_not_played():
    g = to_pares(deal(NO_PARES))
    assert lances(g)["pares"]["how"] == "no_jugado"
    assert g.lance == "punto"
    g = pass_all(g)
    assert lances(g)["pares"]["tantos"] == 0


@pytest.mark.parametrize("mode", MODES)
def test_if_nobody_has_juego_punto_is_played_by_all_four(mode):
    g = pass_lance(to_pares(deal(BASE, mode=mode)))
    assert g.lance == "punto"
    order = []
    while g.phase == "lance":
        (s,) = g.to_act()
        order.append(s)
        g = play(g, f"{s} paso")
    assert order == [0, 1, 2, 3]
    row = lances(g)["punto"]
    assert (row["winner"], row["tantos"]) == (1, 1)  # seat 1 has 30


# §6 betting ----------------------------------------------------------------------------------


def test_opening_offers_paso_envido_from_2_to_40_and_ordago():
    g = play(deal(BASE), "0 corto")
    assert legal_actions(g, 0) == [
        {"act": "paso"},
        {"act": "envido", "min": 2, "max": 40},
        {"act": "ordago"},
    ]


def test_if_every_eligible_player_passes_the_lance_is_en_paso():
    g = pass_lance(play(deal(BASE), "0 corto"))
    assert g.lance == "chica"
    assert view(g, 0)["lances"][0]["how"] == "paso"


def test_a_player_who_passed_still_votes_on_a_later_bet():
    g = play(deal(BASE), "0 corto", "0 paso", "1 envido 2")
    assert g.to_act() == [0, 2]
    assert legal_acts(g, 0) == ["quiero", "no_quiero", "envido", "ordago"]


def test_the_betting_players_partner_does_not_speak_until_the_other_team_raises():
    g = play(deal(BASE), "0 corto", "0 paso", "1 envido 2")
    assert legal_actions(g, 3) == []
    with pytest.raises(IllegalAction) as e:
        apply(g, Action(3, "quiero"))
    assert e.value.code == "not_your_turn"
    g = play(g, "2 envido 5", "0 no_quiero")
    assert g.to_act() == [1, 3]


def test_votes_are_counted_only_when_everybody_voted():
    g = play(deal(BASE), "0 corto", "0 envido 2", "1 quiero")
    assert g.lance == "grande" and g.to_act() == [3]
    assert view(g, 0)["bet"]["votes"] == [1]
    g = play(g, "3 no_quiero")
    assert g.lance == "chica"


@pytest.mark.parametrize("order", [("1 quiero", "3 no_quiero"), ("3 no_quiero", "1 quiero")])
def test_one_quiero_is_enough_to_accept(order):
    g = play(deal(BASE), "0 corto", "0 envido 2", *order)
    row = view(g, 0)["lances"][0]
    assert (row["how"], row["detail"]["bet"]) == ("querido", 2)
    assert g.scores == (0, 0)


def test_any_raise_beats_a_quiero_and_the_other_team_answers_it():
    g = play(deal(BASE), "0 corto", "0 envido 2", "1 quiero", "3 envido 4")
    bet = view(g, 0)["bet"]
    assert (bet["amount"], bet["by_team"], bet["by_seat"], bet["ordago"]) == (4, 1, 3, False)
    assert g.to_act() == [0, 2]


def test_an_ordago_beats_any_number():
    g = play(deal(BASE), "0 corto", "0 envido 2", "1 envido 30", "3 ordago")
    bet = view(g, 2)["bet"]
    assert (bet["ordago"], bet["by_seat"]) == (True, 3)


def test_a_bigger_raise_beats_a_smaller_one():
    g = play(deal(BASE), "0 corto", "0 envido 2", "3 envido 9", "1 envido 5")
    bet = view(g, 2)["bet"]
    assert (bet["amount"], bet["by_seat"]) == (9, 3)


@pytest.mark.parametrize("arrival", [("3 envido 5", "1 envido 5"), ("1 envido 5", "3 envido 5")])
def test_equal_raises_go_to_the_earlier_speaker(arrival):
    g = play(deal(BASE), "0 corto", "0 envido 2", *arrival)
    bet = view(g, 2)["bet"]
    assert (bet["amount"], bet["by_seat"]) == (5, 1)


def test_the_worked_example_raise_wins_then_one_quiero_accepts():
    # grande: 0 paso, 1 paso, 2 envido 2; team 1 votes 1 envido 5, 3 no quiero: the raise
    # wins; team 0 votes 2 quiero, 0 no quiero: accepted at 5.
    g = play(deal(BASE), "0 corto", "0 paso", "1 paso", "2 envido 2", "1 envido 5", "3 no_quiero")
    assert g.to_act() == [0, 2]
    g = play(g, "2 quiero", "0 no_quiero")
    row = view(g, 0)["lances"][0]
    assert (row["lance"], row["how"], row["detail"]["bet"]) == ("grande", "querido", 5)


def test_a_raise_must_be_above_the_current_total():
    g = play(deal(BASE), "0 corto", "0 envido 7")
    assert {"act": "envido", "min": 8, "max": 40} in legal_actions(g, 1)


@pytest.mark.parametrize(
    ("steps", "scores"),
    [
        # Envido 2 -> No quiero: 1
        (("0 envido 2", "1 no_quiero", "3 no_quiero"), (1, 0)),
        # Envido 2, raise to 5 -> No quiero: 2
        (("0 envido 2", "1 envido 5", "3 no_quiero", "0 no_quiero", "2 no_quiero"), (0, 2)),
        # Envido 2, raise to 6, Órdago -> No quiero: 6
        (
            (
                "0 envido 2",
                "1 envido 6",
                "3 quiero",
                "0 ordago",
                "2 no_quiero",
                "1 no_quiero",
                "3 no_quiero",
            ),
            (6, 0),
        ),
        # an opening órdago refused: 1
        (("0 ordago", "1 no_quiero", "3 no_quiero"), (1, 0)),
    ],
)
@pytest.mark.parametrize("mode", MODES)
def test_a_refused_bet_pays_the_deje_at_once(steps, scores, mode):
    g = play(deal(BASE, mode=mode), "0 corto", *steps)
    assert g.scores == scores  # paid before the recuento
    assert g.lance == "chica"  # and the hand goes on


def test_a_refused_bet_wins_the_lance_whatever_the_cards():
    g = pass_all(play(deal(BASE), "0 corto", "0 paso", "1 envido 2", "0 no_quiero", "2 no_quiero"))
    row = lances(g)["grande"]
    assert (row["how"], row["winner"], row["tantos"]) == ("no_querido", 1, 1)  # seat 0 was best


@pytest.mark.parametrize("mode", MODES)
def test_an_accepted_ordago_ends_the_game_for_the_best_hand_of_that_lance(mode):
    g = play(deal(BASE, mode=mode), "0 corto", "0 paso", "1 ordago", "0 quiero", "2 no_quiero")
    assert (g.phase, g.winner, g.ended_by) == ("terminada", 0, "ordago")
    assert g.scores == (0, 0)
    v = view(g, None)
    assert [r["lance"] for r in v["lances"]] == ["grande"]  # later lances are not played
    assert v["lances"][0]["how"] == "ordago"
    assert v["hands"] is not None  # the cards are shown


def test_an_ordago_in_pares_is_decided_among_those_who_lleva():
    g = to_pares(deal(BASE))
    g = play(g, "0 paso", "1 ordago", "0 quiero")
    assert (g.winner, g.ended_by) == (0, "ordago")  # par of reyes beats par of caballos


def test_an_ordago_cannot_be_raised():
    g = play(deal(BASE), "0 corto", "0 ordago")
    assert legal_acts(g, 1) == ["quiero", "no_quiero"]
    for action in (Action(1, "envido", to=10), Action(1, "ordago")):
        with pytest.raises(IllegalAction) as e:
            apply(g, action)
        assert e.value.code == "no_raise_on_ordago"


def test_with_forty_on_the_table_only_an_ordago_can_raise():
    g = play(deal(BASE), "0 corto", "0 envido 40")
    assert legal_acts(g, 1) == ["quiero", "no_quiero", "ordago"]
    with pytest.raises(IllegalAction) as e:
        apply(g, Action(1, "envido", to=40))
    assert e.value.code == "bad_amount"


# §7 recuento -------------------------------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
def test_grande_and_chica_en_paso_pay_one_to_the_winner_at_the_recuento(mode):
    g = play(deal(BASE, mode=mode), "0 corto")
    g = pass_lance(pass_lance(g))
    assert g.scores == (0, 0)  # nothing paid before the recuento
    g = pass_all(g)
    rows = lances(g)
    assert (rows["grande"]["winner"], rows["grande"]["tantos"]) == (0, 1)
    assert (rows["chica"]["winner"], rows["chica"]["tantos"]) == (0, 1)
    assert g.scores == (3, 1)


def test_an_accepted_bet_is_paid_to_the_winner_of_the_lance():
    g = play(deal(BASE), "0 corto", "0 paso", "1 envido 5", "0 quiero", "2 no_quiero")
    assert g.scores == (0, 0)
    g = pass_all(g)
    assert lances(g)["grande"]["tantos"] == 5
    assert g.scores == (2 + 5, 1)


def test_a_refused_bet_in_grande_pays_nothing_more_at_the_recuento():
    g = play(deal(BASE), "0 corto", "0 envido 2", "1 no_quiero", "3 no_quiero")
    g = pass_all(g)
    row = lances(g)["grande"]
    assert (row["tantos"], row["detail"]["deje"], row["detail"]["bonus"]) == (1, 1, 0)
    assert g.scores == (1 + 1 + 1, 1)


@pytest.mark.parametrize("mode", MODES)
def test_pares_pay_the_bet_plus_the_pares_of_both_winning_players(mode):
    g = to_pares(deal(PARES_PAY, mode=mode))
    g = play(g, "0 envido 2", "1 quiero")
    g = pass_all(g)
    row = lances(g)["pares"]
    assert (row["winner"], row["tantos"]) == (0, 2 + 2 + 1)  # losing medias never count


def test_pares_en_paso_pay_only_the_pares():
    g = pass_all(to_pares(deal(PARES_PAY)))
    assert lances(g)["pares"]["tantos"] == 3


def test_a_refused_pares_bet_pays_the_deje_and_the_betting_teams_pares():
    g = to_pares(deal(PARES_PAY))
    g = play(g, "0 paso", "1 envido 2", "0 no_quiero", "2 no_quiero")
    assert g.scores == (0, 1)
    g = pass_all(g)
    row = lances(g)["pares"]
    assert (row["winner"], row["tantos"], row["detail"]["bonus"]) == (1, 1 + 2, 2)


@pytest.mark.parametrize("mode", MODES)
def test_juego_pays_three_for_each_31_and_two_for_each_other_juego_of_the_winners(mode):
    g = pass_all(to_pares(deal(JUEGO_PAY, mode=mode)))
    row = lances(g)["juego"]
    assert (row["winner"], row["tantos"]) == (0, 3 + 2)  # 31 and 33; team 1's 32 not counted


def test_juego_accepted_pays_the_bet_too():
    g = to_pares(deal(JUEGO_PAY))
    g = play(g, "0 envido 4", "1 quiero")
    g = pass_all(g)
    assert lances(g)["juego"]["tantos"] == 4 + 5


@pytest.mark.parametrize(
    ("steps", "tantos", "deje"),
    [
        ((), 1, 0),  # en paso: 1
        (("0 envido 3", "1 quiero", "3 no_quiero"), 3 + 1, 0),  # querido: the bet + 1
        (("0 paso", "1 envido 3", "0 no_quiero", "2 no_quiero"), 1 + 1, 1),  # refused: deje + 1
    ],
)
def test_punto_pays_the_bet_plus_one(steps, tantos, deje):
    g = pass_lance(to_pares(deal(BASE)))
    assert g.lance == "punto"
    g = pass_all(play(g, *steps))
    row = lances(g)["punto"]
    assert (row["winner"], row["tantos"], row["detail"]["deje"]) == (1, tantos, deje)


def test_the_first_team_to_reach_40_wins_and_nothing_after_is_counted():
    g = play(deal(BASE), "0 corto")
    g._scores = [38, 39]  # test shortcut: a game near its end
    g = pass_all(g)
    # grande (team 0) -> 39, chica (team 0) -> 40: pares and team 1's punto are not counted
    assert (g.phase, g.winner, g.ended_by, g.scores) == ("terminada", 0, "puntos", (40, 39))
    rows = lances(g)
    assert rows["punto"]["counted"] == 0 and rows["punto"]["tantos"] == 1
    assert rows["chica"]["counted"] == 1


def test_scores_are_kept_as_counted_beyond_40():
    g = play(deal(BASE), "0 corto")
    g._scores = [38, 0]
    g = play(g, "0 envido 5", "1 quiero", "3 no_quiero")
    g = pass_all(g)
    assert g.scores == (43, 0) and g.winner == 0


def test_a_deje_that_reaches_40_ends_the_game_at_once():
    g = play(deal(BASE), "0 corto")
    g._scores = [39, 0]
    g = play(g, "0 envido 2", "1 no_quiero", "3 no_quiero")
    assert (g.phase, g.winner, g.ended_by, g.scores) == ("terminada", 0, "puntos", (40, 0))
    assert g.to_act() == []
    with pytest.raises(IllegalAction) as e:
        apply(g, Action(0, "paso"))
    assert e.value.code == "game_over"
