"""Exporting a game as a ``mus-record/1`` record (GAME-RECORD.md)."""

from __future__ import annotations

from typing import Any

from .cards import CODES
from .game import Game

FORMAT = "mus-record/1"


def _action_dict(a: tuple) -> dict[str, Any]:
    seat, act, to, cards, _lance = a
    if to is not None:
        return {"seat": seat, "act": act, "to": to}
    if cards is not None:
        return {"seat": seat, "act": act, "cards": list(cards)}
    return {"seat": seat, "act": act}


def _hand_dict(deck: tuple[int, ...], resh, acts) -> dict[str, Any]:
    d: dict[str, Any] = {"deck": [CODES[c] for c in deck]}
    if resh:  # only hands whose pile ran out have reshuffles
        d["reshuffles"] = [[CODES[c] for c in pile] for pile in resh]
    d["actions"] = [_action_dict(a) for a in acts]
    return d


def export_record(game: Game) -> dict[str, Any]:
    """The complete, replayable record of ``game`` so far (JSON-serialisable)."""
    hands = [_hand_dict(h[0], h[1], h[2]) for h in game._past]
    hands.append(_hand_dict(game._deck, game._resh, game._acts))
    return {
        "format": FORMAT,
        "mode": game.mode,
        "target": game.target,
        "first_mano": game.first_mano,
        "hands": hands,
    }
