"""The practice bots, by level (docs/engine.md, "Bots").

    decide(view(game, seat), rng=None, level="normal") -> Action

Every level plays from one seat's view only and returns one of ``view["you"]["legal"]``
(``ValueError`` when there is none); ``repartir`` whenever that is legal. Deterministic given
``rng``.

* ``"principiante"``: the «normal» bot with a beginner's mistakes (``MISTAKE``): now and then
  it says mus with a hand to cut or corto with one to change, changes the wrong cards, passes
  instead of betting, accepts or refuses at random, and half of its órdagos become a small
  envido. Never illegal. With ``rng=None`` it makes no mistakes (it is «normal» then).
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
#: How often the «principiante» errs, per kind of decision.
MISTAKE = {"mus": 0.25, "descarte": 0.3, "open": 0.3, "answer": 0.3, "ordago": 0.5}


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
    if act in ("mus", "corto"):
        if r < MISTAKE["mus"]:
            return Action(seat, "corto" if act == "mus" else "mus")
    elif act == "descarte":
        if r < MISTAKE["descarte"]:
            cards = view["you"]["cards"]
            return Action(seat, act, cards=tuple(rng.sample(cards, rng.randint(1, 3))))
    elif act == "ordago":
        if r < MISTAKE["ordago"]:
            env = legal.get("envido")
            if env is not None:
                return Action(seat, "envido", to=env["min"])
            return Action(seat, "quiero")
    elif act in ("paso", "envido") and "paso" in legal:
        if r < MISTAKE["open"]:
            if act == "envido":
                return Action(seat, "paso")
            return Action(seat, "envido", to=legal["envido"]["min"])
    elif act in ("quiero", "no_quiero", "envido") and "quiero" in legal and r < MISTAKE["answer"]:
        return Action(seat, rng.choice(("quiero", "no_quiero")))
    return action
