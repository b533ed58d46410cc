"""The Mus state machine: one Game object per game, advanced one action at a time.

Design notes
------------
* ``Game._do`` mutates the game in place. It is the one code path for both the public
  ``apply`` (which first takes a cheap copy, so callers never see a game change) and ``replay``
  (which feeds a whole record into one Game without copying: that is what makes replay fast).
* Cards are ints (see ``cards``); hands are evaluated once per hand, when the lances begin, with
  the precomputed table in ``evaluate``.
* Lance results are stored as small tuples while the hand is played; the recuento turns them
  into tantos, and ``view``/``replay_result`` turn them into dicts only when asked.
* The record is kept as we go (decks, reshuffles, accepted actions) so exporting is trivial.
"""

from __future__ import annotations

import random
import secrets
from collections.abc import Sequence
from itertools import product
from typing import Any, cast

from .actions import RECORD_ACTS, Action
from .cards import CODE_TO_ID, CODES, EFFECTIVE_RANK, FULL_DECK, HAND_BIT, MODES
from .errors import IllegalAction
from .evaluate import EVAL_TABLE, HandEval, best_seat

LANCES: tuple[str, ...] = ("grande", "chica", "pares", "juego", "punto")
GRANDE, CHICA, PARES, JUEGO, PUNTO = range(5)
TARGET = 40
MAX_BET = 40  # envites go up to 40 tantos; beyond that only an órdago
PHASES = ("mus", "descarte", "lance", "recuento", "terminada", "cancelada")

#: ORDER[mano] = speaking order of a hand; POS[mano][seat] = that seat's place in it.
ORDER: tuple[tuple[int, ...], ...] = tuple(tuple((m + i) % 4 for i in range(4)) for m in range(4))
POS: tuple[tuple[int, ...], ...] = tuple(
    tuple(ORDER[m].index(s) for s in range(4)) for m in range(4)
)

_SYSTEM_RANDOM = secrets.SystemRandom()

#: VOTERS[elig][team]: the seats of ``elig`` (a lance's eligible seats, in speaking order) that
#: answer a bet by ``team``. Every possible elig is a subsequence of a speaking order.
VOTERS: dict[tuple[int, ...], tuple[tuple[int, ...], tuple[int, ...]]] = {
    elig: (tuple(s for s in elig if s & 1), tuple(s for s in elig if not s & 1))
    for order in ORDER
    for mask in range(1, 16)
    for elig in [tuple(s for i, s in enumerate(order) if mask >> i & 1)]
}

#: LLEVA[mano][answers]: the seats whose answer (answers are by seat) is yes, in the speaking
#: order of that mano: who plays pares or juego.
LLEVA: tuple[dict[tuple[bool, ...], tuple[int, ...]], ...] = tuple(
    {ans: tuple(s for s in ORDER[m] if ans[s]) for ans in product((False, True), repeat=4)}
    for m in range(4)
)

#: HandEval field that decides each lance (by lance index); punto compares the points.
_STRENGTH_FIELD: tuple[int, ...] = tuple(
    HandEval._fields.index(f) for f in ("grande", "chica", "pares", "juego", "points")
)
_F_PARES, _F_JUEGO, _F_PARES_VALUE, _F_JUEGO_VALUE = map(
    HandEval._fields.index, ("pares", "juego", "pares_value", "juego_value")
)
#: EVAL_TABLE with plain tuples (same fields, by index): the state machine reads a few fields
#: of every hand, and indexing a plain tuple is much cheaper than a NamedTuple's attributes.
_EVAL_ROWS: dict[int, tuple[int, ...]] = {k: tuple(v) for k, v in EVAL_TABLE.items()}

#: One accepted action of the current hand: (seat, act, envido amount or None, discarded
#: card codes or None, lance index or -1 outside the lances).
ActEntry = tuple[int, str, int | None, tuple[str, ...] | None, int]
#: A vote on a bet: (seat, act, amount of a raise or None).
Vote = tuple[int, str, int | None]


def best_raise(votes: Sequence[Vote], mano: int) -> int:
    """The index in ``votes`` (a team's complete answer to a bet) of the raise that wins it, or
    -1 when nobody raised (docs/rules.md §6.2): an órdago beats numbers, a bigger number a
    smaller one, equal ones go to the earlier speaker."""
    best = -1
    best_key = -1
    for i, (seat, act, to) in enumerate(votes):
        if act != "envido" and act != "ordago":
            continue
        # One int key, (amount, órdago = 41) * 4 + (3 - place in the speaking order). Only an
        # envido has an amount (apply and replay check it).
        key = (MAX_BET + 1 if to is None else to) * 4 + 3 - POS[mano][seat]
        if key > best_key:
            best, best_key = i, key
    return best


def overruled_votes(votes: Sequence[Vote], mano: int) -> list[int]:
    """The indexes of the votes of a complete answer that its outcome overrode: all but the
    winning raise when somebody raised, else the «No quiero» when somebody said «Quiero»."""
    i = best_raise(votes, mano)
    if i >= 0:
        return [k for k in range(len(votes)) if k != i]
    if any(v[1] == "quiero" for v in votes):
        return [k for k, v in enumerate(votes) if v[1] == "no_quiero"]
    return []


#: How a lance went, before the recuento: (lance, how, winner team or None when the cards
#: decide it, bet, deje).
LanceResult = tuple[int, str, int | None, int, int]
#: A lance at the recuento: (lance, how, winner team or None if not played, tantos it was worth,
#: tantos counted, bet, deje, bonus).
TallyRow = tuple[int, str, int | None, int, int, int, int, int]
#: A finished hand: (deck, reshuffled piles, actions, mano, scores, tally, the four hands as they
#: ended, by seat: shown to everybody at the recuento).
PastHand = tuple[
    tuple[int, ...],
    list[tuple[int, ...]],
    list[ActEntry],
    int,
    tuple[int, int],
    Sequence[TallyRow],
    tuple[tuple[int, ...], ...],
]
#: Where a new pile comes from when the draw pile runs out: a generator that shuffles the
#: discards (live play), or the record's reshuffled piles, consumed front first (replay).
PileSource = random.Random | list[tuple[int, ...]]

# How a lance was played, as shown in results.
PASO, QUERIDO, NO_QUERIDO, SIN_APUESTA, ORDAGO, NO_JUGADO = (
    "paso",
    "querido",
    "no_querido",
    "sin_apuesta",
    "ordago",
    "no_jugado",
)


def _err(code: str, message: str) -> IllegalAction:
    return IllegalAction(code, message)


class Game:
    """A game of Mus to 40. Treat instances as immutable: use ``apply`` to get the next one."""

    __slots__ = (  # noqa: RUF023 - grouped by purpose, not alphabetically
        "mode",
        "target",
        "first_mano",
        "hand_no",
        "deal_mano",  # mano of the deal (drawn or rotated); differs from mano after a first corto
        "mano",  # effective mano of the current hand
        "phase",
        "_lance",  # index into LANCES while phase == "lance", else -1
        "_scores",  # [team 0, team 1], mutable inside the engine only
        "winner",
        "ended_by",
        "_bits",  # HAND_BIT of the mode
        "_eff",  # EFFECTIVE_RANK of the mode
        "_hands",  # 4 lists of 4 card ids, by seat
        "_pile",  # tuple of card ids; cards are drawn from _pile[_pile_pos:]
        "_pile_pos",
        "_old_disc",  # discards of earlier rounds of this hand, not yet turned into a pile
        "_cur_disc",  # this round's discard per seat (tuple of ids) or None while not chosen
        "_n_disc",  # how many seats chose in this round
        "_changed_last",  # cards changed per seat in the last completed discard round
        "_changed_total",  # ... and in the whole hand
        "_mus_i",  # index in the speaking order of the next player to say mus/corto
        "_evals",  # per seat, HandEval fields as a plain tuple, once the lances begin ([] before)
        "_answers",  # [pares answers, juego answers]: tuple of 4 bools or None
        "_elig",  # seats eligible in the current lance, in speaking order
        "_open_i",  # next opener's index in _elig, or -1 while a bet is being answered
        "_bet_amt",  # total at stake (int) once somebody bet in this lance
        "_prev_amt",  # total that stood before the last bet (the deje if refused)
        "_ordago",  # the bet on the table is an órdago
        "_bet_team",  # team that made the last bet
        "_bet_seat",  # seat that made the last bet (the earlier speaker among equal raises)
        "_voters",  # seats still to vote on the bet, in speaking order
        "_votes",  # (seat, act, to) votes of the current round, in arrival order
        "_round_start",  # index in _acts where the current simultaneous round's actions start
        "_results",  # per lance: (lance, how, winner team or None, bet, deje)
        "_tally",  # recuento per lance, once counted: tuples, see _recuento
        "_past",  # finished hands: tuples (deck, reshuffles, actions, mano, scores, tally, hands)
        "_deck",  # this hand's deck (ids)
        "_resh",  # this hand's reshuffled piles (tuples of ids)
        "_acts",  # this hand's actions: (seat, act, to, cards codes, lance index or -1)
        "_clock",  # (hand index, action index) of the actions the turn clock played
    )

    # -- construction -----------------------------------------------------------------------

    def __init__(self, mode: str, first_mano: int) -> None:
        if mode not in MODES:
            raise ValueError(f"mode must be one of {MODES}")
        if type(first_mano) is not int or not 0 <= first_mano <= 3:
            raise ValueError("first_mano must be a seat 0..3")
        self.mode = mode
        self.target = TARGET
        self.first_mano = first_mano
        self.hand_no = 0
        self.deal_mano = first_mano
        self.mano = first_mano
        self.phase = "recuento"  # until the first deal
        self._lance = -1
        self._scores = [0, 0]
        self.winner: int | None = None
        self.ended_by: str | None = None
        self._bits = HAND_BIT[mode]
        self._eff = EFFECTIVE_RANK[mode]
        self._past: list[PastHand] = []
        self._hands: list[list[int]] = [[], [], [], []]
        self._deck: tuple[int, ...] = ()
        self._resh: list[tuple[int, ...]] = []
        self._acts: list[ActEntry] = []
        self._clock: tuple[tuple[int, int], ...] = ()
        self._results: list[LanceResult] = []
        self._tally: list[TallyRow] | None = None
        self._evals: list[tuple[int, ...]] = []
        self._answers: list[tuple[bool, ...] | None] = [None, None]
        self._old_disc: list[int] = []
        self._cur_disc: list[tuple[int, ...] | None] = [None, None, None, None]
        self._n_disc = 0
        self._changed_last = [0, 0, 0, 0]
        self._changed_total = [0, 0, 0, 0]
        self._reset_lance_state()

    def _reset_lance_state(self) -> None:
        self._elig: tuple[int, ...] = ()
        self._open_i = -1
        self._bet_amt = 0
        self._prev_amt = 0
        self._ordago = False
        self._bet_team = -1
        self._bet_seat = -1
        self._voters: list[int] = []
        self._votes: list[Vote] = []
        self._round_start = 0

    def _clone(self) -> Game:
        """A copy that shares nothing mutable with self (immutable parts are shared).

        Every slot is copied by name (tests/engine/test_compiled_engine.py checks that none is
        missed): the engine compiled with mypyc cannot make an instance without ``__init__``,
        and in the interpreter this measured faster than a loop over the slot names.
        """
        g = Game(self.mode, self.first_mano)
        g.target = self.target
        g.hand_no = self.hand_no
        g.deal_mano = self.deal_mano
        g.mano = self.mano
        g.phase = self.phase
        g._lance = self._lance
        g._scores = self._scores[:]
        g.winner = self.winner
        g.ended_by = self.ended_by
        g._hands = [h[:] for h in self._hands]
        g._pile = self._pile
        g._pile_pos = self._pile_pos
        g._old_disc = self._old_disc[:]
        g._cur_disc = self._cur_disc[:]
        g._n_disc = self._n_disc
        g._changed_last = self._changed_last[:]
        g._changed_total = self._changed_total[:]
        g._mus_i = self._mus_i
        g._evals = self._evals
        g._answers = self._answers[:]
        g._elig = self._elig
        g._open_i = self._open_i
        g._bet_amt = self._bet_amt
        g._prev_amt = self._prev_amt
        g._ordago = self._ordago
        g._bet_team = self._bet_team
        g._bet_seat = self._bet_seat
        g._voters = self._voters[:]
        g._votes = self._votes[:]
        g._round_start = self._round_start
        g._results = self._results[:]
        g._tally = self._tally
        g._past = self._past[:]
        g._deck = self._deck
        g._resh = self._resh[:]
        g._acts = self._acts[:]
        g._clock = self._clock
        return g

    def mark_clock(self) -> None:
        """The action just applied was played by the turn clock (docs/rules.md §8.2), not chosen:
        the record and the views say so. Call it on the game `apply` returned, before it is
        shared."""
        self._clock = (*self._clock, (len(self._past), len(self._acts) - 1))

    def clock_played(self, hand: int) -> frozenset[int]:
        """Indexes of the actions of hand `hand` (0 = the first) that the turn clock played."""
        return frozenset(i for h, i in self._clock if h == hand)

    def __repr__(self) -> str:
        return (
            f"<Game {self.mode} hand {self.hand_no} mano {self.mano} {self.phase}"
            f"{' ' + LANCES[self._lance] if self.phase == 'lance' else ''} scores {self.scores}>"
        )

    # -- read-only API ----------------------------------------------------------------------

    @property
    def scores(self) -> tuple[int, int]:
        return (self._scores[0], self._scores[1])

    @property
    def lance(self) -> str | None:
        return LANCES[self._lance] if self.phase == "lance" else None

    def to_act(self) -> list[int]:
        """Seats that may act now (several while discarding or voting at the same time)."""
        phase = self.phase
        if phase == "mus":
            return [ORDER[self.mano][self._mus_i]]
        if phase == "descarte":
            return [s for s in ORDER[self.mano] if self._cur_disc[s] is None]
        if phase == "lance":
            if self._open_i >= 0:
                return [self._elig[self._open_i]]
            return self._voters[:]
        if phase == "recuento":
            return list(ORDER[self.mano])  # the platform lets only the host deal
        return []

    def hand_codes(self, seat: int) -> list[str]:
        return [CODES[c] for c in self._hands[seat]]

    # -- dealing ----------------------------------------------------------------------------

    def _new_hand(self, deck: tuple[int, ...]) -> None:
        """Close the current hand (if any) and deal ``deck`` (40 distinct ids, top first)."""
        if self.hand_no:
            self._archive_hand()
            # The next mano follows the *effective* mano (after a first-hand corto).
            self.deal_mano = (self.mano + 1) % 4
            self.mano = self.deal_mano
        self.hand_no += 1
        self._deck = deck
        self._resh = []
        self._acts = []
        # The other per-hand lists are emptied or refilled in place: making a list costs more
        # than a few bytecodes here, and nothing outside this game holds them (_clone copies
        # them, and _archive_hand keeps only _resh and _acts, which are new above).
        # Card k goes to the k-th speaker (mod 4), one at a time: seat order[j] gets
        # deck[j], deck[j + 4], deck[j + 8], deck[j + 12].
        m = self.mano
        hands = self._hands
        hands[m][:] = deck[0:16:4]
        hands[(m + 1) & 3][:] = deck[1:16:4]
        hands[(m + 2) & 3][:] = deck[2:16:4]
        hands[(m + 3) & 3][:] = deck[3:16:4]
        self._pile = deck
        self._pile_pos = 16
        # (_cur_disc and _n_disc need no reset: every discard round ends with all four chosen.)
        if self._old_disc:
            self._old_disc.clear()
        self._changed_last[:] = self._changed_total[:] = (0, 0, 0, 0)
        self._mus_i = 0
        self.phase = "mus"
        self._lance = -1
        self._evals = []
        self._answers[:] = (None, None)
        self._results.clear()
        self._tally = None
        # (the lance state is set by _next_lance when the lances begin)

    def _archive_hand(self) -> None:
        # No copies: _new_hand gives this game fresh lists, so the archived ones never change
        # again (a clone copies its own current lists).
        self._past.append(
            (
                self._deck,
                self._resh,
                self._acts,
                self.mano,
                (self._scores[0], self._scores[1]),
                self._tally or (),
                tuple(tuple(h) for h in self._hands),
            )
        )

    # -- the state machine --------------------------------------------------------------------

    def _do(
        self, seat: int, act: str, to: int | None, cards: tuple[str, ...] | None, src: PileSource
    ) -> None:
        """Apply one record action in place, or raise IllegalAction.

        ``src`` supplies new piles when the draw pile runs out: a random.Random-like object in
        live play, or a list of the record's reshuffles (consumed front first) in replay.
        On error the game may be half-changed: callers work on a copy or give up the game.
        """
        phase = self.phase
        if phase == "lance":
            # The opening and the votes are inlined here: they are most of all actions.
            self._acts.append((seat, act, to, None, self._lance))
            open_i = self._open_i
            if open_i >= 0:  # opening: paso / envido N / órdago in speaking order
                elig = self._elig
                if seat != elig[open_i]:
                    raise self._not_your_turn(seat)
                if act == "paso":
                    open_i += 1
                    self._open_i = open_i
                    if open_i == len(elig):  # everybody passed: en paso
                        self._results.append((self._lance, PASO, None, 0, 0))
                        self._next_lance()
                elif act == "envido":
                    assert to is not None  # apply and replay check that an envido has one
                    if not 2 <= to <= MAX_BET:
                        raise _err("bad_amount", f"Bet from 2 to {MAX_BET} tantos.")
                    self._bet(seat, to, 0, False)
                elif act == "ordago":
                    self._bet(seat, 0, 0, True)
                else:
                    raise self._not_now(act)
                return
            # answering a bet: everybody eligible in the other team votes, in any order
            voters = self._voters
            if seat not in voters:
                raise self._not_your_turn(seat)
            if act == "quiero" or act == "no_quiero":
                pass
            elif act == "envido":
                if self._ordago:
                    raise _err("no_raise_on_ordago", "An órdago can only be accepted or refused.")
                assert to is not None
                if not self._bet_amt < to <= MAX_BET:
                    if self._bet_amt >= MAX_BET:
                        raise _err("bad_amount", "With 40 on the table only an órdago can raise.")
                    raise _err(
                        "bad_amount", f"Raise to more than {self._bet_amt} and at most {MAX_BET}."
                    )
            elif act == "ordago":
                if self._ordago:
                    raise _err("no_raise_on_ordago", "An órdago can only be accepted or refused.")
            else:
                raise self._not_now(act)
            voters.remove(seat)
            self._votes.append((seat, act, to))
            if not voters:
                self._resolve_votes()
        elif phase == "mus":
            if seat != ORDER[self.mano][self._mus_i]:
                raise self._not_your_turn(seat)
            self._acts.append((seat, act, to, None, -1))
            if act == "mus":
                self._mus_i += 1
                if self._mus_i == 4:
                    self.phase = "descarte"
                    self._round_start = len(self._acts)
            elif act == "corto":
                if self.hand_no == 1:
                    self.mano = seat  # first hand only: who cuts becomes mano
                self._start_lances()
            else:
                raise self._not_now(act)
        elif phase == "descarte":
            if not 0 <= seat <= 3 or self._cur_disc[seat] is not None:
                raise _err("not_your_turn", f"Seat {seat} has already discarded this round.")
            if act != "descarte":
                raise self._not_now(act)
            self._acts.append((seat, act, None, cards, -1))
            self._discard(seat, cards, src)
        elif phase in ("terminada", "cancelada"):
            raise _err("game_over", "The game is over.")
        else:  # recuento: only the next deal, which is not a record action
            raise self._not_your_turn(seat)

    def _not_your_turn(self, seat: int) -> IllegalAction:
        return _err("not_your_turn", f"seat {seat} cannot act now")

    def _not_now(self, act: str) -> IllegalAction:
        return _err("illegal_act", f"{act!r} is not allowed now.")

    # mus and discards ------------------------------------------------------------------------

    def _discard(self, seat: int, cards: tuple[str, ...] | None, src: PileSource) -> None:
        if not cards or len(cards) > 4:
            raise _err("bad_cards", "Discard from 1 to 4 cards.")
        hand = self._hands[seat]
        ids = []
        for c in cards:
            i = CODE_TO_ID.get(c)
            if i is None or i not in hand:
                raise _err("bad_cards", f"Seat {seat} does not hold {c!s:.5}.")
            ids.append(i)
        if len(set(ids)) != len(ids):
            raise _err("bad_cards", "The same card was discarded twice.")
        self._cur_disc[seat] = tuple(ids)
        self._n_disc += 1
        if self._n_disc == 4:
            self._refill(src)

    def _refill(self, src: PileSource) -> None:
        """All four chose: refill everybody from the pile, mano first, then ask mus again."""
        pile, pos = self._pile, self._pile_pos
        cur = cast(list[tuple[int, ...]], self._cur_disc)  # all four chose: no None left
        for s in ORDER[self.mano]:
            hand = self._hands[s]
            for c in cur[s]:
                if pos == len(pile):
                    pile = self._reshuffle(src)
                    pos = 0
                hand[hand.index(c)] = pile[pos]
                pos += 1
        self._pile, self._pile_pos = pile, pos
        for s in range(4):
            n = len(cur[s])
            self._changed_last[s] = n
            self._changed_total[s] += n
            # Only now do this round's discards join the "earlier" discards (docs/rules.md §4.3).
            self._old_disc.extend(cur[s])
        self._cur_disc[:] = (None, None, None, None)
        self._n_disc = 0
        self._mus_i = 0
        self.phase = "mus"

    def _reshuffle(self, src: PileSource) -> tuple[int, ...]:
        old = self._old_disc
        if isinstance(src, list):  # replay: the record says what the new pile was
            if not src:
                raise _err("bad_reshuffle", "The pile ran out but the record has no reshuffle.")
            pile = src.pop(0)
            if sorted(pile) != sorted(old):
                raise _err(
                    "bad_reshuffle", "A reshuffled pile is not made of the earlier discards."
                )
        else:
            shuffled = list(old)
            src.shuffle(shuffled)
            pile = tuple(shuffled)
        self._resh.append(pile)
        self._old_disc = []
        return pile

    # lances ---------------------------------------------------------------------------------

    def _start_lances(self) -> None:
        bits, hands = self._bits, self._hands
        rows = _EVAL_ROWS
        self._evals = [rows[bits[h[0]] + bits[h[1]] + bits[h[2]] + bits[h[3]]] for h in hands]
        self.phase = "lance"
        self._lance = -1
        self._next_lance()

    def _next_lance(self) -> None:
        """Start the lance after the current one (grande when the lances begin).

        Lances that need nobody to speak are settled on the spot: pares/juego when at most one
        team lleva (docs/rules.md §5.6); after juego or punto comes the recuento.
        """
        lance = self._lance + 1
        if lance >= PUNTO:
            self._recuento()
            return
        elig = ORDER[self.mano]
        if lance >= PARES:
            e0, e1, e2, e3 = self._evals
            if lance == PARES:
                f = _F_PARES
                ans = (e0[f] > 0, e1[f] > 0, e2[f] > 0, e3[f] > 0)
                self._answers[0] = ans
                t0, t1 = ans[0] or ans[2], ans[1] or ans[3]
                if t0 and t1:  # betting among those who lleva
                    elig = LLEVA[self.mano][ans]
                else:
                    self._results.append(
                        (PARES, SIN_APUESTA, 0 if t0 else 1, 0, 0)  # one team wins it
                        if t0 or t1
                        else (PARES, NO_JUGADO, None, 0, 0)  # nobody has pares
                    )
                    lance = JUEGO
            if lance == JUEGO:
                f = _F_JUEGO
                ans = (e0[f] > 0, e1[f] > 0, e2[f] > 0, e3[f] > 0)
                self._answers[1] = ans
                t0, t1 = ans[0] or ans[2], ans[1] or ans[3]
                if t0 and t1:
                    elig = LLEVA[self.mano][ans]
                elif t0 or t1:
                    self._results.append((JUEGO, SIN_APUESTA, 0 if t0 else 1, 0, 0))
                    self._recuento()
                    return
                else:  # nobody has juego: punto, everybody speaks
                    lance = PUNTO
        # The bet fields are set by _bet when somebody bets; until then _open_i >= 0 says
        # "nobody bet yet", so they need no reset here.
        self._lance = lance
        self._elig = elig
        self._open_i = 0

    def _bet(self, seat: int, amount: int, prev: int, ordago: bool) -> None:
        """``seat`` bets (or raises) for its team: the other team's eligible players vote next."""
        team = seat & 1
        self._bet_team = team
        self._bet_seat = seat
        self._bet_amt = amount
        self._prev_amt = prev
        self._ordago = ordago
        self._open_i = -1
        # (filled and emptied in place, like the per-hand lists: see _new_hand)
        self._voters[:] = VOTERS[self._elig][team]
        self._votes.clear()
        self._round_start = len(self._acts)

    def _resolve_votes(self) -> None:
        """Everybody voted: a raise beats a quiero, which beats a no quiero (docs/rules.md §6.2)."""
        votes = self._votes
        i = best_raise(votes, self.mano)
        if i >= 0:
            seat, act, to = votes[i]
            if act == "ordago":
                self._bet(seat, self._bet_amt, self._bet_amt, True)
            else:
                assert to is not None  # an envido
                self._bet(seat, to, self._bet_amt, False)
            return
        if any(vote[1] == "quiero" for vote in votes):
            if self._ordago:
                self._ordago_accepted()
                return
            self._results.append((self._lance, QUERIDO, None, self._bet_amt, 0))
        else:
            team = self._bet_team
            deje = self._prev_amt if self._prev_amt > 1 else 1
            self._results.append((self._lance, NO_QUERIDO, team, 0, deje))
            scores = self._scores
            scores[team] += deje
            if scores[team] >= self.target:  # a deje that reaches 40 ends the game
                self._finish(team, "puntos")
                return
        # (_voters is empty now, and _votes is only looked at while a bet is being answered:
        # the next bet starts new lists.)
        self._next_lance()

    def _ordago_accepted(self) -> None:
        lance = self._lance
        team = best_seat(self._evals, self._elig, LANCES[lance]) & 1
        self._results.append((lance, ORDAGO, team, 0, 0))
        self._finish(team, "ordago")

    def _finish(self, team: int, how: str) -> None:
        self.winner = team
        self.ended_by = how
        self.phase = "terminada"
        self._voters = []
        self._votes = []
        self._open_i = -1
        if self._tally is None:
            self._tally = self._tally_without_recuento()

    # recuento -------------------------------------------------------------------------------

    def _recuento(self) -> None:
        """Pay every lance in order, stopping the moment a team reaches the target (§7).

        The vectors decide the granularity: a lance is paid whole (bet and pares/juego of both
        players at once) and the count stops after the lance that reaches the target.
        """
        scores = self._scores
        target = self.target
        evals = self._evals
        # The hands in speaking order, for the lances the cards decide.
        s0, s1, s2, s3 = ORDER[self.mano]
        e0, e1, e2, e3 = evals[s0], evals[s1], evals[s2], evals[s3]
        tally: list[TallyRow] = []
        done = False
        for lance, how, winner, bet, deje in self._results:
            if winner is None:
                if how == NO_JUGADO:
                    tally.append((lance, how, None, 0, 0, 0, 0, 0))
                    continue
                # en paso or querido: the best hand wins, a tie stays with the earlier speaker
                f = _STRENGTH_FIELD[lance]
                best, top = s0, e0[f]
                if e1[f] > top:
                    best, top = s1, e1[f]
                if e2[f] > top:
                    best, top = s2, e2[f]
                if e3[f] > top:
                    best = s3
                winner = best & 1
            if lance == PARES:
                bonus = evals[winner][_F_PARES_VALUE] + evals[winner + 2][_F_PARES_VALUE]
            elif lance == JUEGO:
                bonus = evals[winner][_F_JUEGO_VALUE] + evals[winner + 2][_F_JUEGO_VALUE]
            elif lance == PUNTO or how == PASO:
                bonus = 1  # punto always pays 1; grande/chica en paso pay 1
            else:
                bonus = 0
            worth = bet + bonus  # only a querido lance has a bet here (a deje is paid already)
            counted = 0
            if not done:
                counted = worth
                scores[winner] += worth
                done = scores[winner] >= target
            tally.append((lance, how, winner, worth + deje, counted + deje, bet, deje, bonus))
            if done and counted:
                self._tally = tally
                self._finish(winner, "puntos")
        self._tally = tally
        if not done:
            self.phase = "recuento"
            self._lance = -1

    def _tally_without_recuento(self) -> list[TallyRow]:
        """Lance results when the hand stops before its recuento (a deje or an órdago)."""
        return [
            (lance, how, winner, deje, deje, bet, deje, 0)
            for lance, how, winner, bet, deje in self._results
        ]


# -- public API -------------------------------------------------------------------------------


def _shuffled_deck(rng: random.Random | None) -> tuple[int, ...]:
    deck = list(FULL_DECK)
    (rng if rng is not None else _SYSTEM_RANDOM).shuffle(deck)
    return tuple(deck)


def new_game(mode: str, first_mano: int, rng: random.Random | None = None) -> Game:
    """A new game with hand 1 dealt from a deck shuffled by ``rng`` (None: the system's)."""
    g = Game(mode, first_mano)
    g._new_hand(_shuffled_deck(rng))
    return g


def legal_actions(game: Game, seat: int) -> list[dict[str, Any]]:
    """What ``seat`` may do now, in protocol form; [] when it cannot act."""
    phase = game.phase
    if phase == "mus":
        if seat == ORDER[game.mano][game._mus_i]:
            return [{"act": "mus"}, {"act": "corto"}]
    elif phase == "descarte":
        if 0 <= seat <= 3 and game._cur_disc[seat] is None:
            return [{"act": "descarte", "min": 1, "max": 4}]
    elif phase == "lance":
        if game._open_i >= 0:
            if seat == game._elig[game._open_i]:
                return [
                    {"act": "paso"},
                    {"act": "envido", "min": 2, "max": MAX_BET},
                    {"act": "ordago"},
                ]
        elif seat in game._voters:
            out: list[dict[str, Any]] = [{"act": "quiero"}, {"act": "no_quiero"}]
            if not game._ordago:
                if game._bet_amt < MAX_BET:
                    out.append({"act": "envido", "min": game._bet_amt + 1, "max": MAX_BET})
                out.append({"act": "ordago"})
            return out
    elif phase == "recuento" and 0 <= seat <= 3:
        return [{"act": "repartir"}]
    return []


def apply(game: Game, action: Action, rng: random.Random | None = None) -> Game:
    """The game after ``action``; ``game`` itself never changes.

    Raises IllegalAction (with ``game`` unchanged) when the action is not allowed now.
    ``rng`` shuffles the next deal (``repartir``) and any reshuffled pile; None means the
    system's secure generator.
    """
    if not isinstance(action, Action):
        raise IllegalAction("malformed", "Not an action.")
    # An Action can be built with anything: its fields are checked here, read untyped so that
    # the compiled engine does not refuse a wrong type (with a TypeError) before the checks.
    fields: Any = action
    seat, act = fields.seat, fields.act
    if type(seat) is not int or not 0 <= seat <= 3:
        raise IllegalAction("malformed", "The seat must be a number from 0 to 3.")
    if game.phase in ("terminada", "cancelada"):
        raise IllegalAction("game_over", "The game is over.")
    if act == "repartir":
        if game.phase != "recuento":
            raise IllegalAction(
                "illegal_act", "The next hand can only be dealt after the recuento."
            )
        g = game._clone()
        g._new_hand(_shuffled_deck(rng))
        return g
    if act not in RECORD_ACTS:
        raise IllegalAction("unknown_act", f"There is no action called {str(act)[:30]!r}.")
    to, cards = fields.to, fields.cards
    if act == "envido":
        if type(to) is not int:
            raise IllegalAction("malformed", "An envido needs a whole number of tantos.")
    elif to is not None:
        raise IllegalAction("malformed", f"A {act} takes no amount.")
    if act == "descarte":
        if not isinstance(cards, tuple) or not all(type(c) is str for c in cards):
            raise IllegalAction("malformed", "A descarte needs the list of cards.")
    elif cards is not None:
        raise IllegalAction("malformed", f"A {act} takes no cards.")
    g = game._clone()
    g._do(seat, act, to, cards, rng if rng is not None else _SYSTEM_RANDOM)
    return g


def cancel(game: Game) -> Game:
    """The game cancelled (e.g. a player did not come back): no winner, record kept."""
    g = game._clone()
    if g.phase != "terminada":
        g.phase = "cancelada"
        g._voters = []
        g._open_i = -1
        g.winner = None
        g.ended_by = None
    return g


def default_action(game: Game, seat: int) -> Action | None:
    """The safe action the table plays when ``seat``'s turn clock runs out (docs/rules.md §8.2)."""
    legal = legal_actions(game, seat)
    if not legal:
        return None
    act = legal[0]["act"]
    if act == "mus":
        return Action(seat, "corto")
    if act == "descarte":
        eff = game._eff
        hand = game._hands[seat]
        lowest = min(hand, key=lambda c: eff[c])  # the lowest card for grande
        return Action(seat, "descarte", cards=(CODES[lowest],))
    if act == "paso":
        return Action(seat, "paso")
    if act == "quiero":
        return Action(seat, "no_quiero")
    return Action(seat, "repartir")
