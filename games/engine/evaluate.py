"""Hand evaluation for the four lances (docs/rules.md §5), precomputed.

There are only 715 multisets of four ranks, so every measure a lance needs is computed once at
import time and looked up by the hand's order-free key (see ``cards.HAND_BIT``). Every strength
is an int where *higher is better*; ties are broken by speaking order by the caller.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations_with_replacement
from typing import NamedTuple

from .cards import HAND_BIT, RANK_POINTS

#: Juego order, best first (docs/rules.md §5.4): 31, 32, 40, 37, 36, 35, 34, 33.
_JUEGO_ORDER = (31, 32, 40, 37, 36, 35, 34, 33)
JUEGO_STRENGTH: dict[int, int] = {p: len(_JUEGO_ORDER) - i for i, p in enumerate(_JUEGO_ORDER)}

PAR, MEDIAS, DUPLES = 1, 2, 3
#: Tantos a pares play is worth to its holder at the recuento (par 1, medias 2, duples 3).
PARES_VALUE = {0: 0, PAR: 1, MEDIAS: 2, DUPLES: 3}


class HandEval(NamedTuple):
    """Everything the lances need to know about one hand of four cards."""

    grande: int  # ranks high to low, read as a base-10 number: a higher number wins grande
    chica: int  # ranks low to high, negated: the lower cards give the higher number
    pares: int  # 0 = no pares; else kind * 100 + high pair * 10 + low pair
    pares_value: int  # 0..3 tantos
    points: int  # sum for juego/punto
    juego: int  # 0 = no juego; else 1..8 in juego order
    juego_value: int  # 3 for 31, 2 for other juego, 0 without juego


def evaluate_ranks(ranks: tuple[int, ...]) -> HandEval:
    """Evaluate four effective rank indexes (0 = as .. 9 = rey)."""
    desc = sorted(ranks, reverse=True)
    grande = desc[0] * 1000 + desc[1] * 100 + desc[2] * 10 + desc[3]
    asc = desc[::-1]
    chica = -(asc[0] * 1000 + asc[1] * 100 + asc[2] * 10 + asc[3])

    counts: dict[int, int] = {}
    for r in ranks:
        counts[r] = counts.get(r, 0) + 1
    pairs = sorted((r for r, n in counts.items() if n == 2), reverse=True)
    kind, hi, lo = 0, 0, 0
    four = [r for r, n in counts.items() if n == 4]
    three = [r for r, n in counts.items() if n == 3]
    if four:  # four equal cards are duples of that rank twice (four reyes beat reyes-caballos)
        kind, hi, lo = DUPLES, four[0], four[0]
    elif len(pairs) == 2:
        kind, hi, lo = DUPLES, pairs[0], pairs[1]
    elif three:
        kind, hi = MEDIAS, three[0]
    elif pairs:
        kind, hi = PAR, pairs[0]
    pares = kind * 100 + hi * 10 + lo if kind else 0

    points = sum(RANK_POINTS[r] for r in ranks)
    juego = JUEGO_STRENGTH.get(points, 0) if points >= 31 else 0
    juego_value = (3 if points == 31 else 2) if juego else 0
    return HandEval(grande, chica, pares, PARES_VALUE[kind], points, juego, juego_value)


def _build_table() -> dict[int, HandEval]:
    table: dict[int, HandEval] = {}
    for ranks in combinations_with_replacement(range(10), 4):
        key = sum(1 << (3 * r) for r in ranks)
        table[key] = evaluate_ranks(ranks)
    return table


#: key (sum of HAND_BIT of the four cards) -> HandEval; shared by both modes because the key is
#: built from the cards' *effective* ranks.
EVAL_TABLE: dict[int, HandEval] = _build_table()


def evaluate(cards: list[int] | tuple[int, ...], mode: str) -> HandEval:
    """Evaluate a hand of four card ids in a mode."""
    bits = HAND_BIT[mode]
    return EVAL_TABLE[bits[cards[0]] + bits[cards[1]] + bits[cards[2]] + bits[cards[3]]]


# Which field of HandEval decides each lance (index into the named tuple). Punto uses the points
# directly: it is only played when nobody has juego, so every total is at most 30.
LANCE_STRENGTH_FIELD: dict[str, int] = {
    "grande": HandEval._fields.index("grande"),
    "chica": HandEval._fields.index("chica"),
    "pares": HandEval._fields.index("pares"),
    "juego": HandEval._fields.index("juego"),
    "punto": HandEval._fields.index("points"),
}


def best_seat(evals: Sequence[tuple[int, ...]], order: tuple[int, ...], lance: str) -> int:
    """Seat that wins ``lance`` among ``order`` (speaking order): ties go to the earlier one."""
    field = LANCE_STRENGTH_FIELD[lance]
    best = order[0]
    best_strength = evals[best][field]
    for s in order[1:]:
        v = evals[s][field]
        if v > best_strength:  # strictly better: an equal hand later in the order loses
            best, best_strength = s, v
    return best
