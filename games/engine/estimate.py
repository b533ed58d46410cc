"""A seat's chances per lance and the «fuerte» bot's advice, from the view only.

For the hand analysis (issue #19) and curious players:

    chances(view, rng, samples=DEFAULT_SAMPLES) -> {"grande": p, "chica": p, "pares": p,
                                                    "juego": p}
    advice(view, rng, samples=DEFAULT_SAMPLES) -> {"chances", "action", "options"}

Both read only what the view's seat may know (its cards, what was said and answered this hand,
the lleva / no lleva answers, the scores, how loose the others play); the unseen cards are
sampled consistently with it (``sampling``). Deterministic given ``rng``.
"""

from __future__ import annotations

import random
from typing import Any

from .strong import analyse, analyse_chances

__all__ = ["DEFAULT_SAMPLES", "LANCES", "advice", "chances"]

LANCES: tuple[str, ...] = ("grande", "chica", "pares", "juego")
#: Deals sampled by default: the standard error of a chance is at most 0.5 / sqrt(samples),
#: 1.6 points at 1000. ``advice`` then takes about 50 ms of CPU for a betting decision (every
#: envido amount valued) and about 20 ms for the others (``chances`` alone: about 20 ms).
DEFAULT_SAMPLES = 1000


def chances(
    view: dict[str, Any], rng: random.Random, samples: int = DEFAULT_SAMPLES
) -> dict[str, float]:
    """For each of ``LANCES``, the estimated probability that the view's seat's pair holds the
    hand that wins that lance when the cards are shown (0..1).

    * ``grande``, ``chica``: the pair's best hand beats the other pair's (ties go to the
      earlier speaker from the mano);
    * ``pares``: somebody of the pair has pares and the pair's best pares beat the other
      pair's; 0 in the deals where nobody, or only the other pair, has pares;
    * ``juego``: the juego lance when somebody has juego (the pair's best juego wins; 0 when
      only the other pair has juego), else punto (the pair's best punto wins).

    Cards only: what was bet does not change these numbers (a refused bet wins the lance for
    the bettors whatever the cards; ``advice`` values the bets). Needs a seat view
    (``view["you"]``), in any phase.
    """
    if not view.get("you"):
        raise ValueError("a seat's view is needed")
    return analyse_chances(view, rng, samples)


def advice(
    view: dict[str, Any], rng: random.Random, samples: int = DEFAULT_SAMPLES
) -> dict[str, Any]:
    """What the «fuerte» bot thinks of the view's seat's decision.

    ``{"chances": chances(...), "action": {...}, "options": [{"action": {...}, "value": v}]}``
    with actions in their record form (``Action.to_dict()``). ``action`` is what «fuerte» plays
    on these ``samples`` deals (``bot.decide`` samples fewer, so on a close call it may
    differ), or, against a pair it reads as cardless, what the rules it then follows say.
    ``value`` is the estimated chance (0..1) to win the *game* after that option (see
    ``strong``; the race model counts the seat's score ``strong.EDGE`` tantos higher): the
    cost of a choice is the best value minus its value. ``options`` lists every legal option
    of a betting decision (paso / quiero / no quiero, every envido amount, órdago); it is
    empty for the mus, the discards and repartir, which are not valued.
    Raises ValueError when the seat has nothing to decide.
    """
    a = analyse(view, rng, samples, every_amount=True)
    return {
        "chances": a.chances,
        "action": a.action.to_dict(),
        "options": [{"action": o.to_dict(), "value": v} for o, v in a.options],
    }
