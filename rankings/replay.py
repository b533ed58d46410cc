"""A finished game, step by step, rebuilt on the server by replaying its record with the engine.

The game page shows one step at a time (``?mano=<n>&paso=<k>``: hand n, after its k-th action,
with every hand face up), what was said in that hand so far and the lances reached so far, as
the table showed them then: a lance the cards decide says who won it only at the recuento, and
the recuento spells out what each lance's tantos are made of (the engine's ``breakdown``).

The table itself is drawn by the live table's own renderer (``static/js/table/felt.js`` and
``center.js``, through ``rankings/replay.js``) from ``Step.state``: the spectator's view of the
engine at that step, the message an onlooker's socket gets, with every hand face up as at the
recuento and nothing else of the record. The words of the list of what was said are the live
table's (``games.labels``). Each page replays the record once up to the step, and once whole
for the per-hand results.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from games import engine, labels


def said_label(action: dict[str, Any]) -> str:
    """What a recorded action reads like, in the words of the live table (games.labels)."""
    entry = dict(action)
    if action.get("act") == "descarte":
        entry["n"] = len(action.get("cards") or [])
    return labels.said_text(entry)[0]


@dataclass
class Step:
    hand_no: int
    step: int
    steps_in_hand: int
    hands: list[list[str]]
    said: list[dict[str, Any]]
    scores: list[int]
    phase: str
    mano: int
    to_act: list[int]
    #: What the table's renderer draws at this step (``replay_state``).
    state: dict[str, Any]
    lances: list[dict[str, Any]] = field(default_factory=list)
    deal_mano: int | None = None

    @property
    def shown(self) -> bool:
        """The hand has reached its recuento (or ended): every lance's outcome is known."""
        return self.phase in SHOWN


#: The phases in which the table shows every hand and every lance's outcome.
SHOWN = ("recuento", "terminada", "cancelada")


def replay_state(game: engine.Game) -> dict[str, Any]:
    """The state the live table's renderer draws for a step of the replay: what an onlooker's
    socket got at that moment (``engine.view(game, None)``: no hand, no discard, no vote of a
    round in progress) with every hand face up, as the replay has always shown them. Nobody
    is to act at the recuento (nobody presses «Seguir» in a replay)."""
    seen = engine.view(game, None)
    for key in ("you", "history"):  # nobody's own part; the earlier hands are elsewhere
        seen.pop(key, None)
    seen["hands"] = [game.hand_codes(s) for s in range(4)]
    if game.phase in SHOWN:
        seen["to_act"] = []
    seen["replay"] = True
    return seen


def _label_said(
    actions: list[dict[str, Any]],
    heard: list[dict[str, Any]],
    round_lance: str | None,
    names: Sequence[str],
    cut_to: int | None,
) -> list[dict[str, Any]]:
    """The actions of the hand so far, each with the lance it was said in and whether it opens
    a new one (the page heads each group, as the table's log does: «Envido 2» alone does not say
    whether it was at grande or chica). ``heard`` is the public view's ``said``: the same actions
    in the same order, with their lance (mus votes and discards have none) and, for a raise, the
    tantos it put over the bet. It leaves out the simultaneous round in progress, still secret at
    the table: those last actions are discards (no lance) or answers to a bet in
    ``round_lance``. ``cut_to``: the seat that became mano by cutting in the first hand."""
    out = []
    previous: str | None = ""
    for i, a in enumerate(actions, 1):
        act = a.get("act")
        seen = heard[i - 1] if i <= len(heard) else {"lance": round_lance}
        lance = seen.get("lance")
        entry = {**a, "more": seen.get("more")}
        if act == "descarte":
            entry["n"] = len(a.get("cards") or [])
        text, small = labels.said_text(entry)
        seat = a.get("seat") or 0
        out.append(
            {
                "n": i,
                "seat": a.get("seat"),
                "team": seat % 2,
                "act": act,
                "label": text,
                "small": small,
                "clock": a.get("by") == "clock",
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
                "note": (
                    labels.fill(labels.TABLE["cut_mano"], name=names[seat])
                    if act == "corto" and cut_to == seat
                    else None
                ),
            }
        )
        previous = lance
    return out


def _lance_rows(seen: dict[str, Any]) -> list[dict[str, Any]]:
    """The lances reached so far as the table shows them at this step (its renderer words
    them): the pair that won, once known; at the recuento, the hand that won and the parts of
    its tantos (the engine's ``breakdown``, which it gives only then)."""
    final = seen.get("phase") in SHOWN
    breakdown = seen.get("breakdown") or []
    rows = []
    for i, lance in enumerate(seen.get("lances") or []):
        b = breakdown[i] if i < len(breakdown) and breakdown[i]["lance"] == lance["lance"] else None
        rows.append(
            {
                "lance": lance["lance"],
                "winner": lance["winner"],
                "known": final or (lance["winner"] is not None and lance["how"] == "no_querido"),
                "won_by": b["win"] if b else None,
                "parts": b["parts"] if b else [],
            }
        )
    return rows


def step_at(
    record: dict[str, Any], hand_no: int, step: int, names: Sequence[str] = ("1", "2", "3", "4")
) -> Step:
    """The game after action ``step`` of hand ``hand_no`` (both clamped into range); ``names``
    are the seats' names, for the words that name a player."""
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
    state = replay_state(game)
    deal_mano = state.get("deal_mano")
    cut_to = (
        game.mano if hand_no == 1 and deal_mano is not None and deal_mano != game.mano else None
    )
    return Step(
        hand_no=hand_no,
        step=step,
        steps_in_hand=len(actions),
        hands=state["hands"],
        said=_label_said(
            actions[:step],
            state.get("said") or [],
            state.get("lance") if game.phase == "lance" else None,
            names,
            cut_to,
        ),
        scores=list(game.scores),
        phase=game.phase,
        mano=game.mano,
        to_act=list(state["to_act"]),
        state=state,
        lances=_lance_rows(state),
        deal_mano=deal_mano,
    )


def ordago_end(record: dict[str, Any], names: Sequence[str]) -> str:
    """How an órdago ended the game, as the live table says it: at which lance, and whose cards
    beat whose («Órdago a pares, querido: las cartas de Maite (duples) ganan a las de…»)."""
    seen = engine.view(engine.replay(record), None)
    for lance, b in zip(seen.get("lances") or [], seen.get("breakdown") or [], strict=False):
        if lance["how"] != "ordago" or not b["win"]:
            continue
        at = labels.AT_LANCE.get(lance["lance"], lance["lance"])
        win = labels.hand_name(b["win"], names)
        if b["beat"]:
            beat = labels.hand_name(b["beat"], names)
            words = labels.TABLE["ordago_end_tie" if b.get("tie") else "ordago_end"]
            return labels.fill(words, lance=at, win=win, beat=beat)
        return labels.fill(labels.TABLE["ordago_end_bare"], lance=at, win=win)
    return ""


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
