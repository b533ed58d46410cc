"""Bot levels (games/engine/bot.py) and the estimate API (games/engine/estimate.py).

What is claimed here:
* the three levels exist, «normal» is the default, an unknown level is refused;
* every level plays whole games of both modes with legal actions only, and is deterministic
  given its generator;
* «fuerte» decides from the view alone: the same view gives the same decision whatever the
  other seats hold;
* ``estimate.chances`` and ``estimate.advice`` have the documented shape, the best option is
  the action, and they read the view only.
"""

from __future__ import annotations

import copy
import random

import pytest

from games.engine import MODES, Action, apply, bot, estimate, new_game, strong, view
from games.engine.sampling import shown_evidence
from games.engine.strong import rivals_cardless

from .support import deal, pass_all, pass_lance, play
from .test_bot import _same_view_elsewhere, legal_for


def test_levels_and_default():
    assert bot.LEVELS == ("principiante", "normal", "fuerte")
    assert bot.DEFAULT_LEVEL == "normal"
    g = new_game("4-reyes", 0, random.Random(3))
    v = view(g, 0)
    assert bot.decide(v, random.Random(1)) == bot.decide(v, random.Random(1), "normal")
    with pytest.raises(ValueError):
        bot.decide(v, random.Random(1), "experto")
    for level in bot.LEVELS:
        with pytest.raises(ValueError):
            bot.decide(view(g, 1), random.Random(1), level)  # seat 1 is not to speak


def _play(mode: str, seed: int, levels: tuple[str, str]) -> tuple[list, object]:
    rng = random.Random(seed)
    g = new_game(mode, seed % 4, rng)
    trace = []
    while g.phase not in ("terminada", "cancelada"):
        seat = g.to_act()[0]
        v = view(g, seat)
        a = bot.decide(v, random.Random(f"{seed}:{len(trace)}"), levels[seat & 1])
        assert legal_for(v, a), (v, a)
        trace.append(a)
        g = apply(g, a, rng)
        assert len(trace) < 20_000
    return trace, g


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(
    "levels", [("fuerte", "normal"), ("principiante", "fuerte"), ("fuerte", "fuerte")]
)
def test_every_level_plays_legal_whole_games_deterministically(mode, levels):
    for seed in range(3):
        trace, g = _play(mode, seed, levels)
        assert g.phase == "terminada"
        assert _play(mode, seed, levels)[0] == trace


def test_fuerte_decision_is_unchanged_when_other_seats_cards_are_swapped():
    compared = 0
    kinds: set[str] = set()
    for seed in range(30):
        rng = random.Random(seed)
        g = new_game(MODES[seed % 2], seed % 4, rng)
        # (until juego or punto was compared too: which lances are reached depends on play)
        enough = compared >= 250 and kinds & {"juego", "punto"}
        while g.phase not in ("terminada", "cancelada") and not enough:
            seat = rng.choice(g.to_act())
            v = view(g, seat)
            a = bot.decide(v, random.Random(seed), "fuerte")
            if g.phase == "lance" and not any(e["act"] == "descarte" for e in v["said"]):
                tries = 30 if g.lance in ("pares", "juego") else 2
                alt = _same_view_elsewhere(g, seat, rng, tries)
                if alt is not None:
                    assert bot.decide(view(alt, seat), random.Random(seed), "fuerte") == a
                    assert estimate.advice(
                        view(alt, seat), random.Random(seed), 200
                    ) == estimate.advice(v, random.Random(seed), 200)
                    compared += 1
                    kinds.add(v["lance"])
                    enough = compared >= 250 and kinds & {"juego", "punto"}
            g = apply(g, a, rng)
    assert compared >= 60
    assert {"grande", "chica", "pares"} <= kinds and kinds & {"juego", "punto"}


def test_chances_shape_and_obvious_hands():
    g = deal({0: "12o 12c 12e 11o"}, mano=0)  # three reyes and a caballo, mano
    v = view(g, 0)
    c = estimate.chances(v, random.Random(1), 500)
    assert set(c) == set(estimate.LANCES) == {"grande", "chica", "pares", "juego"}
    assert all(0.0 <= p <= 1.0 for p in c.values())
    assert c["grande"] > 0.9 and c["chica"] < 0.5 and c["pares"] > 0.6
    assert estimate.chances(v, random.Random(1), 500) == c
    assert copy.deepcopy(v) == v


def test_advice_lists_every_option_and_its_best_is_the_action():
    rng = random.Random(5)
    g = new_game("4-reyes", 0, rng)
    seen = 0
    while g.phase not in ("terminada", "cancelada"):
        seat = g.to_act()[0]
        v = view(g, seat)
        adv = estimate.advice(v, random.Random(2), 300)
        assert set(adv) == {"chances", "action", "options"}
        a = Action.from_dict(adv["action"])
        assert legal_for(v, a)
        if g.phase == "lance":
            seen += 1
            values = {
                tuple(sorted(o["action"].items(), key=str)): o["value"] for o in adv["options"]
            }
            assert all(0.0 <= x <= 1.0 for x in values.values())
            acts = {o["action"]["act"] for o in adv["options"]}
            assert acts == {d["act"] for d in v["you"]["legal"]}
            env = [o for o in adv["options"] if o["action"]["act"] == "envido"]
            legal_env = [d for d in v["you"]["legal"] if d["act"] == "envido"]
            if legal_env:
                assert len(env) == legal_env[0]["max"] - legal_env[0]["min"] + 1
            # The action is the best option but for the margin an órdago (or accepting one)
            # needs: it is worth at least every paso / quiero / no quiero.
            mine = values[tuple(sorted(adv["action"].items(), key=str))]
            risky = "quiero" if v["bet"] and v["bet"]["ordago"] else "ordago"
            plain = [
                o["value"]
                for o in adv["options"]
                if o["action"]["act"] in ("paso", "quiero", "no_quiero")
                and o["action"]["act"] != risky
            ]
            assert all(mine >= x for x in plain)
        else:
            assert adv["options"] == []
        g = apply(g, bot.decide(v, random.Random(2), "fuerte"), rng)
    assert seen > 3


def test_fuerte_accepts_or_raises_with_the_best_grande():
    # Four reyes in 4 reyes: nobody can tie. Seat 1 (mano) bets; seat 0 answers.
    hands = {0: "12o 12c 12e 12b"}
    for step in ("1 envido 2", "1 envido 10", "1 ordago"):
        g = play(deal(hands, mano=1), "1 corto", step)
        a = bot.decide(view(g, 0), random.Random(1), "fuerte")
        assert a.act in ("quiero", "envido", "ordago"), (step, a)


def test_fuerte_bets_the_best_grande_and_passes_the_worst():
    g = play(deal({0: "12o 12c 12e 12b"}, mano=0), "0 corto")
    assert bot.decide(view(g, 0), random.Random(1), "fuerte").act in ("envido", "ordago")
    g = play(deal({0: "1o 1c 4e 5b"}, mano=0), "0 corto")
    for seed in range(10):
        assert bot.decide(view(g, 0), random.Random(seed), "fuerte").act == "paso"


def test_fuerte_refuses_an_ordago_with_a_poor_hand_and_never_bluffs_one_at_the_start():
    g = play(deal({0: "1o 2c 4e 5b"}, mano=1), "1 corto", "1 ordago")
    for seed in range(5):
        assert bot.decide(view(g, 0), random.Random(seed), "fuerte").act == "no_quiero"
    for hand in ("1o 2c 4e 5b", "7o 6c 1e 4b", "11o 1c 2e 4b"):
        g = play(deal({0: hand}, mano=0), "0 corto")
        for seed in range(5):
            assert bot.decide(view(g, 0), random.Random(seed), "fuerte").act != "ordago"


def test_fuerte_does_not_ordago_a_good_but_beatable_grande_at_0_0():
    # Rey, caballo, 7 and 5 as mano: a grande worth betting (it wins about nine times in
    # ten), not the whole game.
    g = play(deal({0: "12o 11c 7e 5b"}, mano=0), "0 corto")
    for seed in range(5):
        a = bot.decide(view(g, 0), random.Random(seed), "fuerte")
        assert a.act == "envido", a


def test_fuerte_refuses_an_opening_ordago_with_an_even_grande_at_0_0():
    # A middling grande against an órdago at the start: refusing costs one tanto, accepting
    # risks the game on a coin flip (or worse: an órdago says the rival is strong).
    g = play(deal({0: "12o 11c 7e 4b"}, mano=1), "1 corto", "1 ordago")
    for seed in range(5):
        assert bot.decide(view(g, 0), random.Random(seed), "fuerte").act == "no_quiero"


def test_fuerte_risks_the_game_with_a_good_grande_only_when_it_is_being_lost():
    # Rey, caballo, 7 and 5 as mano (wins the grande about nine times in ten): at 0-0 an
    # envido; at 12-36, when the game is nearly lost, the órdago is the way to win it.
    g = play(deal({0: "12o 11c 7e 5b"}, mano=0), "0 corto")
    even = view(g, 0)
    losing = copy.deepcopy(even)
    losing["scores"] = [12, 36]
    for seed in range(5):
        assert bot.decide(even, random.Random(seed), "fuerte").act == "envido"
        assert bot.decide(losing, random.Random(seed), "fuerte").act == "ordago"


def test_the_ordago_threshold_is_near_sure_unless_the_game_is_being_lost():
    from games.engine.strong import ordago_threshold

    assert ordago_threshold(0.5) == 0.95
    assert ordago_threshold(0.9) > 0.95
    assert ordago_threshold(0.05) < 0.9
    assert ordago_threshold(0.19) < ordago_threshold(0.5)


def test_sampled_rivals_who_said_ordago_hold_top_hands():
    # Seat 1 opened with an órdago in grande: in the sampled deals its grande is nearly
    # always in the top tenth (the likelihood is fitted to how the normal bot plays).
    from games.engine.sampling import LANCE_IX, PCT, sample

    g = play(deal({0: "4o 5c 6e 7b"}, mano=1), "1 corto", "1 ordago")
    v = view(g, 0)
    w = sample(v, random.Random(1), 400, [0.0] * 4)
    top = sum(PCT["4-reyes"][k[1]][LANCE_IX["grande"]] >= 0.9 for k in w.keys)
    assert top / len(w.keys) > 0.85


def _top_share(v, seat: int, lance: str, above: float, cardless=None) -> float:
    """Share of the sampled deals in which ``seat``'s hand is above ``above`` in ``lance``."""
    from games.engine.sampling import LANCE_IX, PCT, sample

    w = sample(v, random.Random(1), 400, [0.0] * 4, cardless)
    pct = PCT[v["mode"]]
    return sum(pct[k[seat]][LANCE_IX[lance]] > above for k in w.keys) / len(w.keys)


def test_the_partners_envido_is_read_as_a_fuerte_bots_and_a_rivals_as_a_sensible_players():
    # Seat 2 (our partner) opens the grande with an envido: «fuerte» bets with anything, so
    # that says little of its cards. The same envido by seat 1 (a rival) says «top third».
    g = play(deal({0: "4o 5c 6e 7b"}, mano=1), "1 corto")
    g = play(g, "1 paso", "2 envido 2")
    partner = _top_share(view(g, 0), 2, "grande", 0.66)
    g = play(deal({0: "4o 5c 6e 7b"}, mano=1), "1 corto", "1 envido 2")
    rival = _top_share(view(g, 0), 1, "grande", 0.66)
    assert rival > 0.8
    assert partner < 0.6


def test_an_ordago_reads_stronger_from_a_pair_that_is_not_losing_the_game():
    # Seat 1 opens the grande with an órdago: at 0-0 it holds a near-sure grande; when its
    # pair is far behind (5-36) a good one is enough, and the sampled hands say so.
    g = play(deal({0: "4o 5c 6e 7b"}, mano=1), "1 corto", "1 ordago")
    even = view(g, 0)
    desperate = copy.deepcopy(even)
    desperate["scores"] = [36, 5]  # seat 0's pair 36, the órdago's pair 5
    assert _top_share(even, 1, "grande", 0.95) > 0.85
    assert _top_share(desperate, 1, "grande", 0.95) < 0.6


def test_a_rival_that_speaks_whatever_its_cards_has_its_envido_believed_less():
    # The same opening envido by seat 1: read from a sensible rival it puts seat 1 in the top
    # third of the grande; from one that is probably cardless (history of big envidos and
    # raises) the sampled hands are far more spread out, and that chance is what is kept.
    from games.engine.strong import cardless

    g = play(deal({0: "4o 5c 6e 7b"}, mano=1), "1 corto", "1 envido 2")
    v = view(g, 0)
    sensible = _top_share(v, 1, "grande", 0.66, [0.0] * 4)
    blind = _top_share(v, 1, "grande", 0.66, [0.0, 0.9, 0.0, 0.9])
    assert sensible > 0.8 and blind < 0.6
    loose = copy.deepcopy(v)
    loose["history"] = {
        "hands": 4,
        "seats": [
            {},
            {"pasos": 4, "big": 2, "raises": 3, "quiero": 3, "shown_lost": 1},
            {},
            {"big": 1, "raises": 2},
        ],
    }
    q_first, q_loose = cardless(v), cardless(loose)
    assert q_loose[1] > 0.9 > 0.5 > q_first[1]
    assert q_loose[0] == q_first[0]


def test_a_rival_that_bets_often_says_ordago_and_refuses_reads_sensible():
    # «fuerte»'s own way of playing (it opens with anything, envidos of 7 included, and
    # refuses a lot) must not read as a random player's: before the weights were fitted a
    # few envidos of 7 made a «fuerte» rival look cardless (docs/journal/engine.md, «Fifth round»).
    from games.engine.strong import cardless

    g = play(deal({0: "4o 5c 6e 7b"}, mano=1), "1 corto", "1 envido 2")
    v = view(g, 0)
    v["history"] = {
        "hands": 5,
        "seats": [
            {},
            {"pasos": 2, "bets": 4, "big": 2, "ordagos": 1, "no_quiero": 5, "shown_won": 1},
            {},
            {"pasos": 3, "bets": 3, "big": 1, "no_quiero": 4, "quiero": 1},
        ],
    }
    q = cardless(v)
    assert q[1] < 0.1 and q[3] < 0.25


def _juego_ordago_by_a_mano_with_31(ours: str):
    """Seat 1 (mano) holds 31 and says órdago in juego; seat 0 holds ``ours`` and answers."""
    g = deal({0: ours, 1: "12c 10o 11b 1c", 2: "4o 5c 6e 7b", 3: "4c 5o 6b 7c"}, mano=1)
    g = play(g, "1 corto")
    while g.lance != "juego":
        g = pass_lance(g)
    return play(g, "1 ordago")


def test_a_rivals_ordago_in_juego_is_read_as_the_top_of_the_juegos():
    # 31 is a big class of equal hands: by its mid-rank percentile (0.8 in juego) an órdago's
    # likelihood fell to its floor and the rival's hand was sampled as any juego (31 in
    # about half the deals). Read on the upper percentile, the órdago says 31.
    from games.engine.sampling import JUEGO_VALUE, ROWS, sample

    v = view(_juego_ordago_by_a_mano_with_31("12o 10c 11e 2b"), 0)
    w = sample(v, random.Random(1), 400, [0.0] * 4)
    assert sum(ROWS[k[1]][JUEGO_VALUE] == 3 for k in w.keys) / len(w.keys) > 0.9


def test_it_refuses_a_juego_ordago_with_32_even_when_behind():
    # Holding 32 at 20-30, the mano's órdago in juego (a 31, by how a sensible player
    # risks the game) is refused: read as any juego it looked like a 36 % chance and was
    # accepted.
    v = view(_juego_ordago_by_a_mano_with_31("12o 10c 11e 2b"), 0)
    v["scores"] = [20, 30]
    assert estimate.chances(v, random.Random(1), 400)["juego"] < 0.1
    for i in range(3):
        assert bot.decide(v, random.Random(i), "fuerte").act == "no_quiero"


#: A rival's earlier hands that read cardless (``strong.cardless`` > 0.9).
_CARDLESS_HISTORY = {"pasos": 4, "big": 2, "raises": 3, "quiero": 3, "shown_lost": 1}


def test_it_does_not_bluff_the_grande_against_a_pair_that_answers_whatever_its_cards():
    # Against a pair read as cardless, both rivals answer an envido in the grande and the pair
    # refuses only when both refuse (16 % for the arena's random player, not 40 %): an envido
    # of 2 with a grande that never wins is called and lost far more than a paso costs.
    from games.engine.strong import cardless_answers

    accept, raise_, ordago = cardless_answers(2)
    assert (1 - raise_) * (1 - accept) == pytest.approx(0.4 * 0.4)
    assert ordago == pytest.approx(1 - 0.55 * 0.55)
    for hand, mano, before in (("1o 1c 4e 5b", 0, ()), ("4o 5c 6e 7b", 3, ("3 paso",))):
        g = play(deal({0: hand}, mano=mano), f"{mano} corto", *before)
        v = view(g, 0)
        v["history"] = {"hands": 4, "seats": [{}, _CARDLESS_HISTORY, {}, _CARDLESS_HISTORY]}
        for seed in range(5):
            assert bot.decide(v, random.Random(seed), "fuerte").act == "paso", (hand, seed)


def test_it_does_not_raise_a_sensible_rivals_pares_envido_with_a_low_pair():
    # The mano opens the pares with an envido; we hold a low pair (everybody has pares).
    # A sensible player who bet its pares answers a raise with quiero about three times in
    # four (how «normal» was measured to answer), so a raise with a pair that seldom wins is
    # called and lost: before SEEN_ACCEPT «fuerte» raised to 4 here every time.
    for hand in ("4o 4c 6e 7b", "7o 7c 1e 4b"):
        g = play(deal({0: hand}, mano=1), "1 corto")
        while g.lance != "pares":
            g = pass_lance(g)
        g = play(g, "1 envido 2")
        v = view(g, 0)
        assert v["answers"]["pares"] == [True, True, True, True]
        for seed in range(5):
            a = bot.decide(v, random.Random(seed), "fuerte")
            assert a.act in ("quiero", "no_quiero"), (hand, seed, a)


def test_it_says_mus_with_a_cut_hand_against_a_pair_read_as_cardless():
    # A pair of kings with an ace: «normal» (and «fuerte» against sensible rivals) cuts the
    # mus. Against a pair read as cardless «fuerte» plays «normal»'s rules for such a pair
    # (classic.decide(cardless_rivals=True)): its rivals discard blind, so another discard
    # round is worth more to us than to them, and only 31, duples and medias of figures cut.
    v = view(deal({0: "12o 12c 1e 5b"}, mano=0), 0)
    assert bot.decide(v, random.Random(0), "fuerte").act == "corto"
    v["history"] = {"hands": 3, "seats": [{}, _CARDLESS_HISTORY, {}, _CARDLESS_HISTORY]}
    for seed in range(3):
        assert bot.decide(v, random.Random(seed), "fuerte").act == "mus"
    duples = view(deal({0: "12o 12c 1e 1b"}, mano=0), 0)
    duples["history"] = v["history"]
    assert bot.decide(duples, random.Random(0), "fuerte").act == "corto"


def test_a_pair_that_accepts_raises_and_loses_its_shown_bets_is_read_as_cardless():
    # The pair's acts are summed (earlier hands and this one): a random pair accepts as often
    # as it refuses, raises and loses the bets that get shown; «normal» and «fuerte» refuse
    # more and say órdago. A first hand with nothing said is played by the model.
    g = play(deal({0: "4o 5c 6e 7b"}, mano=1), "1 corto", "1 envido 2")
    v = view(g, 0)
    assert not rivals_cardless(v)
    random_like = copy.deepcopy(v)
    random_like["history"] = {
        "hands": 2,
        "seats": [{}, {"quiero": 1, "raises": 1}, {}, {"quiero": 1, "shown_lost": 1}],
    }
    assert rivals_cardless(random_like)
    sensible = copy.deepcopy(v)
    sensible["history"] = {
        "hands": 5,
        "seats": [
            {},
            {"pasos": 2, "bets": 4, "big": 2, "ordagos": 1, "no_quiero": 5, "shown_won": 1},
            {},
            {"pasos": 3, "bets": 3, "big": 1, "no_quiero": 4, "quiero": 1},
        ],
    }
    assert not rivals_cardless(sensible)


def test_the_analysis_says_what_fuerte_plays_against_a_pair_read_as_cardless():
    # Against such a pair «fuerte» plays «normal»'s rules for it; the hand analysis, which
    # shows what «fuerte» would have done, must say the same (it gave the model's no quiero
    # while the bot said quiero to this envido of 2).
    for cards in ("4o 5c 6e 7b", "7o 7c 6e 5b", "1o 4c 5e 6b"):
        v = view(play(deal({0: cards}, mano=1), "1 corto", "1 envido 2"), 0)
        # (read cardless by the pair's acts, while the model's own per-seat chance stays low)
        v["history"] = {
            "hands": 2,
            "seats": [{}, {"quiero": 1, "raises": 1}, {}, {"quiero": 1, "shown_lost": 1}],
        }
        assert rivals_cardless(v)
        played = strong.analyse(v, random.Random(1), 300).action
        assert played == bot.decide(v, random.Random(1), "fuerte")
        assert played.act == "quiero"


def _after_a_first_hand(*lances: str) -> dict:
    """Seat 0's view (with the earlier hands, as the bots get it) at the start of hand 2, after
    a first hand where seat 0 cut the mus and the lances went as ``lances`` (then pasos)."""
    hands = {0: "12o 12c 7o 1o", 1: "4o 5c 6e 7b", 2: "5o 4e 6c 1c", 3: "12e 12b 11e 1b"}
    g = pass_all(play(deal(hands), "0 corto", *lances))
    return view(play(g, "0 repartir"), 0, recall=True)


def test_a_pair_whose_shown_cards_contradict_its_acts_is_read_as_cardless_after_one_hand():
    # Seat 3 passed the best grande, seat 1 bet 7 at the chica with a middling one: the
    # recuento showed it. The acts alone (history) do not flag a pair after one such hand.
    careless = _after_a_first_hand(
        "0 paso", "1 paso", "2 paso", "3 paso", "0 paso", "1 envido 7", "0 no_quiero", "2 no_quiero"
    )
    assert rivals_cardless(careless)
    without_cards = {k: v for k, v in careless.items() if k != "past"}
    assert not rivals_cardless(without_cards)
    # The same cards played by them: the best grande bet, the pair of kings bet.
    sensible = _after_a_first_hand(
        "0 paso", "1 paso", "2 paso", "3 envido 2", "0 no_quiero", "2 no_quiero",
        "0 paso", "1 paso", "2 paso", "3 paso", "0 paso", "3 envido 2", "0 no_quiero",
    )  # fmt: skip
    assert not rivals_cardless(sensible)
    assert shown_evidence(careless, 3) > 0 > shown_evidence(sensible, 3)


def test_a_seat_that_showed_no_earlier_hand_has_no_shown_evidence():
    v = view(deal({0: "4o 5c 6e 7b"}, mano=1), 0, recall=True)
    assert v["past"] == [] and shown_evidence(v, 1) == 0.0
