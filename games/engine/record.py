"""Game records (``mus-record/1``, docs/game-record.md): export, and replay with validation.

Replay feeds every action of a record into a single Game in place (``Game._do``), without the
copies the public ``apply`` makes: that is what makes replay fast. Records are trusted with
nothing; they are validated as they go.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from operator import itemgetter, length_hint
from typing import Any

from .cards import CODE_TO_ID, CODES, MODES
from .errors import IllegalAction, RecordError
from .game import TARGET, ActEntry, Game, TallyRow
from .view import lance_entry

FORMAT = "mus-record/1"


def _action_dict(a: ActEntry) -> dict[str, Any]:
    seat, act, to, cards, _lance = a
    if to is not None:
        return {"seat": seat, "act": act, "to": to}
    if cards is not None:
        return {"seat": seat, "act": act, "cards": list(cards)}
    return {"seat": seat, "act": act}


def _hand_dict(
    deck: tuple[int, ...],
    resh: list[tuple[int, ...]],
    acts: list[ActEntry],
    clock: frozenset[int] = frozenset(),
) -> dict[str, Any]:
    d: dict[str, Any] = {"deck": [CODES[c] for c in deck]}
    if resh:  # only hands whose pile ran out have reshuffles
        d["reshuffles"] = [[CODES[c] for c in pile] for pile in resh]
    actions = [_action_dict(a) for a in acts]
    for i in clock:
        actions[i]["by"] = "clock"
    d["actions"] = actions
    return d


def export_record(game: Game) -> dict[str, Any]:
    """The complete, replayable record of ``game`` so far (JSON-serialisable)."""
    if not game._clock:
        hands = [_hand_dict(h[0], h[1], h[2]) for h in game._past]
        hands.append(_hand_dict(game._deck, game._resh, game._acts))
    else:
        hands = [
            _hand_dict(h[0], h[1], h[2], game.clock_played(i)) for i, h in enumerate(game._past)
        ]
        hands.append(
            _hand_dict(game._deck, game._resh, game._acts, game.clock_played(len(game._past)))
        )
    return {
        "format": FORMAT,
        "mode": game.mode,
        "target": game.target,
        "first_mano": game.first_mano,
        "hands": hands,
    }


_SIMPLE_ACTS = frozenset(("mus", "corto", "paso", "ordago", "quiero", "no_quiero"))
#: act -> number of keys its record form has (seat, act and maybe to/cards).
_ARITY: dict[str, int] = {a: 2 for a in _SIMPLE_ACTS} | {"envido": 3, "descarte": 3}
#: act -> (the act string the engine compares with, arity).
_ACT_INFO: dict[str, tuple[str, int]] = {a: (a, n) for a, n in _ARITY.items()}
#: The reshuffles of a hand that has none (never changed: _reshuffle only takes from a list
#: that is not empty).
_NO_PILES: list[tuple[int, ...]] = []
#: The 40 card ids as bytes, for _parse_cards.
_ALL_IDS = bytes(range(40))
_HAND_KEYS = frozenset(("deck", "reshuffles", "actions"))
#: "ended" (how a cancelled game ended, docs/game-record.md) is kept for readers and not replayed.
_RECORD_KEYS = frozenset(("format", "mode", "target", "first_mano", "hands", "ended"))


def _parse_cards(codes: Any, n: int | None) -> tuple[int, ...] | None:
    """Card ids for a list of distinct codes (of length ``n`` if given), or None if invalid."""
    if type(codes) is not list or (n is not None and len(codes) != n):
        return None
    try:
        # One C-level call does the 40 look-ups of a deck (the fastest way measured); with a
        # single key itemgetter returns the value itself, not a tuple, hence the other branch.
        ids = (
            itemgetter(*codes)(CODE_TO_ID)
            if len(codes) > 1
            else tuple(CODE_TO_ID[c] for c in codes)
        )
    except (KeyError, TypeError):
        return None
    # Distinct: deleting k distinct ids from the 40 leaves 40 - k, any repeat leaves more. One
    # C-level bytes.translate, measured a third the cost of building a set of the 40 ids.
    if len(_ALL_IDS.translate(None, bytes(ids))) != 40 - len(ids):
        return None
    return ids


def _index(actions: list[Any], it: Iterator[Any]) -> int:
    """1-based index of the action ``it`` (an iterator over ``actions``) handed out last."""
    return len(actions) - length_hint(it)


def _bad_action(hi: int, ai: int, a: Any) -> RecordError:
    """The error for an action that is not of the record's shape."""
    if type(a) is not dict:
        return RecordError(hi, ai, "an action must be an object")
    act = a.get("act")
    if "seat" not in a or "act" not in a:
        return RecordError(hi, ai, "an action needs seat and act")
    seat = a["seat"]
    if type(seat) is not int or not 0 <= seat <= 3:
        return RecordError(hi, ai, "seat must be 0 to 3")
    if type(act) is not str or act not in _ARITY:
        return RecordError(hi, ai, f"unknown act {str(act)[:30]!r}")
    if act == "envido":
        if type(a.get("to")) is not int:
            return RecordError(hi, ai, "an envido needs a whole number 'to'")
    elif act == "descarte":
        cards = a.get("cards")
        if type(cards) is not list or not all(type(c) is str for c in cards):
            return RecordError(hi, ai, "a descarte needs its list of card codes")
    known = {"seat", "act", "by", "to" if act == "envido" else "cards"}
    if a.get("by", "clock") != "clock":
        return RecordError(hi, ai, "'by' can only be \"clock\"")
    extra = sorted(map(str, set(a) - known))
    if not extra:
        return RecordError(hi, ai, "malformed action")
    return RecordError(hi, ai, f"unexpected field {extra[0][:30]!r} in a {act}")


def replay(record: Any, upto: int | None = None) -> Game:
    """The game a record describes, validated action by action.

    ``upto``: stop after that many actions (counted over the whole record); later hands are
    not dealt. Raises RecordError for anything malformed or illegal.
    """
    if type(record) is not dict:
        raise RecordError(0, 0, "a record must be a JSON object")
    if record.get("format") != FORMAT:
        raise RecordError(0, 0, f"format must be {FORMAT!r}")
    if not set(record) <= _RECORD_KEYS:
        raise RecordError(0, 0, f"unknown field {sorted(set(record) - _RECORD_KEYS)[0]!r}")
    mode = record.get("mode")
    if mode not in MODES:
        raise RecordError(0, 0, f"mode must be one of {', '.join(MODES)}")
    if record.get("target") != TARGET or type(record.get("target")) is not int:
        raise RecordError(0, 0, f"target must be {TARGET}")
    first_mano = record.get("first_mano")
    if type(first_mano) is not int or not 0 <= first_mano <= 3:
        raise RecordError(0, 0, "first_mano must be a seat from 0 to 3")
    hands = record.get("hands")
    if type(hands) is not list or not hands:
        raise RecordError(0, 0, "hands must be a non-empty list")

    if upto is not None and (type(upto) is not int or upto < 0):
        raise ValueError("upto must be a number of actions, 0 or more")
    g = Game(mode, first_mano)
    act_info = _ACT_INFO  # locals: this loop runs for every action of every replayed game
    budget = upto if upto is not None else -1  # -1: no limit
    for hi, hand in enumerate(hands, 1):
        if budget == 0 and hi > 1:
            break
        if type(hand) is not dict or not hand.keys() <= _HAND_KEYS:
            raise RecordError(hi, 0, "a hand must be an object with deck and actions")
        if hi > 1:
            if g.phase == "terminada":
                raise RecordError(hi, 0, "the game was already over")
            if g.phase != "recuento":
                raise RecordError(hi, 0, "the previous hand is not finished")
        deck = _parse_cards(hand.get("deck"), 40)
        if deck is None:
            raise RecordError(hi, 0, "the deck must list the 40 distinct cards")
        piles: list[tuple[int, ...]] = _NO_PILES
        if "reshuffles" in hand:
            piles = []
            raw = hand["reshuffles"]
            if type(raw) is not list or not raw:
                raise RecordError(hi, 0, "reshuffles must be a non-empty list of piles")
            for pile in raw:
                ids = _parse_cards(pile, None)
                if not ids:
                    raise RecordError(hi, 0, "a reshuffle must list distinct cards")
                piles.append(ids)
        actions = hand.get("actions")
        if type(actions) is not list:
            raise RecordError(hi, 0, "actions must be a list")
        if budget >= 0:  # replay(upto=...): only the first ``budget`` actions
            if len(actions) >= budget:
                actions = actions[:budget]
            budget -= len(actions)
        g._new_hand(deck)
        # A plain loop over the actions: the action's index (for the error) is only worked out
        # when one is refused, from how many the iterator has handed out.
        it = iter(actions)
        for a in it:
            # The common, well-formed case costs a few dict look-ups; anything odd goes to
            # _bad_action, which works out the message.
            try:
                seat = a["seat"]
                # _ACT_INFO also gives the engine's own copy of the act string: acts decoded
                # from JSON are equal but not identical, and identity makes every later
                # comparison in the state machine cheaper.
                act, arity = act_info[a["act"]]
            except (KeyError, TypeError):
                raise _bad_action(hi, _index(actions, it), a) from None
            # (A seat of the wrong number is refused by the state machine, which compares it
            # with the seats that may act; a bool would compare equal to 0 or 1, hence the type.)
            # An action the turn clock played says so ("by": "clock"); it replays the same.
            clock = len(a) != arity
            if type(seat) is not int or (clock and (len(a) != arity + 1 or a.get("by") != "clock")):
                raise _bad_action(hi, _index(actions, it), a)
            try:
                # (one call per shape, so the common one passes its Nones as constants; g._do
                # itself, not a bound method kept in a local: compiled, that is a direct call)
                if arity == 2:
                    g._do(seat, act, None, None, piles)
                elif act == "envido":
                    to = a.get("to")
                    if type(to) is not int:
                        raise _bad_action(hi, _index(actions, it), a)
                    g._do(seat, act, to, None, piles)
                else:
                    cards = a.get("cards")
                    if type(cards) is not list or not all(type(c) is str for c in cards):
                        raise _bad_action(hi, _index(actions, it), a)
                    g._do(seat, act, None, tuple(cards), piles)
            except IllegalAction as e:
                raise RecordError(hi, _index(actions, it), e.message) from None
            if clock:
                g.mark_clock()
        if piles and budget != 0:
            raise RecordError(hi, 0, "the record has a reshuffle the hand never needed")
    return g


def _hand_result(mano: int, scores: tuple[int, int], tally: Sequence[TallyRow]) -> dict[str, Any]:
    return {
        "mano": mano,
        "scores": list(scores),
        "lances": [lance_entry(t) for t in tally],
    }


def result(g: Game) -> dict[str, Any]:
    """The replay output for a game (docs/game-record.md)."""
    hands = [_hand_result(h[3], h[4], h[5]) for h in g._past]
    tally = g._tally if g._tally is not None else g._tally_without_recuento()
    hands.append(_hand_result(g.mano, g.scores, tally))
    return {
        "scores": list(g.scores),
        "winner": g.winner,
        "ended_by": g.ended_by,
        "hands": hands,
    }


def replay_result(record: Any) -> dict[str, Any]:
    """Replay ``record`` and summarise it exactly as the replay command prints it."""
    return result(replay(record))
