"""Sampled deals: the other three hands drawn consistently with what one seat knows.

Used by the «fuerte» bot (``strong``) and the hand analysis (``estimate``). Everything here
reads a seat's ``view(game, seat)`` only, never a Game:

* **Hard facts**: the seat's own four cards are out of the unseen 36; the lleva / no lleva
  answers of pares and juego (announced truthfully) must hold for every sampled hand.
* **Soft evidence**, as likelihoods of what each other seat did given its sampled hand (a
  model of a sensible player, see ``LIKELIHOOD``): «corto» or «mus» in the last mus round
  (against the hand's overall strength), «paso», envido, raise, órdago, quiero and no quiero
  in each lance (against the hand's percentile in that lance). Acts the turn clock played say
  nothing; the discard counts are not used. A seat that plays «loose»
  (``classic.looseness``: órdagos and big envidos whatever its cards) has its evidence mixed
  with "anything" accordingly.

Sampling is per seat, in turn, from the cards left: four cards are drawn and accepted with
probability equal to their likelihood (relative to the best hand's), retried up to
``MAX_TRIES`` times (the most likely hand seen is kept then). The discards of the seat itself
are not known from the view (only how many), so they are treated as unseen.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from functools import lru_cache
from math import comb
from typing import Any

from .cards import CODE_TO_ID, EFFECTIVE_RANK, HAND_BIT, MODES
from .evaluate import EVAL_TABLE

#: Index of each field in a ``ROWS`` entry (the engine's HandEval order).
GRANDE, CHICA, PARES, PARES_VALUE, POINTS, JUEGO, JUEGO_VALUE = range(7)
#: Lance index (grande, chica, pares, juego, punto) -> the ROWS field that decides it.
STRENGTH = (GRANDE, CHICA, PARES, JUEGO, POINTS)
LANCE_NAMES = ("grande", "chica", "pares", "juego", "punto")
LANCE_IX = {n: i for i, n in enumerate(LANCE_NAMES)}
#: Index of the overall-strength percentile in a ``pct`` row (after the five lances).
UTILITY = 5
MAX_TRIES = 40

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

    def ranks(value: Callable[[int], float], keys: list[int]) -> dict[int, float]:
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
                out[k] = (below + eq / 2) / mass
            below += eq
            i = j
        return out

    per_lance = []
    for lance in range(5):
        f = STRENGTH[lance]
        keys = [k for k in weight if in_class(ROWS[k], lance)]
        per_lance.append(ranks(_field(f), keys))

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
    return {k: (*(per_lance[lance].get(k, 0.0) for lance in range(5)), util[k]) for k in weight}


#: PCT[mode][key] -> (grande, chica, pares, juego, punto, overall) percentiles.
PCT: dict[str, dict[int, tuple[float, ...]]] = {m: _percentile_table(m) for m in MODES}


def _sig(z: float) -> float:
    if z < -30:
        return 0.0
    if z > 30:
        return 1.0
    return 1 / (1 + math.exp(-z))


#: Likelihood of an act given the actor's percentile x in what it is about (a lance, or the
#: overall strength for corto/mus): a sensible player bets and cuts with strong hands and
#: passes, refuses and asks for mus with weak ones, but nothing is ever certain.
LIKELIHOOD: dict[str, Callable[[float], float]] = {
    "paso": lambda x: 1 - 0.85 * _sig((x - 0.8) / 0.06),
    "bet": lambda x: 0.08 + 0.92 * _sig((x - 0.62) / 0.07),
    "raise": lambda x: 0.05 + 0.95 * _sig((x - 0.78) / 0.06),
    "ordago": lambda x: 0.02 + 0.98 * _sig((x - 0.9) / 0.04),
    "quiero": lambda x: 0.15 + 0.85 * _sig((x - 0.55) / 0.08),
    "no_quiero": lambda x: 1 - 0.85 * _sig((x - 0.6) / 0.08),
    "corto": lambda x: 0.08 + 0.92 * _sig((x - 0.68) / 0.06),
    "mus": lambda x: 1 - 0.8 * _sig((x - 0.76) / 0.05),
}

#: One piece of evidence: (what it is, index in a PCT row).
Evidence = tuple[str, int]
#: What is known of a seat: (pares answer, juego answer) as -1 unknown / 0 no / 1 yes, the
#: evidence, and how loose the seat plays (0..1, rounded to a tenth).
SeatFacts = tuple[int, int, tuple[Evidence, ...], float]


def _answer(ans: list[bool] | None, seat: int) -> int:
    return -1 if ans is None else int(bool(ans[seat]))


def seat_facts(view: dict[str, Any], loose: list[float]) -> list[SeatFacts]:
    """What the view says about each seat's hand (the view's own seat included, unused)."""
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
            kind = "raise" if standing.get(lance) else "bet"
            standing[lance] = True
        elif act == "ordago":
            kind = "ordago"
            standing[lance] = True
        else:
            kind = act
        evidence[seat].append((kind, li))
    return [
        (
            _answer(pares, s),
            _answer(juego, s),
            tuple(evidence[s]),
            round(min(max(loose[s], 0.0), 1.0), 1),
        )
        for s in range(4)
    ]


@lru_cache(maxsize=4096)
def acceptance(mode: str, facts: SeatFacts) -> dict[int, float]:
    """key -> probability of accepting that hand for a seat with these facts (0 when a lleva
    answer rules it out), normalised so the likeliest hand has 1."""
    pares, juego, evidence, loose = facts
    pct = PCT[mode]
    out: dict[int, float] = {}
    for key, p in pct.items():
        row = ROWS[key]
        if pares >= 0 and (row[PARES] > 0) != bool(pares):
            continue
        if juego >= 0 and (row[JUEGO] > 0) != bool(juego):
            continue
        w = 1.0
        for kind, field in evidence:
            w *= (1 - loose) * LIKELIHOOD[kind](p[field]) + loose * 0.5
        out[key] = w
    top = max(out.values()) if out else 1.0
    return {k: w / top for k, w in out.items()}


class Worlds:
    """``n`` sampled deals for one seat: ``keys[i]`` = the four hands' keys by seat."""

    __slots__ = ("keys", "mode", "seat")

    def __init__(self, mode: str, seat: int, keys: list[tuple[int, int, int, int]]) -> None:
        self.mode = mode
        self.seat = seat
        self.keys = keys


def sample(view: dict[str, Any], rng: random.Random, n: int, loose: list[float]) -> Worlds:
    """``n`` deals of the unseen cards consistent with ``view`` (see the module's notes)."""
    mode = view["mode"]
    seat = view["you"]["seat"]
    bits = HAND_BIT[mode]
    own = [CODE_TO_ID[c] for c in view["you"]["cards"]]
    mine = bits[own[0]] + bits[own[1]] + bits[own[2]] + bits[own[3]]
    owned = set(own)
    unseen = [c for c in range(40) if c not in owned]
    facts = seat_facts(view, loose)
    others = [(seat + i) % 4 for i in (1, 2, 3)]
    accept = [acceptance(mode, facts[s]) for s in others]
    rnd = rng.random
    out: list[tuple[int, int, int, int]] = []
    for _ in range(n):
        pool = unseen[:]
        size = len(pool)
        hand_keys = [0, 0, 0, 0]
        hand_keys[seat] = mine
        for j in range(3):
            table = accept[j]
            best_key, best_p = -1, -1.0
            start = 36 - size
            for _try in range(MAX_TRIES):
                key = 0
                for i in range(start, start + 4):
                    k = i + int(rnd() * (size - (i - start)))
                    pool[i], pool[k] = pool[k], pool[i]
                    key += bits[pool[i]]
                p = table.get(key, 0.0)
                if p > best_p:
                    best_key, best_p = key, p
                if p >= 1.0 or rnd() < p:
                    best_key = key
                    break
            if best_p <= 0.0:  # no consistent hand found: take one from the table
                best_key = _fallback(table, rng)
            hand_keys[others[j]] = best_key
            size -= 4
        out.append((hand_keys[0], hand_keys[1], hand_keys[2], hand_keys[3]))
    return Worlds(mode, seat, out)


def _fallback(table: dict[int, float], rng: random.Random) -> int:
    """A hand drawn from the acceptance table itself (ignoring card removal): only when
    ``MAX_TRIES`` draws found no hand that fits the lleva answers (practically never)."""
    keys = sorted(table)
    if not keys:
        return next(iter(ROWS))
    return rng.choices(keys, weights=[table[k] for k in keys])[0]
