"""Hand analysis of a finished game: every decision, from its player's point of view.

`analyse(record)` replays a ``mus-record/1`` step by step. At each recorded action it builds the
view of the seat that acted, exactly as that seat saw the table at that moment (`view.view`: its
own cards, what was said, never another hand), and asks the strong bot's estimator
(`estimate.advice`) for the chances of that seat's pair in each lance, the action the strong bot
would have taken and its value for every legal option. The decision's **cost** is the value of
the best option minus the value of the option the player chose (0 when they chose the best).

Pure (no Django) and deterministic: each decision gets its own generator seeded from the game's
seed and the decision's place, so the same record and seed give the same analysis whatever else
runs. The site runs it in a Celery task (`rankings.analysis`) and stores the result with the game.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from . import estimate
from .game import Game
from .record import replay
from .view import raise_over, view

#: The analysis format, stored with it (a later change of format recomputes old ones).
FORMAT = "mus-analysis/1"

#: How many of the costliest decisions the summary lists.
WORST_SHOWN = 5

#: Costs at or below this are noise of the estimate, not mistakes: the summary leaves them out.
MIN_COST = 0.005

Advice = Callable[..., dict[str, Any]]
Progress = Callable[[int, int], None]


def decision_count(record: Mapping[str, Any]) -> int:
    """How many decisions (recorded actions) `analyse` looks at."""
    return sum(len(hand.get("actions") or []) for hand in record["hands"])


def _game_before(record: Mapping[str, Any], hand_index: int, step: int, before: int) -> Any:
    """The game just before action `step` (0-based) of hand `hand_index` (0-based): the hands
    before it, then that hand dealt and its first `step` actions (`before` = the actions of the
    earlier hands)."""
    hands = record["hands"]
    if step == 0:
        # Dealt, nothing said yet: no reshuffle can have happened.
        first = {"deck": hands[hand_index]["deck"], "actions": []}
        return replay({**record, "hands": [*hands[:hand_index], first]})
    return replay({**record, "hands": hands[: hand_index + 1]}, upto=before + step)


def _key(action: Mapping[str, Any]) -> tuple[Any, ...]:
    """What identifies an option, whoever's seat it names: the act, the amount, the cards."""
    cards = action.get("cards")
    return (action.get("act"), action.get("to"), tuple(sorted(cards)) if cards else None)


def chosen_value(chosen: Mapping[str, Any], options: Sequence[Mapping[str, Any]]) -> float | None:
    """The estimator's value of the option the player chose: the same act, amount and cards;
    for an envido the estimator did not value, the valued envido of the nearest amount. None
    when no option is like it."""
    key = _key(chosen)
    for option in options:
        if _key(option["action"]) == key:
            return float(option["value"])
    if chosen.get("act") == "envido" and isinstance(chosen.get("to"), int):
        envidos = [o for o in options if o["action"].get("act") == "envido" and "to" in o["action"]]
        if envidos:
            near = min(envidos, key=lambda o: abs(int(o["action"]["to"]) - int(chosen["to"])))
            return float(near["value"])
    return None


def _plain(action: Mapping[str, Any], game: Game, seat: int) -> dict[str, Any]:
    """An action in record form without the seat (the decision says whose it is), and for a
    raise, the tantos it puts over the bet (``more``), so the page says it as the table did:
    «Dos más», not «Envido 4»."""
    out: dict[str, Any] = {"act": action["act"]}
    if action.get("to") is not None:
        out["to"] = action["to"]
        if action["act"] == "envido":
            more = raise_over(game, seat, action["to"])
            if more is not None:
                out["more"] = more
    if action.get("cards") is not None:
        out["cards"] = list(action["cards"])
    return out


def analyse_decision(
    record: Mapping[str, Any],
    hand_index: int,
    step: int,
    before: int,
    rng: random.Random,
    *,
    samples: int | None = None,
    advise: Advice = estimate.advice,
) -> dict[str, Any]:
    """One decision: action `step` of hand `hand_index` (both 0-based), seen by its player."""
    action = record["hands"][hand_index]["actions"][step]
    seat = int(action["seat"])
    game = _game_before(record, hand_index, step, before)
    seen = view(game, seat, recall=True)
    kwargs: dict[str, Any] = {} if samples is None else {"samples": samples}
    advice = advise(seen, rng, **kwargs)
    values = [round(float(o["value"]), 4) for o in advice.get("options") or []]
    options: list[dict[str, Any]] = [
        {"action": _plain(o["action"], game, seat), "value": v}
        for o, v in zip(advice.get("options") or [], values, strict=True)
    ]
    best = _plain(advice["action"], game, seat)
    best_value = max(values) if values else None
    mine = chosen_value(action, options)
    cost = None if mine is None or best_value is None else round(max(0.0, best_value - mine), 4)
    return {
        "hand": hand_index + 1,
        "step": step,
        "seat": seat,
        "phase": game.phase,
        "lance": game.lance,
        "scores": list(game.scores),
        "action": _plain(action, game, seat),
        "clock": action.get("by") == "clock",
        "chances": {
            lance: round(float(p), 4) for lance, p in (advice.get("chances") or {}).items()
        },
        "best": best,
        "same": _key(best) == _key(action),
        "options": options,
        "value": mine,
        "best_value": best_value,
        "cost": cost,
    }


def summarise(decisions: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """The game's summary: the costliest decisions (index into `decisions`, costliest first),
    and per seat how many decisions, how many unlike the strong bot's and their total cost."""
    costly = sorted(
        (i for i, d in enumerate(decisions) if (d.get("cost") or 0) > MIN_COST),
        key=lambda i: (-(decisions[i]["cost"] or 0), i),
    )
    seats = []
    for seat in range(4):
        mine = [d for d in decisions if d["seat"] == seat]
        seats.append(
            {
                "seat": seat,
                "decisions": len(mine),
                "unlike": sum(1 for d in mine if not d["same"]),
                "cost": round(sum(d.get("cost") or 0 for d in mine), 4),
            }
        )
    return {"worst": costly[:WORST_SHOWN], "seats": seats}


def analyse(
    record: Mapping[str, Any],
    *,
    seed: int = 0,
    samples: int | None = None,
    progress: Progress | None = None,
    advise: Advice = estimate.advice,
) -> dict[str, Any]:
    """Every decision of the game `record`, and the summary (see the module's docstring).

    `progress(done, total)` is called before the first decision and after each one. Raises
    `RecordError` for a record that does not replay.
    """
    replay(dict(record))  # the whole record first: a broken one fails before any work
    total = decision_count(record)
    if progress is not None:
        progress(0, total)
    decisions: list[dict[str, Any]] = []
    before = 0
    for h, hand in enumerate(record["hands"]):
        actions = hand.get("actions") or []
        for k in range(len(actions)):
            rng = random.Random(f"{seed}:{h}:{k}")
            decisions.append(
                analyse_decision(record, h, k, before, rng, samples=samples, advise=advise)
            )
            if progress is not None:
                progress(len(decisions), total)
        before += len(actions)
    return {
        "format": FORMAT,
        "seed": seed,
        "samples": samples,
        "decisions": decisions,
        "summary": summarise(decisions),
    }
