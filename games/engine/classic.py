"""The «normal» Mus bot: plays from one seat's view only (docs/engine.md, "Bots").

    decide(view(game, seat), rng) -> Action

``games.engine.bot`` chooses between the levels; this module is the «normal» level (the bot
of issue #11, unchanged), and its mus and discard choices are reused by «fuerte».

The bot sees exactly what a player sees (its own cards, what was said this hand, the automatic
lleva / no lleva answers, the bet on the table, how many cards everybody changed, the scores,
the mano, the lance and the public summary of the game's earlier hands) and never looks at a
Game. It uses the cards, the speaking order, what was said (mus rounds, bets, answers), the
lleva answers (who plays pares and juego), the scores and ``view["history"]``; the number of
cards the others changed is not used yet.

How it plays
------------
* **Hand strength per lance.** For every one of the (at most) 715 rank multisets a hand can be,
  and for every lance, the bot knows how the hand ranks among all other hands the remaining 36
  cards can make (card removal included: holding two reyes makes a rey less likely elsewhere).
  Pares, juego and punto are ranked within their own class (hands with pares, with juego,
  without juego), because only those hands play the lance. The numbers come from the engine's
  own evaluation table (``evaluate.EVAL_TABLE``), computed the first time a hand shape is seen
  (about 0.2 ms) and cached; everything else is built at import (about 0.2 s for both modes).
* **Team win probability.** Every other eligible player is modelled as a percentile, uniform in
  a range that what they did narrows: a bet or a raise says "strong", a paso says "not a
  monster", a no quiero says "weak". The partner counts too. Ties go to whoever speaks first,
  so the same cards are worth more as mano than as postre.
* **Mus.** A hand utility (a rough expected-tantos figure over the four lances, precomputed per
  hand) decides: corto with a good hand (31, duples, medias, strong grande with reyes, ...),
  mus otherwise. Position, the first hand's corto-makes-mano rule, what the others said and the
  number of discard rounds already played move the threshold.
* **Discards.** The bot keeps the subset of its cards (0 to 3 of them) whose expected utility
  after drawing is the highest: that keeps reyes and pares and draws towards 31, or towards
  chica with small cards, whichever pays more.
* **Bets.** Open when the team win probability is high enough for that lance, bigger when very
  strong; answer by comparing the game-winning chances after accepting and after refusing
  (so a bet that could end the game is treated as such); raise with a clearly winning hand.
  Órdagos only with a (near) sure lance, or a good one when the game is being lost anyway; an
  órdago is accepted when the chance to win the lance beats the chance to win the game after
  refusing. A rare small bluff (driven by ``rng``) keeps it from being fully predictable.
* **Loose opponents.** Each opponent's chance of playing "loose" (saying things regardless of
  its cards, like a uniformly random player) comes from what it said this hand and in the
  earlier hands (``view["history"]``): órdagos and big envidos raise it, pasos and small bets
  lower it. A loose opponent's range is mixed with "anything" accordingly, accepting and
  refusing count the team's edge over it (refusing its blind órdago costs a tanto, not the
  game), a loose team's órdago is accepted a little more readily, and bets against it are
  the smallest.

Everything is deterministic given ``rng`` (None: no bluffs at all).
"""

from __future__ import annotations

import math
import random
from bisect import bisect_left, bisect_right
from collections.abc import Callable
from functools import lru_cache
from itertools import combinations, combinations_with_replacement
from math import comb
from typing import Any

from .actions import Action
from .cards import CODE_TO_ID, EFFECTIVE_RANK, HAND_BIT, MODES
from .evaluate import EVAL_TABLE, HandEval
from .view import act_summary

__all__ = [
    "ORDAGO_BEHIND",
    "ORDAGO_DESPERATE",
    "ORDAGO_LATE",
    "credibility",
    "decide",
    "discard_choice",
    "game_win_probability",
    "hand_info",
    "looseness",
    "mus_choice",
    "ordago_time",
]

LANCE_NAMES = ("grande", "chica", "pares", "juego", "punto")
_LANCE_IX = {name: i for i, name in enumerate(LANCE_NAMES)}

# -- per-mode tables ----------------------------------------------------------------------------

#: A hand's standing against the other hands: per lance (below, equal), the shares of hands
#: beneath and level with it within the lance's class, then P(pares) and P(juego) of another
#: hand.
Percentiles = tuple[tuple[tuple[float, float], ...], float, float]


def _counts(key: int) -> tuple[int, ...]:
    return tuple((key >> (3 * r)) & 7 for r in range(10))


def _strengths(ev: HandEval) -> tuple[int, int, int, int, int]:
    """The number that decides each lance (higher wins), as the engine compares them."""
    return (ev.grande, ev.chica, ev.pares, ev.juego, ev.points)


class _Tables:
    """Everything the bot knows about the hands of one mode (built at import; the
    card-removal percentiles are filled in per hand shape on first use)."""

    def __init__(self, mode: str) -> None:
        deck = [0] * 10
        for c in range(40):
            deck[EFFECTIVE_RANK[mode][c]] += 1
        self.mode = mode
        self.deck = tuple(deck)
        keys = [k for k in EVAL_TABLE if all(n <= deck[r] for r, n in enumerate(_counts(k)))]
        self.keys = keys
        #: key -> [(rank, count)] of the ranks the hand holds
        self.parts = {k: [(r, n) for r, n in enumerate(_counts(k)) if n] for k in keys}
        self.strength = {k: _strengths(EVAL_TABLE[k]) for k in keys}
        self.w_all = [self._weight(k, self.deck) for k in keys]
        self.w_float = [float(x) for x in self.w_all]
        #: rank -> [(index of a key holding it, how many)]
        self.by_rank: list[list[tuple[int, int]]] = [[] for _ in range(10)]
        for i, k in enumerate(keys):
            for r, n in self.parts[k]:
                self.by_rank[r].append((i, n))
        # Per lance: indexes of the hands that play it (pares: with pares, juego: with juego,
        # punto: without juego), sorted by strength, and those strengths for bisecting.
        self.order: list[list[int]] = []
        self.sorted_strength: list[list[int]] = []
        for lance in range(5):
            idx = [i for i, k in enumerate(keys) if self._plays(self.strength[k], lance)]
            of_lance = [self.strength[k][lance] for k in keys]
            idx.sort(key=of_lance.__getitem__)
            self.order.append(idx)
            self.sorted_strength.append([self.strength[keys[i]][lance] for i in idx])
        #: key -> (((below, equal) per lance), P(other hand has pares), P(... has juego)),
        #: against the 36 cards the hand leaves (card removal included); filled on first use
        #: (under a millisecond per hand shape).
        self.pct: dict[int, Percentiles] = {}
        # The hand utility uses the full deck so that it can be compared across hands.
        full = self._all_percentiles()
        self.utility = {k: self._utility(k, full[k]) for k in keys}
        # Utility percentile of every hand among all hands, for the mus decision.
        total = sum(self.w_all)
        self.utility_pct: dict[int, float] = {}
        acc = 0.0
        for i in sorted(range(len(keys)), key=lambda i: self.utility[keys[i]]):
            w = self.w_all[i] / total
            self.utility_pct[keys[i]] = acc + w / 2
            acc += w
        #: keep key (0..3 cards) -> expected utility after drawing the rest
        self.keep: dict[int, float] = {}
        for n_keep in range(4):
            for ranks in combinations_with_replacement(range(10), n_keep):
                if all(ranks.count(r) <= deck[r] for r in ranks):
                    self.keep[sum(1 << (3 * r) for r in ranks)] = self._keep_value(ranks)

    @staticmethod
    def _plays(s: tuple[int, ...], lance: int) -> bool:
        if lance == 2:
            return s[2] > 0
        if lance == 3:
            return s[3] > 0
        if lance == 4:
            return s[3] == 0
        return True

    def _weight(self, key: int, deck: tuple[int, ...] | list[int]) -> int:
        w = 1
        for r, n in self.parts[key]:
            w *= comb(deck[r], n)
        return w

    def _removed(self, key: int) -> list[float]:
        """Weights of every other hand once this hand's cards are out of the deck."""
        w = self.w_float[:]
        for r, mine in self.parts[key]:
            d = self.deck[r]
            factor = [comb(d - mine, n) / comb(d, n) for n in range(5) if n <= d]
            for i, n in self.by_rank[r]:
                w[i] *= factor[n]
        return w

    def _percentiles(self, key: int, w: list[float] | list[int]) -> Percentiles:
        """(below, equal) per lance within the lance's class, P(pares), P(juego)."""
        mine = self.strength[key]
        get = w.__getitem__
        total = sum(w)
        pares = sum(map(get, self.order[2]))
        juego = sum(map(get, self.order[3]))
        masses = (total, total, pares, juego, total - juego)
        out = []
        for lance in range(5):
            order = self.order[lance]
            ss = self.sorted_strength[lance]
            lo = bisect_left(ss, mine[lance])
            hi = bisect_right(ss, mine[lance])
            equal = sum(map(get, order[lo:hi]))
            if lo < len(order) - hi:  # sum the shorter side
                below = sum(map(get, order[:lo]))
            else:
                below = masses[lance] - equal - sum(map(get, order[hi:]))
            out.append((max(below, 0.0) / masses[lance], equal / masses[lance]))
        return (tuple(out), pares / total, juego / total)

    def _all_percentiles(self) -> dict[int, Percentiles]:
        """``_percentiles`` of every hand against the full deck, in one sweep per lance."""
        w = self.w_all
        keys = self.keys
        per_lance: list[dict[int, tuple[float, float]]] = []
        masses = []
        for lance in range(5):
            order = self.order[lance]
            mass = sum(w[i] for i in order)
            masses.append(mass)
            table: dict[int, tuple[float, float]] = {}
            acc = 0
            j = 0
            while j < len(order):
                s = self.strength[keys[order[j]]][lance]
                eq = 0
                while j < len(order) and self.strength[keys[order[j]]][lance] == s:
                    eq += w[order[j]]
                    j += 1
                table[s] = (acc / mass, eq / mass)
                acc += eq
            per_lance.append(table)
        total = masses[3] + masses[4]
        out = {}
        for k in keys:
            st = self.strength[k]
            out[k] = (
                tuple(per_lance[lance].get(st[lance], (0.0, 0.0)) for lance in range(5)),
                masses[2] / total,
                masses[3] / total,
            )
        return out

    def percentiles(self, key: int) -> Percentiles:
        got = self.pct.get(key)
        if got is None:
            got = self.pct[key] = self._percentiles(key, self._removed(key))
        return got

    def _utility(self, key: int, pct: Percentiles) -> float:
        """A rough expected-tantos figure of a hand, used for mus and discards."""
        (g, c, pa, ju, pu), p_pares, p_juego = pct
        ev = EVAL_TABLE[key]
        grande = g[0] + g[1] / 2
        chica = c[0] + c[1] / 2
        u = 1.5 * grande**2 + 1.5 * chica**2
        if ev.pares:
            beat = (1 - p_pares) + p_pares * (pa[0] + pa[1] / 2)
            u += (ev.pares_value + 1.6) * beat**2
        if ev.juego:
            beat = (1 - p_juego) + p_juego * (ju[0] + ju[1] / 2)
            u += (ev.juego_value + 1.8) * beat**2
        else:
            punto = pu[0] + pu[1] / 2
            u += 1.5 * punto**2 * (1 - p_juego) ** 3
        return u

    def _keep_value(self, kept: tuple[int, ...]) -> float:
        """Expected utility after keeping cards of these ranks and drawing the rest."""
        rest = list(self.deck)
        keep = 0
        for r in kept:
            rest[r] -= 1
            keep += 1 << (3 * r)
        draw = 4 - len(kept)
        total = comb(sum(rest), draw)
        ev = 0.0
        for ranks in combinations_with_replacement(range(10), draw):
            w = 1
            for r in set(ranks):
                w *= comb(rest[r], ranks.count(r))
            if w:
                ev += w * self.utility[keep + sum(1 << (3 * r) for r in ranks)]
        return ev / total

    def keep_value(self, keep: int, n_keep: int) -> float:
        return self.keep[keep]


_TABLES: dict[str, _Tables] = {m: _Tables(m) for m in MODES}


def _tables(mode: str) -> _Tables:
    t = _TABLES.get(mode)
    if t is None:
        raise ValueError(f"unknown mode {mode!r}")
    return t


# -- game-winning chances from the score ---------------------------------------------------------

#: Tantos one team gets in a hand that ends in its recuento (bot against bot, measured with the
#: arena over 3,000 hands; 15 and more folded into 16): value, chance.
_HAND_GAIN = (
    (0, 0.086),
    (1, 0.141),
    (2, 0.097),
    (3, 0.086),
    (4, 0.091),
    (5, 0.109),
    (6, 0.096),
    (7, 0.090),
    (8, 0.059),
    (9, 0.050),
    (10, 0.034),
    (11, 0.021),
    (12, 0.013),
    (13, 0.012),
    (14, 0.007),
    (16, 0.008),
)


@lru_cache(maxsize=1)
def _win_table() -> list[list[float]]:
    """W[a][b]: chance that a team with a tantos beats one with b (both < 40), by a race model.

    Each hand both teams gain independently from _HAND_GAIN; reaching 40 first wins, both in
    the same hand is a coin flip. Crude, but it knows that 38-30 is nearly won and 5-30 nearly
    lost, which is all the betting needs.
    """
    target = 40
    total = sum(p for _g, p in _HAND_GAIN)
    gains = [(g, p / total) for g, p in _HAND_GAIN]
    p0 = sum(p for g, p in gains if g == 0)
    w = [[0.0] * target for _ in range(target)]
    for a in range(target - 1, -1, -1):
        for b in range(target - 1, -1, -1):
            acc = 0.0
            for ga, pa in gains:
                na = a + ga
                for gb, pb in gains:
                    if ga == 0 and gb == 0:
                        continue
                    nb = b + gb
                    if na >= target:
                        acc += pa * pb * (0.5 if nb >= target else 1.0)
                    elif nb < target:
                        acc += pa * pb * w[na][nb]
            w[a][b] = acc / (1 - p0 * p0)
    return w


_win_table()  # built at import, like the hand tables: decisions only look things up


def game_win_probability(us: int, them: int) -> float:
    """Estimated chance to win the game from a score (our tantos, theirs)."""
    if us >= 40:
        return 1.0 if them < 40 else 0.5
    if them >= 40:
        return 0.0
    return _win_table()[max(us, 0)][max(them, 0)]


# -- reading the view ---------------------------------------------------------------------------


class _Lance:
    """What was said in the current lance, reconstructed from ``view["said"]``."""

    __slots__ = ("bets", "deje", "nbets", "no_quiero", "ordago", "passed", "quiero", "raised")

    def __init__(self, said: list[dict[str, Any]], lance: str, elig: list[int], mano: int) -> None:
        self.passed: set[int] = set()
        self.bets: set[int] = set()  # opened the betting
        self.raised: dict[int, int] = {}  # seat -> how many raises
        self.ordago: set[int] = set()  # said órdago (opening or raise)
        self.quiero: set[int] = set()
        self.no_quiero: set[int] = set()
        self.nbets = 0  # bets that stood (opening + winning raises)
        entries = [e for e in said if e.get("lance") == lance]
        cur = 0  # amount standing
        prev = 0
        ordago = False
        bet_team = -1
        pending: list[dict[str, Any]] = []
        for e in entries:
            seat, act = e["seat"], e["act"]
            if act == "ordago":
                self.ordago.add(seat)
            if bet_team < 0:  # opening
                if act == "paso":
                    self.passed.add(seat)
                elif act in ("envido", "ordago"):
                    self.bets.add(seat)
                    bet_team = seat & 1
                    prev, cur = 0, e.get("to", 0)
                    ordago = act == "ordago"
                    self.nbets = 1
                continue
            pending.append(e)
            if act == "quiero":
                self.quiero.add(seat)
            elif act == "no_quiero":
                self.no_quiero.add(seat)
            else:
                self.raised[seat] = self.raised.get(seat, 0) + 1
            voters = [s for s in elig if s & 1 != bet_team]
            if len(pending) == len(voters):  # a complete round: resolve like the engine
                best, best_key = None, -1
                for v in pending:
                    if v["act"] in ("envido", "ordago"):
                        amount = 41 if v["act"] == "ordago" else v["to"]
                        key = amount * 4 + 3 - ((v["seat"] - mano) % 4)
                        if key > best_key:
                            best, best_key = v, key
                pending = []
                if best is not None:
                    bet_team = best["seat"] & 1
                    self.nbets += 1
                    if best["act"] == "ordago":
                        prev, ordago = cur, True
                    else:
                        prev, cur = cur, best["to"]
        self.deje = max(prev if not ordago else cur, 1)


Range = tuple[float, float, float]  # (lo, hi, eps): U[lo, hi] with weight 1 - eps, U[0, 1] eps


def _range(
    seat: int, info: _Lance, cautious: bool = False, loose: float = 0.0, credible: float = 0.0
) -> Range:
    """Percentile range of another player's hand for this lance, from what they did.

    Nothing is certain (a paso may be a slow-played monster, a bet a bluff), so the range is
    mixed with "anything" at weight eps. ``cautious`` ignores what says "weak" (paso, no
    quiero): used before risking the whole game. ``credible`` (0..1, ``credibility``): how far
    this player's earlier bets, once shown, held what they said; its bets read stronger.
    """
    lo, hi, eps = 0.0, 1.0, 0.0
    if not cautious:
        if seat in info.passed:
            hi, eps = 0.85, 0.3
        if seat in info.no_quiero:
            hi, eps = min(hi, 0.7), 0.25
    if seat in info.quiero:
        lo, eps = 0.3, 0.2
    if seat in info.bets:
        lo, eps = 0.45 + _CREDIBLE_LO * credible, 0.2 - _CREDIBLE_EPS * credible
    n = info.raised.get(seat, 0)
    if n:
        lo, hi, eps = max(lo, min(0.55 + 0.1 * n, 0.8)), 1.0, 0.2
    if seat in info.ordago:
        lo, hi, eps = max(lo, 0.88), 1.0, 0.1
    if lo > hi - 0.05:
        lo = hi - 0.05
    # A loose player's words say little about its cards: mix in "anything" accordingly.
    return lo, hi, eps + (1 - eps) * loose


#: Log likelihood ratio (loose : sensible) of one act counted by ``view.act_summary`` (and
#: ``view["history"]``). A loose player (e.g. uniformly random) opens with an órdago or a big
#: envido a third of the time each and raises to any amount; a sensible one mostly passes or
#: bets small. "bets"/"raises" count the big ones too, hence the large "big" weight.
_LOOSE_LLR = {
    "pasos": -0.6,
    "bets": -1.5,
    "raises": -0.8,
    "big": 4.5,
    "ordagos": 2.0,
    "quiero": -0.2,
    "no_quiero": -0.4,
    "shown_lost": 0.5,
    "shown_won": -0.3,
}
_LOOSE_PRIOR = -2.0  # log odds before anything was said: about 12 %
#: Tantos of score a team is worth against a fully loose team (it bets and órdagos blind):
#: answering such a team, nearly only its score counts (measured in the arena against
#: ``uniforme``: 25 gives 90 %, 35 gives 91-92 %, 50 no better).
_LOOSE_EDGE = 35
#: How much lower the chance to win the lance may be to accept a loose team's órdago (their
#: órdago says nothing, and the bot's lance chance is measured to be on the low side then).
_ACCEPT_LOOSE = 0.08


#: How much a fully credible bettor's bet raises the bottom of its range and lowers its
#: "anything" (``_range``): a player whose bets were shown to hold what they said mostly
#: bets the top of its hands (against a sensible player that never bluffs, «normal» called
#: 64 % of its pares bets and won 18 % of those calls).
_CREDIBLE_LO, _CREDIBLE_EPS = 0.3, 0.15


def credibility(view: dict[str, Any]) -> list[float]:
    """Per seat, how far its bets held what they said when they were shown at a recuento
    (``view["history"]``: shown_won against shown_lost), 0 before any was shown:
    shown_won / (shown_won + shown_lost + 1)."""
    past = (view.get("history") or {}).get("seats") or [{}, {}, {}, {}]
    out = []
    for s in range(4):
        won, lost = past[s].get("shown_won", 0), past[s].get("shown_lost", 0)
        out.append(won / (won + lost + 1))
    return out


def _looseness(view: dict[str, Any], hand: list[dict[str, int]]) -> list[float]:
    """Per seat, the chance that it plays loose (says things regardless of its cards), from
    what it said this hand and in the earlier hands of the game (``view["history"]``)."""
    past = (view.get("history") or {}).get("seats") or [{}, {}, {}, {}]
    out = []
    for s in range(4):
        x = _LOOSE_PRIOR
        for counts in (past[s], hand[s]):
            for k, n in counts.items():
                if n:
                    x += _LOOSE_LLR.get(k, 0.0) * n
        x = max(-30.0, min(30.0, x))
        out.append(1 / (1 + math.exp(-x)))
    return out


def _beat(x: float, lo: float, hi: float, eps: float) -> float:
    """P(a hand at percentile x beats a hand drawn from the range)."""
    if x <= lo:
        inside = 0.0
    elif x >= hi:
        inside = 1.0
    else:
        inside = (x - lo) / (hi - lo)
    return (1 - eps) * inside + eps * x


_QUAD = 10


def _team_win(opps: list[tuple[float, Range]], partner: Range | None) -> float:
    """P(the best of our eligible hands beats every eligible opponent).

    ``opps``: (my percentile against that opponent, its range); ``partner``: its range.
    """
    if partner is None:
        p = 1.0
        for x, (lo, hi, eps) in opps:
            p *= _beat(x, lo, hi, eps)
        return p
    plo, phi, peps = partner
    points = [(plo + (j + 0.5) * (phi - plo) / _QUAD, (1 - peps) / _QUAD) for j in range(_QUAD)]
    if peps:
        points += [((j + 0.5) / _QUAD, peps / _QUAD) for j in range(_QUAD)]
    acc = 0.0
    for y, wy in points:
        p = wy
        for x, (lo, hi, eps) in opps:
            p *= _beat(x if x > y else y, lo, hi, eps)
        acc += p
    return acc


def hand_info(mode: str, cards: list[str]) -> dict[str, Any]:
    """The bot's assessment of a hand (for tests and curious humans)."""
    t = _tables(mode)
    bits = HAND_BIT[mode]
    key = sum(bits[CODE_TO_ID[c]] for c in cards)
    pct, p_pares, p_juego = t.percentiles(key)
    return {
        "eval": EVAL_TABLE[key]._asdict(),
        "utility": t.utility[key],
        "utility_pct": t.utility_pct[key],
        "percentiles": {LANCE_NAMES[i]: pct[i] for i in range(5)},
        "p_pares": p_pares,
        "p_juego": p_juego,
    }


# -- the decision -------------------------------------------------------------------------------


def decide(
    view: dict[str, Any],
    rng: random.Random | None = None,
    cardless_rivals: bool = False,
    shown_cardless: bool = False,
) -> Action:
    """The bot's action for the seat whose view this is (one of ``view["you"]["legal"]``).

    ``cardless_rivals`` (only «fuerte» sets it, when it reads the rivals as a pair that speaks
    whatever its cards: ``strong.rivals_cardless``): every rival is read as fully loose, good hands
    bet as against a sensible pair (not the least), and the mus is cut only with the hands
    that are always cut (``_mus``, ``blind``): the rivals discard blind, so every discard
    round is ours. ``shown_cardless`` (with it, when the cards they showed at earlier
    recuentos said so): a near-sure lance is worth an órdago at any score."""
    you = view.get("you")
    if not you or not you.get("legal"):
        raise ValueError("this seat has nothing to decide")
    legal = {d["act"]: d for d in you["legal"]}
    seat = you["seat"]
    if "repartir" in legal:
        return Action(seat, "repartir")
    mode = view["mode"]
    t = _tables(mode)
    bits = HAND_BIT[mode]
    cards = you["cards"]
    ids = [CODE_TO_ID[c] for c in cards]
    key = bits[ids[0]] + bits[ids[1]] + bits[ids[2]] + bits[ids[3]]
    if "mus" in legal:
        return Action(seat, _mus(view, t, key, seat, cardless_rivals))
    if "descarte" in legal:
        return Action(seat, "descarte", cards=_discard(t, ids, cards, bits))
    return _bet(view, t, key, seat, legal, rng, cardless_rivals, shown_cardless)


def _hand_key(view: dict[str, Any]) -> tuple[_Tables, list[int], int]:
    mode = view["mode"]
    t = _tables(mode)
    bits = HAND_BIT[mode]
    ids = [CODE_TO_ID[c] for c in view["you"]["cards"]]
    return t, ids, bits[ids[0]] + bits[ids[1]] + bits[ids[2]] + bits[ids[3]]


def mus_choice(view: dict[str, Any], cardless_rivals: bool = False) -> str:
    """``"mus"`` or ``"corto"``: what this bot says in the mus for the view's seat (see
    ``decide`` for ``cardless_rivals``)."""
    t, _ids, key = _hand_key(view)
    return _mus(view, t, key, view["you"]["seat"], cardless_rivals)


def discard_choice(view: dict[str, Any]) -> tuple[str, ...]:
    """The cards this bot discards from the view's seat's hand."""
    t, ids, _key = _hand_key(view)
    return _discard(t, ids, view["you"]["cards"], HAND_BIT[view["mode"]])


def looseness(view: dict[str, Any], this_hand: bool = True) -> list[float]:
    """Per seat, the chance that it plays loose (bets whatever its cards), from what it said
    in ``view["history"]`` and (``this_hand``) in this hand."""
    if not this_hand:
        return _looseness(view, [{}, {}, {}, {}])
    said = view["said"]
    return _looseness(
        view, act_summary((e["seat"], e["act"], e.get("to"), e.get("lance")) for e in said)
    )


def _mus(view: dict[str, Any], t: _Tables, key: int, seat: int, blind: bool = False) -> str:
    ev = EVAL_TABLE[key]
    mano = view["mano"]
    pos = (seat - mano) % 4
    said = view["said"]
    rounds = sum(1 for e in said if e["act"] == "descarte") // 4
    if rounds >= 4:
        return "corto"
    if ev.juego_value == 3 or ev.pares_value == 3:  # 31, duples: always a hand to play
        return "corto"
    if ev.pares_value == 2 and ev.pares // 10 % 10 >= 7:  # medias of figures
        return "corto"
    if blind:  # rivals who discard blind: another round helps us more than them
        return "mus"
    # Threshold on the hand's utility percentile: mano may cut more lightly (wins ties),
    # postre needs more.
    threshold = (0.70, 0.74, 0.76, 0.78)[pos]
    if view["hand_no"] == 1 and pos:
        threshold -= 0.04  # cutting makes us mano of this hand
    # This round's mus before us: an opponent who wants cards is weak, a partner too.
    start = 0
    for i, e in enumerate(said):
        if e["act"] == "descarte":
            start = i + 1
    for e in said[start:]:
        if e["act"] == "mus":
            threshold += 0.02 if (e["seat"] & 1) == (seat & 1) else -0.04
    threshold -= 0.06 * rounds
    return "corto" if t.utility_pct[key] >= threshold else "mus"


def _discard(
    t: _Tables, ids: list[int], cards: list[str], bits: tuple[int, ...]
) -> tuple[str, ...]:
    best_keep: tuple[int, ...] = ()
    best = -1.0
    for n_keep in (3, 2, 1, 0):
        for keep in combinations(range(4), n_keep):
            k = sum(bits[ids[i]] for i in keep)
            v = t.keep_value(k, n_keep)
            if v > best + 1e-12:
                best, best_keep = v, keep
    return tuple(cards[i] for i in range(4) if i not in best_keep)


def _eligible(view: dict[str, Any], lance: str) -> list[int]:
    """Seats playing this lance, in speaking order."""
    mano = view["mano"]
    order = [(mano + i) % 4 for i in range(4)]
    if lance in ("pares", "juego"):
        ans = view["answers"][lance]
        if ans is not None:
            return [s for s in order if ans[s]]
    return order


def _bonus(ev: HandEval, lance: str, partner_plays: bool) -> float:
    """Tantos the lance pays a winning team on top of the bet (expected for the partner)."""
    if lance == "pares":
        return ev.pares_value + (1.4 if partner_plays else 0.0)
    if lance == "juego":
        return ev.juego_value + (2.3 if partner_plays else 0.0)
    return 0.0


def _bet(
    view: dict[str, Any],
    t: _Tables,
    key: int,
    seat: int,
    legal: dict[str, dict[str, Any]],
    rng: random.Random | None,
    cardless_rivals: bool = False,
    shown_cardless: bool = False,
) -> Action:
    lance = view["lance"]
    li = _LANCE_IX[lance]
    mano = view["mano"]
    team = seat & 1
    elig = _eligible(view, lance)
    info = _Lance(view["said"], lance, elig, mano)
    pct = t.percentiles(key)[0][li]
    below, equal = pct
    my_pos = (seat - mano) % 4
    said = view["said"]
    loose = _looseness(
        view, act_summary((e["seat"], e["act"], e.get("to"), e.get("lance")) for e in said)
    )
    if cardless_rivals:
        loose[(seat + 1) % 4] = loose[(seat + 3) % 4] = 1.0
    loose_team = (loose[(seat + 1) % 4] + loose[(seat + 3) % 4]) / 2
    edge = round(_LOOSE_EDGE * loose_team)
    cred = credibility(view)
    opps, opps_c = [], []
    partner = partner_c = None
    for s in elig:
        if s == seat:
            continue
        q = loose[s] if s & 1 != team else 0.0
        c = cred[s] if s & 1 != team else 0.0
        r = _range(s, info, loose=q, credible=c)
        rc = _range(s, info, cautious=True, loose=q, credible=c)
        if s & 1 == team:
            partner, partner_c = r, rc
        else:
            x = below + (equal if my_pos < (s - mano) % 4 else 0.0)
            opps.append((x, r))
            opps_c.append((x, rc))
    p = _team_win(opps, partner)
    # Before risking the game, only what makes the others look *stronger* counts.
    p_sure = min(p, _team_win(opps_c, partner_c))

    ev = EVAL_TABLE[key]
    scores = view["scores"]
    us, them = scores[team], scores[1 - team]
    # Accepting and refusing are weighed with our edge over loose opponents (against a blind
    # better, refusing costs a tanto while the game is still ours); whether to risk the game
    # with our own órdago is decided on the score alone.
    gw = _edged(edge)
    w_now = game_win_probability(us, them)
    b_us = _bonus(ev, lance, partner is not None)
    n_opp_players = len(opps)
    b_them = {"pares": 1.4, "juego": 2.3}.get(lance, 0.0) * n_opp_players

    if not cardless_rivals and any(e["act"] == "ordago" and e["seat"] & 1 == team for e in said):
        # One órdago of our pair a hand: refused, it is not said again lance after lance.
        legal = {k: d for k, d in legal.items() if k != "ordago"}
    # At any score only against a pair whose shown cards said it speaks whatever its cards
    # (``shown_cardless``): it accepts most órdagos, so a near-sure lance is the game. A pair
    # read as cardless by its acts alone may be a beginner who accepts too much: early
    # órdagos against «principiante» ended a fifth of «fuerte»'s games with it.
    ordago_now = shown_cardless or ordago_time(us, them)
    # The lance chance an órdago of ours needs now (above 1: not at this score).
    sure = _ordago_threshold(w_now, cardless_rivals) if ordago_now else 2.0
    if "paso" in legal:  # opening
        # Against a cardless pair a good hand bets its size: the least-risk rule is for a
        # loose team that may hold anything *and* bet it (``uniforme``).
        open_loose = 0.0 if cardless_rivals else loose_team
        return _open(
            seat,
            legal,
            lance,
            p,
            p_sure,
            us,
            them,
            sure,
            my_pos,
            info,
            rng,
            open_loose,
            cardless_rivals,
        )
    return _answer(
        view["bet"],
        seat,
        legal,
        p,
        p_sure,
        us,
        them,
        sure,
        info,
        b_us,
        b_them,
        gw,
        loose_team,
    )


def _edged(edge: int) -> Callable[[int, int], float]:
    """``game_win_probability`` for a team that is worth ``edge`` tantos more than the score
    says (against loose opponents)."""
    if not edge:
        return game_win_probability

    def gw(us: int, them: int) -> float:
        if us >= 40 or them >= 40:
            return game_win_probability(us, them)
        return game_win_probability(min(us + edge, 39), them)

    return gw


#: People say órdago when the other pair is near the end of the game (``ORDAGO_LATE``
#: tantos) and ours is not ahead, or ours is far behind (``ORDAGO_BEHIND``); earlier, and
#: when ahead, even a near-sure lance is bet with envidos (an envido of what is still needed
#: wins as much, and an early órdago only wins the deje or ends a game with most of its hands
#: to go).
ORDAGO_LATE, ORDAGO_BEHIND = 30, 15


def ordago_time(us: int, them: int) -> bool:
    """Whether the score is one at which our pair may say órdago (``ORDAGO_LATE``,
    ``ORDAGO_BEHIND``)."""
    return (them >= ORDAGO_LATE and us < them) or them - us >= ORDAGO_BEHIND


#: The lance chance a losing pair (game chance under 0.2) needs for an órdago against sensible
#: rivals, plus half its game chance. At 0.90 «normal», behind against «fuerte» for much of
#: the game, said órdago in 4.6 % of its envites there (issue #32 wants at most 4 %): a lance
#: won 9 times in 10 still loses the game once in 10, and such a pair is not yet out of it.
ORDAGO_DESPERATE = 0.93


def _ordago_threshold(w_now: float, cardless: bool = False) -> float:
    """Team win probability in this lance needed to play the whole game on it (``cardless``:
    against a pair read as cardless, which accepts most órdagos whatever its cards)."""
    if w_now < 0.2:  # the game is being lost: gamble more, on a good lance still
        return 0.7 + w_now if cardless else ORDAGO_DESPERATE + w_now / 2
    return max(0.95, min(w_now + 0.05, 0.99))


def _open(
    seat: int,
    legal: dict[str, dict[str, Any]],
    lance: str,
    p: float,
    p_sure: float,
    us: int,
    them: int,
    sure: float,
    my_pos: int,
    info: _Lance,
    rng: random.Random | None,
    loose_team: float,
    cardless: bool,
) -> Action:
    if "ordago" in legal and p_sure >= sure:
        return Action(seat, "ordago")
    threshold = {"grande": 0.6, "chica": 0.62, "pares": 0.58, "juego": 0.58, "punto": 0.6}[lance]
    env = legal["envido"]
    if p >= threshold:
        # People open «envido» (2) and keep 3-5 for strong hands; against a pair read as
        # cardless (it calls whatever its cards) a good hand bets its size.
        big3, big5 = (0.78, 0.9) if cardless else (0.85, 0.95)
        amount = 2 if p < big3 else (3 if p < big5 else 5)
        # Near the end, what we still need is enough: a bigger bet only risks more.
        amount = min(amount, max(2, 40 - us))
        if loose_team > 0.5:
            amount = 2  # a loose team answers with anything: risk the least
        return Action(seat, "envido", to=max(env["min"], min(amount, env["max"])))
    # A rare bluff, when everybody before us passed and the lance is cheap.
    everybody_passed = info.passed and not info.bets
    if (
        rng is not None
        and lance in ("grande", "chica")
        and everybody_passed
        and my_pos >= 2
        and p >= 0.3
        and 40 - them > 4
        and rng.random() < 0.12
    ):
        return Action(seat, "envido", to=max(env["min"], 2))
    return Action(seat, "paso")


def _answer(
    bet: dict[str, Any],
    seat: int,
    legal: dict[str, dict[str, Any]],
    p: float,
    p_sure: float,
    us: int,
    them: int,
    sure: float,
    info: _Lance,
    b_us: float,
    b_them: float,
    gw: Callable[[int, int], float],
    loose_team: float,
) -> Action:
    deje = info.deje
    if bet["ordago"]:
        # Refusing: they get the deje (and their pares/juego if this is that lance).
        w_refuse = gw(us, them + deje + round(b_them))
        margin = 0.02 - _ACCEPT_LOOSE * loose_team
        return Action(seat, "quiero" if p >= w_refuse + margin else "no_quiero")
    amount = bet["amount"]
    win = gw(us + amount + round(b_us), them)
    lose = gw(us, them + amount + round(b_them))
    refuse = gw(us, them + deje + round(b_them))
    accept = p * win + (1 - p) * lose
    if "ordago" in legal and p_sure >= sure:
        return Action(seat, "ordago")
    env = legal.get("envido")
    if env is not None and info.nbets < 3 and p >= 0.78 and accept > refuse:
        to = min(env["max"], amount + (2 if p < 0.9 else 4))
        if to >= env["min"]:
            return Action(seat, "envido", to=to)
    return Action(seat, "quiero" if accept > refuse else "no_quiero")
