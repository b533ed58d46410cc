"""A finished game, step by step, rebuilt on the server by replaying its record with the engine.

The game page shows one step at a time (``?mano=<n>&paso=<k>``: hand n, after its k-th action,
with every hand face up), what was said in that hand so far and the lances reached so far, as
the table showed them then: a lance the cards decide says who won it only at the recuento, and
the recuento spells out what each lance's tantos are made of (the engine's ``breakdown``). The
words are the live table's (``games.labels``). Each page replays the record once up to the step,
and once whole for the per-hand results.
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
    phase_label: str
    lance: str | None
    lance_label: str | None
    mano: int
    to_act: list[int]
    bet: dict[str, Any] | None
    lances: list[dict[str, Any]] = field(default_factory=list)
    deal_mano: int | None = None

    @property
    def postre(self) -> int:
        """The seat that speaks last: the one before the mano."""
        return (self.mano + 3) % 4

    @property
    def shown(self) -> bool:
        """The hand has reached its recuento (or ended): every lance's outcome is known."""
        return self.phase in ("recuento", "terminada", "cancelada")


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


def _lance_rows(seen: dict[str, Any], names: Sequence[str]) -> list[dict[str, Any]]:
    """The lances reached so far as the table showed them at this step: who won (once known),
    the tantos, the hand that won and what the tantos are made of (at the recuento)."""
    final = seen.get("phase") in ("recuento", "terminada", "cancelada")
    breakdown = seen.get("breakdown") or []
    rows = []
    for i, lance in enumerate(seen.get("lances") or []):
        b = breakdown[i] if i < len(breakdown) and breakdown[i]["lance"] == lance["lance"] else None
        how = lance["how"]
        how_label = (
            labels.fill(labels.HOWS["querido_bet"], n=lance["detail"]["bet"])
            if how == "querido"
            else str(labels.HOWS.get(how, how))
        )
        known = final or (lance["winner"] is not None and how == "no_querido")
        win = b["win"] if b else None
        parts = b["parts"] if b else []
        rows.append(
            {
                "lance": lance["lance"],
                "label": str(labels.LANCES.get(lance["lance"], lance["lance"])),
                "how_label": how_label,
                "winner": lance["winner"],
                "ordago": how == "ordago",
                "played": how != "no_jugado",
                "known": known,
                "tantos": lance["counted"] if final else lance["tantos"],
                "worth": lance["tantos"],
                "won_by": labels.hand_name(win, names) if win else "",
                "beat": labels.beaten(b, names) if b else "",
                "parts": [(labels.part_label(p, names), p["tantos"]) for p in parts]
                if len(parts) > 1 or any(isinstance(p.get("seat"), int) for p in parts)
                else [],
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
    seen = engine.view(game, None)
    lance = seen.get("lance")
    bet = seen.get("bet")
    deal_mano = seen.get("deal_mano")
    cut_to = (
        game.mano if hand_no == 1 and deal_mano is not None and deal_mano != game.mano else None
    )
    return Step(
        hand_no=hand_no,
        step=step,
        steps_in_hand=len(actions),
        hands=[game.hand_codes(s) for s in range(4)],
        said=_label_said(
            actions[:step],
            seen.get("said") or [],
            lance if game.phase == "lance" else None,
            names,
            cut_to,
        ),
        scores=list(game.scores),
        phase=game.phase,
        phase_label=str(labels.PHASES.get(game.phase, game.phase)),
        lance=lance,
        lance_label=str(labels.LANCES[lance]) if lance in labels.LANCES else None,
        mano=game.mano,
        to_act=list(game.to_act()) if game.phase not in ("recuento", "terminada") else [],
        bet=bet,
        lances=_lance_rows(seen, names),
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
