"""What each seat may see of a game (PROTOCOL.md): the only way game state leaves the engine.

Security property: before the recuento a view never contains a card code of another seat's
hand, of the pile or of the discards, and never the content of votes or discards of a
simultaneous round still in progress (they could help a partner).
"""

from __future__ import annotations

from typing import Any

from .game import LANCES, PASO, QUERIDO, Game, legal_actions

_SHOWN_PHASES = ("recuento", "terminada", "cancelada")


def lance_entry(t: tuple) -> dict[str, Any]:
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
    acts = game._acts
    if game.phase == "descarte" or (game.phase == "lance" and game._open_i < 0):
        acts = acts[: game._round_start]  # the simultaneous round in progress stays secret
    out = []
    for seat, act, to, cards, lance in acts:
        e: dict[str, Any] = {"seat": seat, "act": act}
        if to is not None:
            e["to"] = to
        if cards is not None:
            e["n"] = len(cards)  # how many, never which
        if lance >= 0:
            e["lance"] = LANCES[lance]
        out.append(e)
    return out


def view(game: Game, seat: int | None) -> dict[str, Any]:
    """The state as ``seat`` (None: a spectator) may see it, JSON-serialisable."""
    phase = game.phase
    shown = phase in _SHOWN_PHASES
    you = None
    if seat is not None:
        you = {
            "seat": seat,
            "cards": game.hand_codes(seat),
            "legal": legal_actions(game, seat),
        }
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
    return {
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
        "hands": [game.hand_codes(s) for s in range(4)] if shown else None,
    }


__all__ = ["lance_entry", "said_entries", "view"]
