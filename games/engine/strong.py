"""The «fuerte» bot: bets from sampled deals (docs/engine.md, "Bots").

From the seat's view only, ``sampling.sample`` draws deals of the unseen cards consistent with
what the seat knows (its cards, the lleva answers, what everybody said this hand, how loose the
opponents play). On those deals:

* **chances**: the share of deals in which the seat's pair holds the winning hand of each lance
  (``estimate.chances``);
* **option values**: every legal option of a betting decision is valued as the estimated chance
  to win the *game* after it (``classic.game_win_probability``, a race model from the score,
  with our score counted ``EDGE`` tantos higher: a game that goes on is worth more to the
  better pair), averaged over the deals. The lance's tantos (the bet, the deje, pares and
  juego, the punto) move the score; an órdago won or lost is the game. The other pair's answer
  is modelled from its own view of its chance in the deal (how our act reads, ``read``,
  against the percentile of its best eligible hand): it accepts an envido when that chance
  beats the pot odds, an órdago when it beats its chance to win the game after refusing plus
  a margin (softly, on logistic curves), never less often than ``CALL_FLOOR`` /
  ``ORDAGO_CALL_FLOOR`` (a bluff is never free) nor, for an envido, than «normal» was
  measured to (``SEEN_ACCEPT``), and answers an envido with a raise when its hand is in the
  top ``RAISE_AT`` (we then give up what we bet). A pair that may be cardless answers with
  each of its seats in the lance voting at random (``cardless_answers``). A paso is valued as
  the lance played en paso.
* **órdagos**: only with the lance chance of ``ordago_threshold`` (near-sure while the game is
  even, a good hand when it is being lost) and when worth ``ORDAGO_MARGIN`` more than anything
  else; accepting one must be worth ``ACCEPT_MARGIN`` more than refusing.
* **mus and discards** are the «normal» bot's (``classic.mus_choice``/``discard_choice``).
* **a pair read as cardless** (``rivals_cardless``: by its acts, or by its acts of the earlier
  hands against the cards it showed at their recuentos): the mus and the bets are «normal»'s
  rules for such a pair (``classic.decide(cardless_rivals=True)``), which beat it more often
  than this model does.

The option with the highest value is played (the first listed on a tie). Deterministic under
the generator; with ``rng=None`` one is seeded from the view.
"""

from __future__ import annotations

import random
from functools import lru_cache
from itertools import accumulate
from typing import Any, NamedTuple

from .actions import Action
from .classic import decide as classic_decide
from .classic import discard_choice, game_win_probability, looseness, mus_choice, ordago_time
from .sampling import (
    BIG_BET,
    CHICA,
    GRANDE,
    JUEGO,
    JUEGO_VALUE,
    LANCE_IX,
    LIKELIHOOD,
    PARES,
    PARES_VALUE,
    PCT,
    POINTS,
    READ_LIKELIHOOD,
    ROWS,
    STRENGTH,
    Worlds,
    _sig,
    sample,
    shown_evidence,
)
from .view import act_summary

__all__ = [
    "DECIDE_SAMPLES",
    "Analysis",
    "analyse",
    "analyse_chances",
    "decide",
    "lance_chances",
    "seeded_rng",
]

#: Deals sampled per decision by ``decide``.
DECIDE_SAMPLES = 300
#: Envido amounts the bot considers when opening, and how much over the bet when raising
#: (``analyse(every_amount=True)`` values every legal amount instead).
OPEN_AMOUNTS = (2, 3, 5)
RAISE_BY = (2, 3, 5)
#: The lance chance from which an opening may be 3, and 5: people open «envido» (2) and keep
#: 3-5 for strong hands (an opening of 7 with an ordinary hand was a third of the bot's
#: envites and is not how anybody plays).
STRONG_OPEN = {3: 0.75, 5: 0.9}
#: The other pair's answer model: percentile of its best hand in the lance needed to accept an
#: envido of 2 and of 10 or more (linear between), to accept an órdago, and the curve's width.
#: The other pair's answer model (see ``_values``): the margin over an even game it wants
#: before accepting an órdago, and the width of the logistic curves.
ORDAGO_CAUTION, WIDTH = 0.03, 0.06
#: The least chance that the other pair accepts an envido / an órdago whatever its cards:
#: players answer worse than the model (and some never fold), so a bluff is never free.
CALL_FLOOR, ORDAGO_CALL_FLOOR = 0.15, 0.15
#: The other pair answers our envido with a raise or an órdago when its best hand in the
#: lance is about in the top RAISE_AT (percentile), and we then give up what we bet.
RAISE_AT, RAISE_WIDTH = 0.92, 0.03
#: The least chance that a sensible pair accepts (or raises) our envido, by the percentile
#: (0..100) of its best hand in the lance: how often the «normal» bot answered a bet with
#: something else than no quiero in its measured play (``sampling.LIKELIHOOD["no_quiero"]``:
#: about 75 % from the 65th percentile up). The pot-odds model alone let a sensible rival
#: fold far more than it does, and «fuerte» raised its envidos with hands that could not
#: win (in pares, raises to 4 at an estimated 0 % were called 34 times in 36 in 200 games
#: against «normal»).
SEEN_ACCEPT = [1 - LIKELIHOOD["no_quiero"](y / 100) for y in range(101)]
#: How much more (in game-win chance) an órdago must be worth than the best other option,
#: and accepting one than refusing it.
ORDAGO_MARGIN = 0.05
#: How much more accepting an órdago must be worth than refusing it (the chance to win the
#: lance is an estimate, and the rivals' órdago says more than the sampling believes).
ACCEPT_MARGIN = 0.12
#: Tantos of score the bot counts itself better than the score says when it weighs risking
#: the game (``_values``): it plays better than most of its rivals, so a game that goes on
#: is worth more to it than an even race model says.
EDGE = 6
#: The chance, before anything is known of a rival, that it speaks whatever its cards
#: (``sampling.CARDLESS``), as log odds, and how each act of its earlier hands in
#: ``view["history"]`` moves it (per act, log odds cardless : sensible). The weights are a
#: class-balanced logistic regression on the histories of 22,348 seat-hands of «fuerte»
#: against the arena's random player, «normal» and itself (docs/journal/engine.md, «Fifth round»):
#: a random player passes, raises, bets big and accepts more; a sensible one opens with
#: envidos, says órdago, refuses and wins the bets that get shown more. (The first guesses
#: counted every envido of more than 5 as +2, and «fuerte» opens 7 often: its own kind
#: looked cardless.)
CARDLESS_PRIOR = -1.1
CARDLESS_LLR = {
    "pasos": 0.25,
    "bets": -0.43,
    "raises": 0.55,
    "big": 0.26,
    "ordagos": -0.58,
    "quiero": 0.46,
    "no_quiero": -0.4,
    "shown_won": -0.23,
    "shown_lost": 0.18,
}
#: When «fuerte» plays the mus and the bets by «normal»'s rules for a cardless pair
#: (``rivals_cardless``; ``classic.decide(cardless_rivals=True)``: rivals read as saying
#: anything, good hands bet their size, the mus cut only with the hands always cut). Those
#: rules beat the arena's random pair 96 % of the time when told it is random (this model
#: 92-93 %), so the limit is telling: each rival's ``cardless`` from ``CARDLESS_PLAY`` on,
#: or the pair's acts (earlier hands and this one, summed) scoring ``PAIR_SCORE_AT`` on
#: ``PAIR_SCORE``: a random pair accepts as often as it refuses, raises, bets that lose at
#: the showdown and hardly says órdago. On 300-game samples of decisions (docs/journal/engine.md,
#: «Seventh round») the score reaches 2 at 26 % of the decisions against random, 4.6 %
#: against «normal» and 0.5 % against «fuerte».
CARDLESS_PLAY = 0.3
PAIR_SCORE = {
    "quiero": 1.0,
    "raises": 1.5,
    "shown_lost": 1.0,
    "no_quiero": -1.0,
    "ordagos": -2.0,
    "shown_won": -1.0,
}
PAIR_SCORE_AT = 2.0
#: ... or what its two seats said in the earlier hands, read against the cards they showed at
#: those recuentos (``sampling.shown_evidence``, summed over the pair), reaches these log odds
#: cardless : sensible. At -1, on 100-game samples (docs/journal/engine.md, «Eighth round»),
#: it flags the arena's random pair at 86 % of the hands after the first, a «normal» pair at
#: 0.6 % and a «fuerte» pair at 2.7 % (its bluffs): the betting alone flagged a quarter of the
#: decisions against random.
SHOWN_AT = -1.0
#: How one cardless player answers our envido (quiero; raise or órdago; the rest is no
#: quiero) and our órdago (quiero): the arena's random player's weights.
CARDLESS_CALL, CARDLESS_RAISE, CARDLESS_ORDAGO_CALL = 0.45, 0.15, 0.45


def cardless_answers(voters: int) -> tuple[float, float, float]:
    """How a cardless *pair* with ``voters`` of its seats in the lance answers our bet:
    (accepts an envido when it does not raise, raises, accepts an órdago). Each seat votes:
    the pair refuses only when every voter refuses, and a raise beats a quiero (docs/rules.md §6.2),
    so two voters accept or raise 84 % of envidos (one: 60 %) and 70 % of órdagos (45 %)."""
    k = max(voters, 1)
    no_raise = (1 - CARDLESS_RAISE) ** k
    refuse = (1 - CARDLESS_CALL - CARDLESS_RAISE) ** k
    return (no_raise - refuse) / no_raise, 1 - no_raise, 1 - (1 - CARDLESS_ORDAGO_CALL) ** k


#: ``cardless_answers`` by the number of voters (0 to 2).
_CARDLESS_PAIR = [cardless_answers(k) for k in range(3)]


def ordago_threshold(game_chance: float) -> float:
    """The chance to win the lance an órdago of ours needs, from our chance to win the game
    now: a near-sure lance (0.95, more when ahead) while the game is even or ours; when it is
    being lost (under 0.2) a good one is enough (0.85 plus half that chance): a good player
    risks the game when the score says so, not by habit."""
    if game_chance < 0.2:
        return 0.85 + game_chance / 2
    return max(0.95, min(game_chance + 0.05, 0.99))


class Analysis(NamedTuple):
    """What ``analyse`` found: the chances per lance, the best action and every option's
    value (the estimated chance to win the game after it)."""

    chances: dict[str, float]
    action: Action
    options: list[tuple[Action, float]]


def seeded_rng(view: dict[str, Any]) -> random.Random:
    """A generator seeded from the view, for ``rng=None``: the same view, the same choice."""
    you = view["you"]
    said = ";".join(f"{e['seat']}{e['act']}{e.get('to', '')}" for e in view["said"])
    return random.Random(
        f"{view['mode']}|{view['hand_no']}|{view['scores']}|{you['seat']}|"
        f"{','.join(you['cards'])}|{said}"
    )


def _order(mano: int) -> tuple[int, int, int, int]:
    return (mano, (mano + 1) % 4, (mano + 2) % 4, (mano + 3) % 4)


def lance_chances(w: Worlds, mano: int) -> dict[str, float]:
    """Share of the deals in which the seat's pair wins each lance with its cards (see
    ``estimate.chances``)."""
    team = w.seat & 1
    order = _order(mano)
    wins = [0, 0, 0, 0]
    for keys in w.keys:
        rows = [ROWS[k] for k in keys]
        for i, f in ((0, GRANDE), (1, CHICA)):
            best, top = -1, -(10**9)
            for s in order:
                v = rows[s][f]
                if v > top:
                    best, top = s, v
            if best & 1 == team:
                wins[i] += 1
        best, top = -1, 0
        for s in order:
            v = rows[s][PARES]
            if v > top:
                best, top = s, v
        if best >= 0 and best & 1 == team:
            wins[2] += 1
        best, top = -1, 0
        for s in order:
            v = rows[s][JUEGO]
            if v > top:
                best, top = s, v
        if best < 0:  # nobody has juego: punto
            top = -1
            for s in order:
                v = rows[s][POINTS]
                if v > top:
                    best, top = s, v
        if best & 1 == team:
            wins[3] += 1
    n = max(len(w.keys), 1)
    return {name: wins[i] / n for i, name in enumerate(("grande", "chica", "pares", "juego"))}


class _Deal(NamedTuple):
    """One sampled deal as the current lance sees it."""

    win: bool  # our pair's best eligible hand wins the lance
    theirs: int  # percentile (0..100) in the lance of the other pair's best eligible hand
    ours: int  # how many of our pair play the lance (1 or 2)
    b_us: int  # tantos the lance pays our pair besides the bet (pares, juego, punto)
    b_them: int
    voters: int  # how many of the other pair play the lance (0, 1 or 2) and answer our bets


def _deals(w: Worlds, mano: int, li: int) -> list[_Deal]:
    team = w.seat & 1
    order = _order(mano)
    f = STRENGTH[li]
    pct = PCT[w.mode]
    out = []
    for keys in w.keys:
        rows = [ROWS[k] for k in keys]
        if li == 2:
            elig = [s for s in order if rows[s][PARES] > 0]
        elif li == 3:
            elig = [s for s in order if rows[s][JUEGO] > 0]
        else:
            elig = list(order)
        best, top = -1, -(10**9)
        theirs = 0.0
        ours = 0
        voters = 0
        for s in elig:
            v = rows[s][f]
            if v > top:
                best, top = s, v
            if s & 1 != team:
                theirs = max(theirs, pct[keys[s]][li])
                voters += 1
            else:
                ours += 1
        if li == 2:
            b = [rows[t][PARES_VALUE] + rows[t + 2][PARES_VALUE] for t in (0, 1)]
        elif li == 3:
            b = [rows[t][JUEGO_VALUE] + rows[t + 2][JUEGO_VALUE] for t in (0, 1)]
        elif li == 4:
            b = [1, 1]
        else:
            b = [0, 0]
        out.append(
            _Deal(
                best >= 0 and best & 1 == team,
                round(theirs * 100),
                max(ours, 1),
                b[team],
                b[1 - team],
                voters,
            )
        )
    return out


@lru_cache(maxsize=16)
def read(kind: str, ours: int) -> list[float]:
    """How the other pair reads our act ``kind`` (``sampling.READ_LIKELIHOOD``) when ``ours`` of us
    play the lance: for its best hand at percentile y (0..100), the chance that our best hand
    is below it, our best being the best of ``ours`` uniform percentiles weighted by the
    likelihood of the act."""
    f = READ_LIKELIHOOD[kind]
    steps = 400
    dens = []
    for i in range(steps):
        x = (i + 0.5) / steps
        dens.append(f(x) * ours * x ** (ours - 1))
    total = sum(dens)
    cum = [0.0, *accumulate(dens)]
    return [cum[round(y * steps / 100)] / total for y in range(101)]


def _values(
    deals: list[_Deal],
    us: int,
    them: int,
    li: int,
    bet: dict[str, Any] | None,
    deje: int,
    options: list[Action],
    cardless: float = 0.0,
) -> list[float]:
    """Each option's estimated chance to win the game, averaged over the deals.

    The other pair reads our bet as we read theirs (``read``): its chance to win is the share
    of our hands, weighted by the likelihood of our act, below its best. Refusing costs it what
    stands (1 for an opening bet). It accepts an envido to N when that chance beats the pot
    odds (N - standing) / 2N, an órdago when it beats its chance to win the game after refusing
    plus ``ORDAGO_CAUTION``; both softly, on logistic curves of width ``WIDTH``, and at least
    ``CALL_FLOOR`` / ``ORDAGO_CALL_FLOOR`` of the time. With its best hand in about the top
    ``RAISE_AT`` it raises an envido instead, and we give up what we bet. With the chance
    ``cardless`` the other pair answers whatever its cards, every voter at random
    (``cardless_answers``).
    """
    q = cardless
    # Game chances after our pair gains x tantos, or theirs does (never both in one lance),
    # counting our EDGE: a game that goes on is worth more to us than to an even pair, so
    # the game is risked on an órdago (ours or theirs) only for a clearly better chance.
    e = min(us + EDGE, 39) if us < 40 else us
    up = [game_win_probability(e + x, them) for x in range(100)]
    down = [game_win_probability(e, them + x) for x in range(100)]
    paso_bonus = 1 if li in (0, 1) else 0  # grande/chica en paso pay 1 to the winner
    n = max(len(deals), 1)
    ordago_bet = bet is not None and bool(bet["ordago"])
    amount = int(bet["amount"]) if bet is not None else 0
    standing = max(amount, 1)
    out = []
    for a in options:
        acc = 0.0
        act = a.act
        if act == "paso":
            for d in deals:
                acc += up[d.b_us + paso_bonus] if d.win else down[d.b_them + paso_bonus]
        elif act == "no_quiero":
            for d in deals:
                acc += down[deje + d.b_them]
        elif act == "quiero":
            for d in deals:
                if ordago_bet:
                    acc += 1.0 if d.win else 0.0
                else:
                    acc += up[amount + d.b_us] if d.win else down[amount + d.b_them]
        elif act == "ordago":
            tables = (read("ordago", 1), read("ordago", 2))
            for d in deals:
                refused = up[standing + d.b_us]
                chance = tables[d.ours - 1][d.theirs]
                pa = _sig((chance - (1 - refused + ORDAGO_CAUTION)) / WIDTH)
                pa = ORDAGO_CALL_FLOOR + (1 - ORDAGO_CALL_FLOOR) * pa
                pa = (1 - q) * pa + q * _CARDLESS_PAIR[d.voters][2]
                acc += (1 - pa) * refused + (pa if d.win else 0.0)
        else:  # envido
            to = a.to or 0
            kind = "raise" if bet is not None else ("big" if to > BIG_BET else "bet")
            tables = (read(kind, 1), read(kind, 2))
            need = (to - standing) / (2 * to)
            for d in deals:
                refused = up[standing + d.b_us]
                pa = _sig((tables[d.ours - 1][d.theirs] - need) / WIDTH)
                pa = max(CALL_FLOOR + (1 - CALL_FLOOR) * pa, SEEN_ACCEPT[d.theirs])
                shown = up[to + d.b_us] if d.win else down[to + d.b_them]
                pr = _sig((d.theirs / 100 - RAISE_AT) / RAISE_WIDTH) if to < 40 else 0.0
                if q:
                    c_accept, c_raise, _c = _CARDLESS_PAIR[d.voters]
                    pa = (1 - q) * pa + q * c_accept
                    pr = (1 - q) * pr + q * c_raise
                acc += (1 - pr) * ((1 - pa) * refused + pa * shown) + pr * down[to + d.b_them]
        out.append(acc / n)
    return out


def _options(
    legal: dict[str, dict[str, Any]], seat: int, bet: dict[str, Any] | None, every_amount: bool
) -> list[Action]:
    out: list[Action] = []
    for act in ("paso", "quiero", "no_quiero"):
        if act in legal:
            out.append(Action(seat, act))
    env = legal.get("envido")
    if env is not None:
        lo, hi = env["min"], env["max"]
        if every_amount:
            amounts = list(range(lo, hi + 1))
        elif bet is None:
            amounts = [x for x in OPEN_AMOUNTS if lo <= x <= hi]
        else:
            amounts = sorted(
                {min(hi, bet["amount"] + k) for k in RAISE_BY if bet["amount"] + k >= lo}
            )
        out.extend(Action(seat, "envido", to=x) for x in amounts)
    if "ordago" in legal:
        out.append(Action(seat, "ordago"))
    return out


def _deje(view: dict[str, Any], lance: str) -> int:
    """What refusing the standing bet pays the bettors: the total that stood before it (an
    envido over a bet says how much ``more`` it put over what stood)."""
    bet = view["bet"]
    if bet is None:
        return 1
    if bet["ordago"]:
        return max(int(bet["amount"]), 1)
    prev = 0
    for e in view["said"]:
        if e.get("lance") == lance and e["act"] == "envido" and e["to"] == bet["amount"]:
            prev = e["to"] - e.get("more", e["to"])
    return max(prev, 1)


def _choose(
    view: dict[str, Any], worlds: Worlds, every_amount: bool
) -> tuple[Action, list[tuple[Action, float]]]:
    """The best betting option on these deals, and the options' values."""
    you = view["you"]
    seat = you["seat"]
    legal = {d["act"]: d for d in you["legal"]}
    lance = view["lance"]
    li = LANCE_IX[lance]
    bet = view["bet"]
    deals = _deals(worlds, view["mano"], li)
    scores = view["scores"]
    us, them = scores[seat & 1], scores[1 - (seat & 1)]
    deje = _deje(view, lance)
    considered = _options(legal, seat, bet, False)
    # One envido per pair and lance: after ours was raised, only quiero, no quiero or órdago
    # (no raise wars: the bigger the pot, the less a refusal is worth to anybody).
    team = seat & 1
    if any(
        e.get("lance") == lance and e["act"] == "envido" and e["seat"] & 1 == team
        for e in view["said"]
    ):
        considered = [a for a in considered if a.act != "envido"]
    chance = sum(d.win for d in deals) / max(len(deals), 1)
    if bet is None:
        considered = [
            a for a in considered if a.act != "envido" or chance >= STRONG_OPEN.get(a.to or 0, 0.0)
        ]
    # The other pair answers our bets: how likely it is to answer whatever its cards.
    q = max(worlds.cardless[(seat + 1) % 4], worlds.cardless[(seat + 3) % 4])
    values = _values(deals, us, them, li, bet, deje, considered, q)
    # An órdago must beat every other option by ORDAGO_MARGIN (the game is not risked on a
    # sampling error or a guess of how the others answer), and needs the lance chance of
    # ``ordago_threshold``, at a score at which people say it (``classic.ordago_time``): never
    # a bluff, never by habit.
    allowed = (
        ordago_time(us, them)
        and chance >= ordago_threshold(game_win_probability(us, them))
        # One órdago of our pair a hand: refused, it is not said again lance after lance.
        and not any(e["act"] == "ordago" and e["seat"] & 1 == team for e in view["said"])
    )
    penalty = ORDAGO_MARGIN if allowed else 1.0
    if bet is not None and bet["ordago"]:  # accepting one needs a margin too
        penalty, risky = ACCEPT_MARGIN, "quiero"
    else:
        risky = "ordago"
    best = max(
        range(len(considered)),
        key=lambda i: (values[i] - (penalty if considered[i].act == risky else 0), -i),
    )
    if not every_amount:
        return considered[best], list(zip(considered, values, strict=True))
    every = _options(legal, seat, bet, True)
    every_values = _values(deals, us, them, li, bet, deje, every, q)
    return considered[best], list(zip(every, every_values, strict=True))


def _fixed(view: dict[str, Any]) -> Action | None:
    """The action when no bet is to be decided: repartir, the mus, the discards."""
    you = view.get("you")
    if not you or not you.get("legal"):
        raise ValueError("this seat has nothing to decide")
    seat = you["seat"]
    legal = {d["act"] for d in you["legal"]}
    if "repartir" in legal:
        return Action(seat, "repartir")
    if "mus" in legal:
        return Action(seat, mus_choice(view, rivals_cardless(view)))
    if "descarte" in legal:
        return Action(seat, "descarte", cards=discard_choice(view))
    return None


def _loose(view: dict[str, Any]) -> list[float]:
    """How loose each seat plays, from the earlier hands (``classic.looseness``, whose prior
    is suspicious: one órdago makes a seat even odds; here half of that counts as sensible)."""
    return [max(0.0, 2 * x - 1) for x in looseness(view, this_hand=False)]


def cardless(view: dict[str, Any]) -> list[float]:
    """Per seat, the chance that it speaks whatever its cards, from the earlier hands
    (``CARDLESS_PRIOR``, ``CARDLESS_LLR``); ``sampling.sample`` updates it with this hand."""
    seats = (view.get("history") or {}).get("seats") or [{}, {}, {}, {}]
    out = []
    for counts in seats:
        x = CARDLESS_PRIOR
        for k, w in CARDLESS_LLR.items():
            x += w * counts.get(k, 0)
        out.append(_sig(x))
    return out


def rivals_cardless(view: dict[str, Any]) -> bool:
    """Whether the rivals read as a pair that speaks whatever its cards, so that «fuerte»
    plays «normal»'s rules for such a pair (``classic.decide(cardless_rivals=True)``): their
    acts of the earlier hands and of this one, summed over the pair, score at least
    ``PAIR_SCORE_AT`` on ``PAIR_SCORE``, or their acts of the earlier hands against the cards
    they showed (``view["past"]``) reach ``SHOWN_AT``, or each rival's ``cardless`` is at
    least ``CARDLESS_PLAY``."""
    seat: int = view["you"]["seat"]
    rivals = ((seat + 1) % 4, (seat + 3) % 4)
    past = (view.get("history") or {}).get("seats") or [{}, {}, {}, {}]
    now = act_summary((e["seat"], e["act"], e.get("to"), e.get("lance")) for e in view["said"])
    score = 0.0
    for r in rivals:
        for k, w in PAIR_SCORE.items():
            score += w * (past[r].get(k, 0) + now[r].get(k, 0))
    if score >= PAIR_SCORE_AT:
        return True
    # (Before any hand was shown there is no evidence, not evidence of 0: SHOWN_AT is below 0.)
    if shown_cardless(view):
        return True
    c = cardless(view)
    return bool(min(c[r] for r in rivals) >= CARDLESS_PLAY)


def _worlds(view: dict[str, Any], rng: random.Random, samples: int) -> Worlds:
    """``samples`` deals for the view's seat, each rival read as loose and as cardless as the
    game so far says: the bot and the analysis sample alike."""
    return sample(view, rng, samples, _loose(view), cardless(view))


def analyse_chances(view: dict[str, Any], rng: random.Random, samples: int) -> dict[str, float]:
    """``lance_chances`` on ``samples`` deals for the view's seat."""
    return lance_chances(_worlds(view, rng, samples), view["mano"])


def analyse(
    view: dict[str, Any], rng: random.Random, samples: int, every_amount: bool = False
) -> Analysis:
    """Chances, the chosen action and the options' values for the view's seat (no options
    outside the betting: the mus and the discards are not valued)."""
    fixed = _fixed(view)
    worlds = _worlds(view, rng, samples)
    chances = lance_chances(worlds, view["mano"])
    if fixed is not None:
        return Analysis(chances, fixed, [])
    action, options = _choose(view, worlds, every_amount)
    # What «fuerte» plays, as `decide` does (without that rule's rare random bluff); the
    # options keep the model's values.
    played = _against_cardless(view, None)
    return Analysis(chances, action if played is None else played, options)


def _against_cardless(view: dict[str, Any], rng: random.Random | None) -> Action | None:
    """«normal»'s rules for a pair read as cardless (``rivals_cardless``), or None; with
    near-sure órdagos at any score when the cards it showed say so (``shown_cardless``)."""
    if rivals_cardless(view):
        return classic_decide(view, rng, cardless_rivals=True, shown_cardless=shown_cardless(view))
    return None


def shown_cardless(view: dict[str, Any]) -> bool:
    """Whether the rivals' acts of the earlier hands, against the cards they showed at those
    recuentos, reach ``SHOWN_AT`` over the pair."""
    seat: int = view["you"]["seat"]
    rivals = ((seat + 1) % 4, (seat + 3) % 4)
    return bool(view.get("past")) and sum(shown_evidence(view, r) for r in rivals) >= SHOWN_AT


def decide(view: dict[str, Any], rng: random.Random | None = None) -> Action:
    """The «fuerte» bot's action for the view's seat."""
    fixed = _fixed(view)
    if fixed is not None:
        return fixed
    if rng is None:
        rng = seeded_rng(view)
    played = _against_cardless(view, rng)
    if played is not None:
        return played
    worlds = _worlds(view, rng, DECIDE_SAMPLES)
    return _choose(view, worlds, False)[0]
