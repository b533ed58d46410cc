"""The Spanish 40-card deck: card codes, integer ids and the two modes (docs/rules.md §2).

Inside the engine a card is a small int (0..39) so that hands, piles and lookups stay cheap;
codes such as ``"12o"`` only appear at the edges (records, views, actions).
"""

from __future__ import annotations

MODES: tuple[str, ...] = ("4-reyes", "8-reyes")

#: Printed ranks, low to high for grande (sota 10, caballo 11, rey 12; no 8 or 9).
RANKS: tuple[int, ...] = (1, 2, 3, 4, 5, 6, 7, 10, 11, 12)
#: oros, copas, espadas, bastos. Suits never matter for play, only for the codes.
SUITS: tuple[str, ...] = ("o", "c", "e", "b")

#: card id -> code. The id is ``rank_index * 4 + suit_index``.
CODES: tuple[str, ...] = tuple(f"{r}{s}" for r in RANKS for s in SUITS)
#: code -> card id.
CODE_TO_ID: dict[str, int] = {code: i for i, code in enumerate(CODES)}
#: One full deck in id order (handy for shuffling).
FULL_DECK: tuple[int, ...] = tuple(range(40))

# Rank index (0..9) of every card as printed.
_RAW_RANK: tuple[int, ...] = tuple(i // 4 for i in range(40))
_IDX_AS, _IDX_2, _IDX_3, _IDX_REY = 0, 1, 2, 9


def _effective_rank(card: int, mode: str) -> int:
    """Rank index a card plays as: in 8 reyes every 3 is a rey and every 2 an as."""
    r = _RAW_RANK[card]
    if mode == "8-reyes":
        if r == _IDX_3:
            return _IDX_REY
        if r == _IDX_2:
            return _IDX_AS
    return r


#: EFFECTIVE_RANK[mode][card] -> rank index 0 (as) .. 9 (rey) as the card plays in that mode.
EFFECTIVE_RANK: dict[str, tuple[int, ...]] = {
    m: tuple(_effective_rank(c, m) for c in range(40)) for m in MODES
}

#: Point value of a rank index for juego and punto (figures are worth 10).
RANK_POINTS: tuple[int, ...] = (1, 2, 3, 4, 5, 6, 7, 10, 10, 10)

#: A hand's evaluation key is the sum of one 3-bit counter per effective rank, so it does not
#: depend on the order of the cards and needs no sorting: HAND_BIT[mode][card] is added per card.
HAND_BIT: dict[str, tuple[int, ...]] = {
    m: tuple(1 << (3 * r) for r in EFFECTIVE_RANK[m]) for m in MODES
}


def code(card: int) -> str:
    return CODES[card]
