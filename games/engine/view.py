"""What each seat may see of a game (docs/protocol.md): the only way game state leaves the engine.

Security property: before the recuento a view never contains a card code of another seat's
hand, of the pile or of the discards, and never the content of votes or discards of a
simultaneous round still in progress (they could help a partner).
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterable, Sequence
from typing import Any

from .cards import CODES
from .evaluate import HandEval
from .game import (
    JUEGO,
    LANCES,
    LLEVA,
    NO_QUERIDO,
    ORDAGO,
    ORDER,
    PARES,
    PASO,
    PUNTO,
    QUERIDO,
    ActEntry,
    Game,
    TallyRow,
    Vote,
    legal_actions,
    overruled_votes,
)

_SHOWN_PHASES = ("recuento", "terminada", "cancelada")


def lance_entry(t: TallyRow) -> dict[str, Any]:
    """A recuento row: how the lance went, who won it and the tantos it was worth/counted."""
    lance, how, winner, worth, counted, bet, deje, bonus = t
    return {
        "lance": LANCES[lance],
        "how": how,
        "winner": winner,
        "tantos": worth,
        "counted": counted,
        "detail": {"bet": bet, "deje": deje, "bonus": bonus},
    }


def _lances_so_far(game: Game) -> list[dict[str, Any]]:
    if game._tally is not None:
        return [lance_entry(t) for t in game._tally]
    out = []
    for lance, how, winner, bet, deje in game._results:
        # While cards are hidden, only publicly known outcomes are shown: a winner decided by
        # the cards (en paso, querido) would leak who holds what.
        out.append(
            {
                "lance": LANCES[lance],
                "how": how,
                "winner": winner if how not in (PASO, QUERIDO) else None,
                "tantos": deje if how not in (PASO, QUERIDO) else None,
                "counted": deje,
                "detail": {"bet": bet, "deje": deje, "bonus": None},
            }
        )
    return out


def said_entries(game: Game) -> list[dict[str, Any]]:
    """What was said this hand, in order. An envido over a bet (a raise) also has ``more``: how
    many tantos it put over the bet that stood (players say «cinco más», not the total). A vote
    that its team's answer overrode (a partner's raise beat it, or a partner's «Quiero» beat a
    «No quiero») has ``overruled``: only complete answers are here, never one in progress."""
    acts = game._acts
    if game.phase == "descarte" or (game.phase == "lance" and game._open_i < 0):
        acts = acts[: game._round_start]  # the simultaneous round in progress stays secret
    clock = game.clock_played(len(game._past)) if game._clock else frozenset()
    return _said(acts, clock, game.mano)


def _said(acts: list[ActEntry], clock: frozenset[int], mano: int) -> list[dict[str, Any]]:
    """``said_entries`` of ``acts`` (``clock``: the indexes the turn clock played; ``mano``: the
    hand's, whose speaking order settles equal raises)."""
    out: list[dict[str, Any]] = []
    votes: list[tuple[dict[str, Any], Vote]] = []  # the answer being read, with its entries
    cur_lance = -1
    standing = 0  # the bet the current round answers (0: none yet; MAX + 1: an órdago)
    raised = 0  # the highest raise of the current round, which becomes the bet after it
    answering = -1  # the team answering the bet
    for i, (seat, act, to, cards, lance) in enumerate(acts):
        e: dict[str, Any] = {"seat": seat, "act": act}
        if i in clock:
            e["by"] = "clock"  # the turn clock played it (docs/rules.md §8.2)
        if to is not None:
            e["to"] = to
        if cards is not None:
            e["n"] = len(cards)  # how many, never which
        if lance >= 0:
            e["lance"] = LANCES[lance]
            if lance != cur_lance:
                _mark_overruled(votes, mano)
                cur_lance, standing, raised, answering = lance, 0, 0, -1
            if standing and seat & 1 != answering:
                # The other team speaks: the round before was settled by a raise (a quiero or
                # no quiero would have ended the lance), and the best raise stands now.
                _mark_overruled(votes, mano)
                standing, raised, answering = raised, 0, seat & 1
            if standing:
                votes.append((e, (seat, act, to)))
            if act in ("envido", "ordago"):
                amount = _ORDAGO_KEY if to is None else to
                if not standing:  # an opening bet: the other team answers it
                    standing, answering = amount, 1 - (seat & 1)
                else:
                    if to is not None:
                        e["more"] = to - standing
                    raised = max(raised, amount)
        out.append(e)
    _mark_overruled(votes, mano)
    return out


def raise_over(game: Game, seat: int, to: int | None) -> int | None:
    """How many tantos an envido to `to` by `seat`, said now, puts over the bet that stands:
    what players say («dos más») and ``said_entries`` would give as its ``more``. None when it
    opens the betting (no bet stands: «Envido 2») or outside the lances."""
    if game.phase != "lance" or to is None:
        return None
    entry = _said([*game._acts, (seat, "envido", to, None, game._lance)], frozenset(), game.mano)[
        -1
    ]
    more = entry.get("more")
    return int(more) if more is not None else None


def _mark_overruled(votes: list[tuple[dict[str, Any], Vote]], mano: int) -> None:
    """Marks the entries of a complete answer that its outcome overrode, and forgets them."""
    for k in overruled_votes([v for _, v in votes], mano):
        votes[k][0]["overruled"] = True
    votes.clear()


#: An órdago, where said_entries compares bets: above any amount.
_ORDAGO_KEY = 41


#: Per-seat counters of ``act_summary`` / ``view["history"]`` (docs/engine.md, "The view").
ACT_KEYS = ("opens", "pasos", "bets", "raises", "big", "ordagos", "quiero", "no_quiero")
HISTORY_KEYS = (*ACT_KEYS, "shown_won", "shown_lost")
BIG_BET = 5  # an envido "big": more than this many tantos over what stood


#: What ``act_summary`` reads of one thing said: (seat, act, envido amount or None, lance), the
#: lance as the engine's index (-1 outside the lances) or as a view's name (None outside).
SaidEntry = tuple[int, str, int | None, int | str | None]


def act_summary(entries: Iterable[SaidEntry]) -> list[dict[str, int]]:
    """What each seat said in the lances of one hand, counted (public: everybody heard it).

    ``entries``: ``(seat, act, to, lance)`` in the order said; entries whose lance is None or
    negative (mus, descarte) are skipped. Per seat: ``opens`` (times it spoke before any bet
    of the lance), ``pasos``, ``bets`` (opening envidos), ``raises`` (envidos over a bet),
    ``big`` (envidos of more than BIG_BET over what stood), ``ordagos`` (opening or raising),
    ``quiero``, ``no_quiero``.
    """
    out = [dict.fromkeys(ACT_KEYS, 0) for _ in range(4)]
    cur_lance: Any = None
    standing = -1  # -1: nobody bet yet in this lance
    for seat, act, to, lance in entries:
        if lance is None or (type(lance) is int and lance < 0):
            continue
        if lance != cur_lance:
            cur_lance, standing = lance, -1
        c = out[seat]
        if standing < 0:
            c["opens"] += 1
            if act == "paso":
                c["pasos"] += 1
            elif act == "envido":
                assert to is not None  # an envido always has its amount
                c["bets"] += 1
                c["big"] += to > BIG_BET
                standing = to
            elif act == "ordago":
                c["ordagos"] += 1
                standing = 41
            continue
        if act == "quiero":
            c["quiero"] += 1
        elif act == "no_quiero":
            c["no_quiero"] += 1
        elif act == "envido":
            assert to is not None
            c["raises"] += 1
            c["big"] += to - standing > BIG_BET
            standing = max(standing, to)
        elif act == "ordago":
            c["ordagos"] += 1
            standing = 41
    return out


def _hand_history(acts: list[ActEntry], tally: Sequence[TallyRow]) -> list[dict[str, int]]:
    """``act_summary`` of a finished hand plus, per seat, the bets it made in lances that were
    accepted and decided at the recuento (``shown_won`` / ``shown_lost``): the recuento shows
    everybody who won them."""
    out = act_summary((a[0], a[1], a[2], a[4]) for a in acts)
    for c in out:
        c["shown_won"] = c["shown_lost"] = 0
    for row in tally:
        lance, how, winner = row[0], row[1], row[2]
        if how != QUERIDO or winner is None:
            continue
        bettors = {a[0] for a in acts if a[4] == lance and a[1] in ("envido", "ordago")}
        for s in bettors:
            out[s]["shown_won" if s & 1 == winner else "shown_lost"] += 1
    return out


#: id(archived actions list) -> (that list, its _hand_history). Archived hands never change
#: (game.py gives every new hand fresh lists), so a summary is computed once per hand.
_HISTORY_CACHE: OrderedDict[int, tuple[list[ActEntry], list[dict[str, int]]]] = OrderedDict()
_HISTORY_CACHE_SIZE = 4096


def history(game: Game) -> dict[str, Any]:
    """Public summary of the earlier hands of this game: per seat, ``HISTORY_KEYS`` summed.

    Only what every player at the table saw or heard: what was said (never which cards were
    discarded) and the winners of accepted bets, shown at the recuento.
    """
    seats = [dict.fromkeys(HISTORY_KEYS, 0) for _ in range(4)]
    for past in game._past:
        acts, tally = past[2], past[5]
        hit = _HISTORY_CACHE.get(id(acts))
        if hit is not None and hit[0] is acts:
            summary = hit[1]
        else:
            summary = _hand_history(acts, tally)
            _HISTORY_CACHE[id(acts)] = (acts, summary)
            if len(_HISTORY_CACHE) > _HISTORY_CACHE_SIZE:
                _HISTORY_CACHE.popitem(last=False)
        for total, c in zip(seats, summary, strict=True):
            for k, n in c.items():
                if n:
                    total[k] += n
    return {"hands": len(game._past), "seats": seats}


#: id(archived actions list) -> (that list, its ``recall_hands`` entry), as for ``_HISTORY_CACHE``.
_RECALL_CACHE: OrderedDict[int, tuple[list[ActEntry], dict[str, Any]]] = OrderedDict()


def recall_hands(game: Game) -> list[dict[str, Any]]:
    """The earlier hands of this game as everybody at the table saw them, oldest first: per
    hand its ``mano``, the ``scores`` it began with, what was ``said`` (as ``said_entries``)
    and the four ``hands`` as they ended, by seat, shown to all at the recuento. Public, like
    ``history``, but long: a view carries it only when asked (``view(..., recall=True)``, for
    the bots and the hand analysis), never in the state messages. Each hand's entry is built
    once and shared by every later view of the game: read it, never change it."""
    out: list[dict[str, Any]] = []
    before: tuple[int, int] = (0, 0)
    for i, past in enumerate(game._past):
        acts = past[2]
        hit = _RECALL_CACHE.get(id(acts))
        if hit is not None and hit[0] is acts:
            entry = hit[1]
        else:
            entry = {
                "mano": past[3],
                "scores": list(before),
                "said": _said(acts, game.clock_played(i) if game._clock else frozenset(), past[3]),
                "hands": [[CODES[c] for c in h] for h in past[6]],
            }
            _RECALL_CACHE[id(acts)] = (acts, entry)
            if len(_RECALL_CACHE) > _HISTORY_CACHE_SIZE:
                _RECALL_CACHE.popitem(last=False)
        out.append(entry)
        before = past[4]
    return out


def _eligible(game: Game, lance: int) -> tuple[int, ...]:
    """The seats that played ``lance`` in the current hand, in speaking order."""
    if lance in (PARES, JUEGO):
        answers = game._answers[0 if lance == PARES else 1]
        if answers is None:
            return ()
        return LLEVA[game.mano][answers]
    return ORDER[game.mano]


#: HandEval fields by index (the engine keeps the evaluations as plain tuples).
_F_PARES, _F_PARES_VALUE, _F_POINTS, _F_JUEGO_VALUE = map(
    HandEval._fields.index, ("pares", "pares_value", "points", "juego_value")
)
#: The field that decides each lance (by lance index); punto compares the points.
_STRENGTH: tuple[int, ...] = tuple(
    HandEval._fields.index(f) for f in ("grande", "chica", "pares", "juego", "points")
)
_PARES_KINDS = ("", "par", "medias", "duples")


def _best(game: Game, seats: Iterable[int], lance: int) -> int | None:
    """The seat among ``seats`` (in speaking order) whose hand wins ``lance``: ties go to the
    earlier speaker, as in the engine's recuento."""
    field = _STRENGTH[lance]
    best: int | None = None
    top = -(10**9)
    for s in seats:
        v = game._evals[s][field]
        if v > top:
            best, top = s, v
    return best


def _hand(game: Game, seat: int, lance: int) -> dict[str, Any]:
    """One seat's hand as it counts in ``lance``: the combination's name (pares: par, medias or
    duples; juego: 31 or juego; punto) and its points for juego and punto."""
    ev = game._evals[seat]
    out: dict[str, Any] = {"seat": seat, "combo": None, "points": None}
    if lance == PARES:
        out["combo"] = _PARES_KINDS[ev[_F_PARES] // 100] or None
    elif lance == JUEGO:
        if ev[_F_JUEGO_VALUE]:
            out["combo"] = "31" if ev[_F_POINTS] == 31 else "juego"
            out["points"] = ev[_F_POINTS]
    elif lance == PUNTO:
        out["combo"], out["points"] = "punto", ev[_F_POINTS]
    return out


def breakdown(game: Game) -> list[dict[str, Any]] | None:
    """How each lance's tantos add up, once the hands are shown (docs/rules.md §7): one entry per
    row of ``view["lances"]``, in the same order.

    ``parts``: ``{"kind", "tantos", "seat"?, "points"?}`` with kind ``deje`` (paid when the bet
    was refused), ``envite`` (the bet, querido), ``paso`` (grande or chica en paso), ``par``,
    ``medias``, ``duples`` (each pares of the winning pair), ``31``, ``juego`` (each juego of
    it), ``punto``; their tantos add up to the row's ``tantos``. ``win``: the hand that won the
    lance when the cards decided it (en paso, querido, órdago, or the best of the only pair
    that lleva), with ``seat``, ``combo`` (par, medias, duples, 31, juego, punto or None) and
    ``points``; ``beat``: the best hand of the other pair it beat, the same way (or None);
    ``tie``: whether the two were equal and ``win`` won by speaking first (closer to the mano).
    None before the hands are shown.
    """
    tally = game._tally
    if game.phase not in _SHOWN_PHASES or tally is None or not game._evals:
        return None
    out = []
    for lance, how, winner, _worth, _counted, bet, deje, bonus in tally:
        parts: list[dict[str, Any]] = []
        if deje:
            parts.append({"kind": "deje", "tantos": deje})
        win: dict[str, Any] | None = None
        beat: dict[str, Any] | None = None
        tie = False
        if winner is not None and how != NO_QUERIDO:
            elig = _eligible(game, lance)
            ours = [s for s in elig if s & 1 == winner]
            seat = _best(game, ours, lance)
            if seat is not None:
                win = _hand(game, seat, lance)
            if how in (PASO, QUERIDO, ORDAGO):
                rival = _best(game, [s for s in elig if s & 1 != winner], lance)
                beat = _hand(game, rival, lance) if rival is not None else None
                if seat is not None and rival is not None:
                    field = _STRENGTH[lance]
                    tie = game._evals[seat][field] == game._evals[rival][field]
        if winner is not None and how == QUERIDO:
            parts.append({"kind": "envite", "tantos": bet})
        if winner is not None and bonus:
            if lance in (PARES, JUEGO):
                field = _F_PARES_VALUE if lance == PARES else _F_JUEGO_VALUE
                for s in ORDER[game.mano]:
                    value = game._evals[s][field]
                    if s & 1 == winner and value:
                        hand = _hand(game, s, lance)
                        part = {"kind": hand["combo"], "tantos": value, "seat": s}
                        if lance == JUEGO:
                            part["points"] = hand["points"]
                        parts.append(part)
            elif lance == PUNTO:
                part = {"kind": "punto", "tantos": bonus}
                if win is not None:  # not when the bet was refused: nobody showed the punto
                    part["seat"], part["points"] = win["seat"], win["points"]
                parts.append(part)
            else:
                parts.append({"kind": "paso", "tantos": bonus})
        out.append({"lance": LANCES[lance], "win": win, "beat": beat, "tie": tie, "parts": parts})
    return out


def seat_view(game: Game, seat: int) -> dict[str, Any]:
    """The part of ``view(game, seat)`` only that seat sees (its ``"you"``); the rest of the view
    is the same for every seat and for spectators, so a server can build it once per move."""
    return {"seat": seat, "cards": game.hand_codes(seat), "legal": legal_actions(game, seat)}


def step_key(game: Game) -> tuple[int, str, str | None, int | None, bool | None, int | None]:
    """What a decision depends on besides whose turn it is: hand, phase, lance and the bet
    standing (amount, órdago, answering team), as ``view`` shows them."""
    if game.phase == "lance" and game._open_i < 0:
        return (
            game.hand_no,
            game.phase,
            game.lance,
            game._bet_amt,
            game._ordago,
            1 - game._bet_team,
        )
    return (game.hand_no, game.phase, game.lance, None, None, None)


def view(game: Game, seat: int | None, recall: bool = False) -> dict[str, Any]:
    """The state as ``seat`` (None: a spectator) may see it, JSON-serialisable; with
    ``recall`` also ``"past"``, the earlier hands as shown at their recuentos (``recall_hands``)."""
    phase = game.phase
    shown = phase in _SHOWN_PHASES
    you = seat_view(game, seat) if seat is not None else None
    bet = None
    if phase == "lance" and game._open_i < 0:
        bet = {
            "lance": LANCES[game._lance],
            "amount": game._bet_amt,
            "ordago": game._ordago,
            "by_team": game._bet_team,
            "by_seat": game._bet_seat,
            "answering_team": 1 - game._bet_team,
            "votes": sorted(s for s, _a, _t in game._votes),  # who voted, not what
        }
    pares, juego = game._answers
    out: dict[str, Any] = {
        "phase": phase,
        "mode": game.mode,
        "target": game.target,
        "mano": game.mano,
        "hand_no": game.hand_no,
        "scores": list(game.scores),
        "winner": game.winner,
        "ended_by": game.ended_by,
        "lance": game.lance,
        "to_act": game.to_act(),
        "you": you,
        "changed": {"last": list(game._changed_last), "total": list(game._changed_total)},
        "discarded": [s for s in range(4) if game._cur_disc[s] is not None]
        if phase == "descarte"
        else [],
        "answers": {
            "pares": list(pares) if pares is not None else None,
            "juego": list(juego) if juego is not None else None,
        },
        "bet": bet,
        "said": said_entries(game),
        "lances": _lances_so_far(game),
        "history": history(game),
        "hands": [game.hand_codes(s) for s in range(4)] if shown else None,
        "deal_mano": game.deal_mano,
        "breakdown": breakdown(game),
    }
    if recall:
        out["past"] = recall_hands(game)
    return out


__all__ = [
    "ACT_KEYS",
    "HISTORY_KEYS",
    "act_summary",
    "breakdown",
    "history",
    "lance_entry",
    "recall_hands",
    "said_entries",
    "seat_view",
    "step_key",
    "view",
]
