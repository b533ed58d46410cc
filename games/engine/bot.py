"""The practice bots, by level (docs/engine.md, "Bots").

    decide(view(game, seat), rng=None, level="normal") -> Action

Every level plays from one seat's view only and returns one of ``view["you"]["legal"]``
(``ValueError`` when there is none); ``repartir`` whenever that is legal. Deterministic given
``rng``.

* ``"principiante"``: the «normal» bot playing simply (``MISTAKE``): it asks for mus with
  hands to cut, now and then changes the wrong cards, bets the least and never raises, and
  accepts bets it should refuse. Its órdagos are «normal»'s (near the end or far behind).
  Never illegal. With ``rng=None`` it makes no mistakes (it is «normal» then).
* ``"normal"``: the bot of issue #11 (``classic``), unchanged.
* ``"fuerte"``: bets from sampled deals of the unseen cards (``strong``); with ``rng=None`` its
  generator is seeded from the view.
"""

from __future__ import annotations

import random
from typing import Any

from . import classic, strong
from .actions import Action
from .classic import game_win_probability, hand_info

__all__ = ["DEFAULT_LEVEL", "LEVELS", "decide", "game_win_probability", "hand_info"]

LEVELS: tuple[str, ...] = ("principiante", "normal", "fuerte")
DEFAULT_LEVEL = "normal"
#: How the «principiante» plays simply, per kind of decision: it keeps asking for cards
#: (a corto of «normal» becomes mus), changes the wrong cards now and then, and accepts bets
#: it should refuse. It bets small (every envido is the least, no raises), and half of the
#: órdagos «normal» would say (near the end of the game or far behind) it does not dare.
MISTAKE = {"mus": 0.3, "descarte": 0.25, "answer": 0.45, "ordago": 0.5}


def decide(
    view: dict[str, Any], rng: random.Random | None = None, level: str = DEFAULT_LEVEL
) -> Action:
    """The action of a bot of ``level`` (one of ``LEVELS``) for the view's seat."""
    if level == "normal":
        return classic.decide(view, rng)
    if level == "fuerte":
        return strong.decide(view, rng)
    if level == "principiante":
        return _beginner(view, rng)
    raise ValueError(f"unknown bot level {level!r}; the levels are {', '.join(LEVELS)}")


def _beginner(view: dict[str, Any], rng: random.Random | None) -> Action:
    action = classic.decide(view, rng)
    if rng is None:
        return action
    seat, act = action.seat, action.act
    legal = {d["act"]: d for d in view["you"]["legal"]}
    r = rng.random()
    if act == "corto":
        if r < MISTAKE["mus"]:
            return Action(seat, "mus")
    elif act == "descarte":
        if r < MISTAKE["descarte"]:
            cards = view["you"]["cards"]
            return Action(seat, act, cards=tuple(rng.sample(cards, rng.randint(1, 3))))
    elif act == "ordago":
        if r < MISTAKE["ordago"]:  # it does not dare: the least envido, or quiero
            if "quiero" in legal:
                return Action(seat, "quiero")
            return Action(seat, "envido", to=legal["envido"]["min"])
    elif act == "envido":
        if "quiero" in legal:  # no raises: it sees the bet
            return Action(seat, "quiero")
        return Action(seat, "envido", to=legal["envido"]["min"])
    elif act == "no_quiero" and not view["bet"]["ordago"] and r < MISTAKE["answer"]:
        return Action(seat, "quiero")
    return action
