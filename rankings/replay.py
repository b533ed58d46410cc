"""A finished game, step by step, rebuilt on the server by replaying its record with the engine.

The game page shows one step at a time (``?mano=<n>&paso=<k>``: hand n, after its k-th action,
with every hand face up), the actions of that hand so far, and the lance results of every hand.
Each page replays the record once up to the step, and once whole for the per-hand results.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from games import engine, labels


def said_label(action: dict[str, Any]) -> str:
    """What a recorded action reads like, in the words of the live table (games.labels)."""
    act = str(action.get("act"))
    if act == "descarte":
        return labels.said(act, n=len(action.get("cards") or []))
    if act == "envido":
        return labels.said(act, n=action.get("to"))
    return labels.said(act)


@dataclass
class Step:
    hand_no: int
    step: int
    steps_in_hand: int
    hands: list[list[str]]
    said: list[dict[str, Any]]
    scores: list[int]
    phase: str
    phase_label: str
    lance: str | None
    lance_label: str | None
    mano: int
    to_act: list[int]
    bet: dict[str, Any] | None
    lances: list[dict[str, Any]] = field(default_factory=list)


def _label_said(
    actions: list[dict[str, Any]], heard: list[dict[str, Any]], round_lance: str | None
) -> list[dict[str, Any]]:
    """The actions of the hand so far, each with the lance it was said in and whether it opens
    a new one (the page heads each group, as the table's log does: «Envido 2» alone does not say
    whether it was at grande or chica). ``heard`` is the public view's ``said``: the same actions
    in the same order, with their lance (mus votes and discards have none). It leaves out the
    simultaneous round in progress, still secret at the table: those last actions are discards
    (no lance) or answers to a bet in ``round_lance``."""
    out = []
    previous: str | None = ""
    for i, a in enumerate(actions, 1):
        act = a.get("act")
        lance = heard[i - 1].get("lance") if i <= len(heard) else round_lance
        out.append(
            {
                "n": i,
                "seat": a.get("seat"),
                "team": (a.get("seat") or 0) % 2,
                "act": act,
                "label": said_label(a),
                "cards": list(a.get("cards") or []),
                "heading": (
                    (
                        str(labels.LANCES[lance])
                        if lance in labels.LANCES
                        else str(labels.PHASES["mus"])
                    )
                    if lance != previous
                    else None
                ),
            }
        )
        previous = lance
    return out


def step_at(record: dict[str, Any], hand_no: int, step: int) -> Step:
    """The game after action ``step`` of hand ``hand_no`` (both clamped into range)."""
    hands = record["hands"]
    hand_no = max(1, min(hand_no, len(hands)))
    actions = hands[hand_no - 1].get("actions") or []
    step = max(0, min(step, len(actions)))
    if step == 0:
        # Hand dealt, nothing said yet (no reshuffle can have happened).
        first = {"deck": hands[hand_no - 1]["deck"], "actions": []}
        game = engine.replay({**record, "hands": [*hands[: hand_no - 1], first]})
    else:
        before = sum(len(h.get("actions") or []) for h in hands[: hand_no - 1])
        game = engine.replay({**record, "hands": hands[:hand_no]}, upto=before + step)
    seen = engine.view(game, None)
    lance = seen.get("lance")
    bet = seen.get("bet")
    return Step(
        hand_no=hand_no,
        step=step,
        steps_in_hand=len(actions),
        hands=[game.hand_codes(s) for s in range(4)],
        said=_label_said(
            actions[:step], seen.get("said") or [], lance if game.phase == "lance" else None
        ),
        scores=list(game.scores),
        phase=game.phase,
        phase_label=str(labels.PHASES.get(game.phase, game.phase)),
        lance=lance,
        lance_label=str(labels.LANCES[lance]) if lance in labels.LANCES else None,
        mano=game.mano,
        to_act=list(game.to_act()) if game.phase not in ("recuento", "terminada") else [],
        bet=bet,
    )


def hand_results(record: dict[str, Any]) -> list[dict[str, Any]]:
    """Per hand: its mano, the scores once it ended and its lances (winner, tantos, how)."""
    result = engine.replay_result(record)
    out = []
    previous = [0, 0]
    for n, hand in enumerate(result["hands"], 1):
        lances = [
            {
                **entry,
                "label": str(labels.LANCES.get(entry["lance"], entry["lance"])),
                "how_label": str(labels.HOWS.get(entry["how"], entry["how"])),
            }
            for entry in hand["lances"]
        ]
        gained = [hand["scores"][0] - previous[0], hand["scores"][1] - previous[1]]
        previous = hand["scores"]
        out.append(
            {
                "n": n,
                "mano": hand["mano"],
                "scores": hand["scores"],
                "gained": gained,
                "lances": lances,
            }
        )
    return out
