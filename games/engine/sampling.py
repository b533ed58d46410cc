"""Sampled deals: the other three hands drawn consistently with what one seat knows.

Used by the «fuerte» bot (``strong``) and the hand analysis (``estimate``). Everything here
reads a seat's ``view(game, seat)`` only, never a Game:

* **Hard facts**: the seat's own four cards are out of the unseen 36; the lleva / no lleva
  answers of pares and juego (announced truthfully) must hold for every sampled hand.
* **Soft evidence**, as likelihoods of what each other seat did given its sampled hand (a
  model of a sensible player, see ``LIKELIHOOD``): «corto» or «mus» in the last mus round
  (against the hand's overall strength), «paso», envido (small or big), raise, órdago, quiero
  and no quiero in each lance (against the hand's percentile in that lance). Acts the turn
  clock played say nothing; the discard counts are not used. A seat that plays «loose»
  (``classic.looseness``: órdagos and big envidos whatever its cards) has its evidence mixed
  with "anything" accordingly.

Sampling is per seat, in turn (see ``sample``). The discards of the seat itself
are not known from the view (only how many), so they are treated as unseen.
"""

from __future__ import annotations

import math
import random
from bisect import bisect_right
from collections import OrderedDict
from collections.abc import Callable
from functools import lru_cache
from itertools import accumulate
from math import comb
from typing import Any

from .cards import CODE_TO_ID, EFFECTIVE_RANK, HAND_BIT, MODES
from .classic import game_win_probability
from .evaluate import EVAL_TABLE

#: Index of each field in a ``ROWS`` entry (the engine's HandEval order).
GRANDE, CHICA, PARES, PARES_VALUE, POINTS, JUEGO, JUEGO_VALUE = range(7)
#: Lance index (grande, chica, pares, juego, punto) -> the ROWS field that decides it.
STRENGTH = (GRANDE, CHICA, PARES, JUEGO, POINTS)
LANCE_NAMES = ("grande", "chica", "pares", "juego", "punto")
LANCE_IX = {n: i for i, n in enumerate(LANCE_NAMES)}
#: Index of the overall-strength percentile in a ``pct`` row (after the five lances).
UTILITY = 5
#: Index of a lance's *upper* percentile in a ``pct`` row (``UPPER + lance``): the share of
#: the class the hand beats or ties, where the others are mid-rank. A big class of equal
#: hands (31 in juego, four reyes in 8 reyes) sits at its middle by mid-rank, but a player
#: holding one knows nothing beats it: an órdago is read on this one (``seat_facts``).
UPPER = 6
#: The acts read on the upper percentile.
ON_UPPER = ("ordago", "ordago_behind")
MAX_TRIES = 40
#: A pair whose chance to win the game is under this says órdago with less than a sure lance.
BEHIND = 0.2
#: An opening envido of more than this says «strong» louder than a small one.
BIG_BET = 4

#: key -> HandEval as a plain tuple (faster to index).
ROWS: dict[int, tuple[int, ...]] = {k: tuple(v) for k, v in EVAL_TABLE.items()}


def _counts(key: int) -> tuple[int, ...]:
    return tuple((key >> (3 * r)) & 7 for r in range(10))


def _field(f: int) -> Callable[[int], float]:
    def value(k: int) -> float:
        return float(ROWS[k][f])

    return value


def _percentile_table(mode: str) -> dict[int, tuple[float, ...]]:
    """key -> percentiles (0..1, mid-rank, full deck) per lance within the lance's class
    (pares: hands with pares, juego: with juego, punto: without juego; 0 outside it), then
    the percentile of a rough overall strength (for the mus)."""
    deck = [0] * 10
    for c in range(40):
        deck[EFFECTIVE_RANK[mode][c]] += 1
    weight: dict[int, int] = {}
    for k in EVAL_TABLE:
        w = 1
        for r, n in enumerate(_counts(k)):
            w *= comb(deck[r], n)
        if w:
            weight[k] = w

    def in_class(row: tuple[int, ...], lance: int) -> bool:
        if lance == 2:
            return row[PARES] > 0
        if lance == 3:
            return row[JUEGO] > 0
        if lance == 4:
            return row[JUEGO] == 0
        return True

    def ranks(
        value: Callable[[int], float], keys: list[int], upper: bool = False
    ) -> dict[int, float]:
        mass = sum(weight[k] for k in keys)
        out: dict[int, float] = {}
        below = 0.0
        ordered = sorted(keys, key=value)
        i = 0
        while i < len(ordered):
            v = value(ordered[i])
            j = i
            eq = 0.0
            while j < len(ordered) and value(ordered[j]) == v:
                eq += weight[ordered[j]]
                j += 1
            for k in ordered[i:j]:
                out[k] = (below + (eq if upper else eq / 2)) / mass
            below += eq
            i = j
        return out

    per_lance = []
    tops = []
    for lance in range(5):
        f = STRENGTH[lance]
        keys = [k for k in weight if in_class(ROWS[k], lance)]
        per_lance.append(ranks(_field(f), keys))
        tops.append(ranks(_field(f), keys, upper=True))

    def utility(k: int) -> float:
        row = ROWS[k]
        g, c = per_lance[0][k], per_lance[1][k]
        u = 1.5 * g * g + 1.5 * c * c
        if row[PARES]:
            p = 0.5 + 0.5 * per_lance[2][k]
            u += (row[PARES_VALUE] + 1.6) * p * p
        if row[JUEGO]:
            j = 0.6 + 0.4 * per_lance[3][k]
            u += (row[JUEGO_VALUE] + 1.8) * j * j
        else:
            u += 0.5 * per_lance[4][k] ** 2
        return u

    util = ranks(utility, list(weight))
    return {
        k: (
            *(per_lance[lance].get(k, 0.0) for lance in range(5)),
            util[k],
            *(tops[lance].get(k, 0.0) for lance in range(5)),
        )
        for k in weight
    }


#: PCT[mode][key] -> (grande, chica, pares, juego, punto, overall) mid-rank percentiles, then
#: the five lances' upper percentiles (``UPPER``).
PCT: dict[str, dict[int, tuple[float, ...]]] = {m: _percentile_table(m) for m in MODES}


def _sig(z: float) -> float:
    if z < -30:
        return 0.0
    if z > 30:
        return 1.0
    return 1 / (1 + math.exp(-z))


#: Likelihood of an act given the actor's percentile x in what it is about (a lance, or the
#: overall strength for corto/mus): a sensible player bets and cuts with strong hands and
#: passes, refuses and asks for mus with weak ones, but nothing is ever certain. Fitted to how
#: the «normal» bot plays (``P(act | percentile)`` over 1,000 of its games, docs/engine.md):
#: it opens with x > 0.65, raises and bets big with x > 0.85 and says órdago nearly only in
#: the top 5 %; the floors keep a bluff possible. A loose seat mixes these with "anything".
LIKELIHOOD: dict[str, Callable[[float], float]] = {
    "paso": lambda x: 1 - 0.95 * _sig((x - 0.68) / 0.03),
    "bet": lambda x: 0.03 + 0.97 * _sig((x - 0.66) / 0.035),
    "big": lambda x: 0.01 + 0.99 * _sig((x - 0.86) / 0.03),
    "raise": lambda x: 0.01 + 0.99 * _sig((x - 0.84) / 0.03),
    # An órdago by a pair that is not losing the game is a near-sure lance (the «normal» bot
    # wants 0.95 to 0.99 for its pair); one by a pair that is losing it (game chance under
    # ``BEHIND``) only a good hand. Read as one curve (top 3.5 %), the first made «fuerte»
    # believe in 26 % chances that won none of 33 órdagos when it was behind or even.
    "ordago": lambda x: 0.001 + 0.999 * _sig((x - 0.975) / 0.008),
    "ordago_behind": lambda x: 0.01 + 0.99 * _sig((x - 0.85) / 0.04),
    "quiero": lambda x: 0.13 + 0.87 * _sig((x - 0.6) / 0.06),
    "no_quiero": lambda x: 1 - 0.87 * _sig((x - 0.58) / 0.07),
    "corto": lambda x: 0.08 + 0.92 * _sig((x - 0.68) / 0.06),
    "mus": lambda x: 1 - 0.8 * _sig((x - 0.76) / 0.05),
    # The partner's openings and raises, read as the «fuerte» bot's own (its partner plays
    # like it, ``PARTNER``): it opens with anything (by its table, docs/engine.md, half its
    # openings with a hand below the median are envidos, and a third of its big ones),
    # passes top hands less often and raises about as often with anything.
    "partner_paso": lambda x: 0.5 - 0.37 * _sig((x - 0.8) / 0.04),
    "partner_bet": lambda x: 0.5 + 0.25 * _sig((x - 0.8) / 0.04),
    "partner_raise": lambda x: 0.05,
}
#: What the partner's acts are read as (``seat_facts``): the betting of a pair's other seat
#: says little of its cards when it bets like the «fuerte» bot, and reading it like a
#: «normal» player's made the bot count its pair far stronger than it was (it accepted raises
#: over its partner's bluffs with an estimated 50 % that won 12 %).
PARTNER = {
    "paso": "partner_paso",
    "bet": "partner_bet",
    "big": "partner_bet",
    "raise": "partner_raise",
}

#: How the «fuerte» bot assumes the *other* pair reads its own acts (``strong.read``): looser
#: than ``LIKELIHOOD`` (people believe a bet less than it deserves), and an órdago is read like
#: a big envido (a good player does not fold everything to an órdago: counting on that makes
#: bluffed órdagos look free).
READ_LIKELIHOOD: dict[str, Callable[[float], float]] = {
    "paso": lambda x: 1 - 0.85 * _sig((x - 0.8) / 0.06),
    "bet": lambda x: 0.08 + 0.92 * _sig((x - 0.62) / 0.07),
    "big": lambda x: 0.05 + 0.95 * _sig((x - 0.8) / 0.06),
    "raise": lambda x: 0.05 + 0.95 * _sig((x - 0.78) / 0.06),
    "ordago": lambda x: 0.05 + 0.95 * _sig((x - 0.8) / 0.06),
}

#: How a *cardless* player speaks (one that says things whatever its cards: the arena's random
#: player, somebody guessing): the chance of each act where it can say it. ``sample`` mixes
#: each rival's sensible reading (``LIKELIHOOD``) with this one by the chance that the rival is
#: cardless (``cardless``), which is updated by what it said this hand.
CARDLESS: dict[str, float] = {
    "paso": 0.6,
    "bet": 0.31,
    "big": 0.06,
    "ordago": 0.03,
    "ordago_behind": 0.03,
    "quiero": 0.45,
    "no_quiero": 0.4,
    "raise": 0.12,
    "mus": 0.6,
    "corto": 0.4,
}

#: One piece of evidence: (what it is, index in a PCT row).
Evidence = tuple[str, int]
#: What is known of a seat: (pares answer, juego answer) as -1 unknown / 0 no / 1 yes, the
#: evidence, and how loose the seat plays (0..1, rounded to a tenth).
SeatFacts = tuple[int, int, tuple[Evidence, ...], float]


def _answer(ans: list[bool] | None, seat: int) -> int:
    return -1 if ans is None else int(bool(ans[seat]))


def seat_facts(view: dict[str, Any], loose: list[float]) -> list[SeatFacts]:
    """What the view says about each seat's hand (the view's own seat included, unused); the
    partner's openings and raises are read as the «fuerte» bot's (``PARTNER``)."""
    partner = (view["you"]["seat"] + 2) % 4 if view.get("you") else -1
    scores = view["scores"]
    answers = view.get("answers") or {}
    pares, juego = answers.get("pares"), answers.get("juego")
    said = view["said"]
    last_disc = -1
    for i, e in enumerate(said):
        if e["act"] == "descarte":
            last_disc = i
    evidence: list[list[Evidence]] = [[], [], [], []]
    standing: dict[str, bool] = {}
    for i, e in enumerate(said):
        if e.get("by") == "clock":
            continue
        act, seat = e["act"], e["seat"]
        if act in ("mus", "corto"):
            if i > last_disc:  # the hand it spoke of is the current one
                evidence[seat].append((act, UTILITY))
            continue
        lance = e.get("lance")
        if lance is None:
            continue
        li = LANCE_IX[lance]
        if act == "envido":
            small = "big" if e["to"] > BIG_BET else "bet"
            kind = "raise" if standing.get(lance) else small
            standing[lance] = True
        elif act == "ordago":
            team = seat & 1
            behind = game_win_probability(scores[team], scores[1 - team]) < BEHIND
            kind = "ordago_behind" if behind else "ordago"
            standing[lance] = True
        else:
            kind = act
        if seat == partner:
            kind = PARTNER.get(kind, kind)
        evidence[seat].append((kind, li + UPPER if kind in ON_UPPER else li))
    return [
        (
            _answer(pares, s),
            _answer(juego, s),
            tuple(evidence[s]),
            round(min(max(loose[s], 0.0), 1.0), 1),
        )
        for s in range(4)
    ]


class _Hands:
    """The hand keys of a mode as parallel lists (index = a hand shape)."""

    __slots__ = ("deck", "juego", "keys", "pares", "parts", "pct")

    def __init__(self, mode: str) -> None:
        deck = [0] * 10
        for c in range(40):
            deck[EFFECTIVE_RANK[mode][c]] += 1
        self.deck = deck
        self.keys = sorted(PCT[mode])
        self.pct = [PCT[mode][k] for k in self.keys]
        #: per hand shape, the (rank, how many) it holds
        self.parts = [tuple((r, n) for r, n in enumerate(_counts(k)) if n) for k in self.keys]
        self.pares = [ROWS[k][PARES] > 0 for k in self.keys]
        self.juego = [ROWS[k][JUEGO] > 0 for k in self.keys]


HANDS: dict[str, _Hands] = {m: _Hands(m) for m in MODES}
#: COMB[a][b] = a choose b, for the card counts of one rank.
COMB: list[list[float]] = [[float(comb(a, b)) for b in range(9)] for a in range(9)]


@lru_cache(maxsize=512)
def _likelihoods(mode: str, kind: str, field: int, loose: float) -> list[float]:
    """Per hand shape, the likelihood of one piece of evidence."""
    f = LIKELIHOOD[kind]
    return [(1 - loose) * f(p[field]) + loose * 0.5 for p in HANDS[mode].pct]


@lru_cache(maxsize=4096)
def acceptance(mode: str, facts: SeatFacts) -> list[float]:
    """Per hand shape, the likelihood of what a seat with these ``facts`` did (0 when a lleva
    answer rules the hand out); card removal is not in it."""
    pares, juego, evidence, loose = facts
    h = HANDS[mode]
    w = [1.0] * len(h.keys)
    if pares >= 0:
        w = [x if p == bool(pares) else 0.0 for x, p in zip(w, h.pares, strict=True)]
    if juego >= 0:
        w = [x if j == bool(juego) else 0.0 for x, j in zip(w, h.juego, strict=True)]
    for kind, field in evidence:
        lik = _likelihoods(mode, kind, field, loose)
        w = [x * y for x, y in zip(w, lik, strict=True)]
    return w


@lru_cache(maxsize=1024)
def _prior(mode: str, counts: tuple[int, ...]) -> list[float]:
    """Per hand shape, how many ways the ``counts`` (cards left per rank) can deal it."""
    h = HANDS[mode]
    out = []
    for parts in h.parts:
        w = 1.0
        for r, n in parts:
            w *= COMB[counts[r]][n]
        out.append(w)
    return out


class Worlds:
    """``n`` sampled deals for one seat: ``keys[i]`` = the four hands' keys by seat."""

    __slots__ = ("cardless", "keys", "mode", "seat")

    def __init__(
        self,
        mode: str,
        seat: int,
        keys: list[tuple[int, int, int, int]],
        cardless: list[float] | None = None,
    ) -> None:
        self.mode = mode
        self.seat = seat
        self.keys = keys
        #: per seat, the chance (after this hand's acts) that it speaks whatever its cards
        self.cardless = cardless or [0.0] * 4


def sample(
    view: dict[str, Any],
    rng: random.Random,
    n: int,
    loose: list[float],
    cardless: list[float] | None = None,
) -> Worlds:
    """``n`` deals of the unseen cards consistent with ``view`` (see the module's notes).

    ``cardless``: per seat, the chance before this hand that it speaks whatever its cards
    (``CARDLESS``); a rival's hand is then drawn from the mixture (1 - q) x its sensible
    reading + q x the lleva answers alone, q updated by how well each reading explains what
    it said (``Worlds.cardless``). The partner is always read as sensible.

    Hand shapes are drawn, not cards: each other seat in turn gets a shape drawn from (the ways
    the cards the seat cannot see deal it) x (the likelihood of what that seat did), and keeps
    it with the chance that the cards the earlier seats took leave for it (rejection).
    """
    mode = view["mode"]
    h = HANDS[mode]
    seat = view["you"]["seat"]
    eff = EFFECTIVE_RANK[mode]
    bits = HAND_BIT[mode]
    counts = h.deck[:]
    mine = 0
    for c in view["you"]["cards"]:
        card = CODE_TO_ID[c]
        counts[eff[card]] -= 1
        mine += bits[card]
    prior = _prior(mode, tuple(counts))
    facts = seat_facts(view, loose)
    others = ((seat + 1) % 4, (seat + 2) % 4, (seat + 3) % 4)
    cums: list[list[float]] = []
    post = [0.0] * 4
    for s in others:
        acc = acceptance(mode, facts[s])
        q0 = cardless[s] if cardless is not None and (s - seat) % 2 else 0.0
        if q0 > 0.0:
            pares, juego, evidence, _loose = facts[s]
            told = acceptance(mode, (pares, juego, (), 0.0))
            said = 1.0
            for kind, _f in evidence:
                said *= CARDLESS.get(kind, 0.5)
            sensible = sum(a * b for a, b in zip(prior, acc, strict=True))
            blind = sum(a * b for a, b in zip(prior, told, strict=True)) * said
            mix = q0 * blind + (1 - q0) * sensible
            post[s] = q0 * blind / mix if mix > 0 else q0
            w = [
                p * ((1 - q0) * a + q0 * said * t) for p, a, t in zip(prior, acc, told, strict=True)
            ]
        else:
            w = [a * b for a, b in zip(prior, acc, strict=True)]
        if not any(w):  # nothing fits (cannot happen in a real game): drop the evidence
            w = prior
        cums.append(list(accumulate(w)))
    keys, parts = h.keys, h.parts
    last = len(keys) - 1
    rnd = rng.random
    out: list[tuple[int, int, int, int]] = []
    hand = [0, 0, 0, 0]
    hand[seat] = mine
    for _ in range(n):
        rem = counts[:]
        for j in range(3):
            cum = cums[j]
            total = cum[-1]
            i = 0
            for _try in range(MAX_TRIES):
                i = min(bisect_right(cum, rnd() * total), last)
                ratio = 1.0
                for r, m in parts[i]:
                    left = rem[r]
                    if left < m:
                        ratio = 0.0
                        break
                    if left != counts[r]:
                        ratio *= COMB[left][m] / COMB[counts[r]][m]
                if ratio >= 1.0 or rnd() < ratio:
                    break
            else:
                i = _fallback(rem, parts, rng)
            for r, m in parts[i]:
                rem[r] -= m
            hand[others[j]] = keys[i]
        out.append((hand[0], hand[1], hand[2], hand[3]))
    return Worlds(mode, seat, out, post)


def _fallback(rem: list[int], parts: list[tuple[tuple[int, int], ...]], rng: random.Random) -> int:
    """Any hand shape the cards left can deal (ignoring the evidence): only when ``MAX_TRIES``
    draws found none (practically never)."""
    fits = [i for i, p in enumerate(parts) if all(rem[r] >= m for r, m in p)]
    return rng.choice(fits)


#: The share of a sensible player's acts that ``shown_evidence`` counts as said whatever its
#: cards (a bluff, a hunch): one act against the cards must not read a sensible player as
#: cardless, a hand full of them must.
SHOWN_BLUFF = 0.15


def shown_evidence(view: dict[str, Any], seat: int) -> float:
    """Log odds, cardless : sensible, of what ``seat`` said in the earlier hands against the
    cards it showed at their recuentos (``view["past"]``, from ``view(..., recall=True)``;
    0 without it). Each act (``seat_facts``: the last mus round, the lances) is read against
    the shown hand's percentile with ``LIKELIHOOD`` (mixed with ``CARDLESS`` by
    ``SHOWN_BLUFF``) and against ``CARDLESS`` alone. A player who bets, passes, accepts and
    cuts the mus whatever it holds shows it at the first recuento; its betting alone
    (``history``) takes several hands to say the same."""
    mode = view["mode"]
    return sum(_shown_llrs(mode, past)[seat] for past in view.get("past") or ())


#: id(a ``view["past"]`` entry) -> (that entry, its ``_shown_llrs``): the view shares one
#: entry per archived hand (``view.recall_hands``), so each hand is read once.
_SHOWN_CACHE: OrderedDict[int, tuple[dict[str, Any], list[float]]] = OrderedDict()
_SHOWN_CACHE_SIZE = 4096


def _shown_llrs(mode: str, past: dict[str, Any]) -> list[float]:
    """Per seat, the log odds cardless : sensible of one earlier hand (``shown_evidence``).
    Nobody is anybody's partner here: every seat is read as a sensible player would be."""
    hit = _SHOWN_CACHE.get(id(past))
    if hit is not None and hit[0] is past:
        return hit[1]
    pct = PCT[mode]
    bits = HAND_BIT[mode]
    facts = seat_facts({"scores": past["scores"], "said": past["said"]}, [0.0] * 4)
    out: list[float] = []
    for shown, (_p, _j, evidence, _l) in zip(past["hands"], facts, strict=True):
        llr = 0.0
        if len(shown) == 4:
            row = pct[sum(bits[CODE_TO_ID[c]] for c in shown)]
            for kind, field in evidence:
                blind = CARDLESS.get(kind, 0.5)
                sensible = (1 - SHOWN_BLUFF) * LIKELIHOOD[kind](row[field]) + SHOWN_BLUFF * blind
                llr += math.log(blind / sensible)
        out.append(llr)
    _SHOWN_CACHE[id(past)] = (past, out)
    if len(_SHOWN_CACHE) > _SHOWN_CACHE_SIZE:
        _SHOWN_CACHE.popitem(last=False)
    return out
