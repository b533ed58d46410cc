"""Helpers for the engine tests: stacked decks, short action scripts, the test vectors."""

from __future__ import annotations

import os
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

from games.engine import Action, Game, apply, export_record, legal_actions, replay
from games.engine.cards import CODES
from games.engine.game import ORDER

REPO = Path(__file__).resolve().parents[2]
#: The engine's test vectors (their README.md says what each file is), kept with the tests.
VECTORS = Path(__file__).resolve().parent / "vectors"


def run_replay(
    *args: str, stdin: str | None = None, root: Path = REPO, timeout: float = 60
) -> subprocess.CompletedProcess[str]:
    """``python -m games.engine.replay ARGS`` with the ``games`` package found under ``root``."""
    return subprocess.run(
        [sys.executable, "-m", "games.engine.replay", *args],
        input=stdin,
        capture_output=True,
        text=True,
        cwd=root,
        env=dict(os.environ, PYTHONPATH=str(root)),
        timeout=timeout,
    )


def stacked_deck(hands: dict[int, str], mano: int = 0, pile: str = "") -> list[str]:
    """A deck that deals ``hands`` (seat -> "c1 c2 c3 c4") when ``mano`` is mano.

    Seats not given get the first unused cards; the pile starts with ``pile`` and goes on with
    the remaining cards in code order.
    """
    used = [c for h in hands.values() for c in h.split()] + pile.split()
    assert len(used) == len(set(used)), "a card is used twice"
    rest = [c for c in CODES if c not in used]
    full = {
        s: hands[s].split() if s in hands else [rest.pop(0) for _ in range(4)] for s in range(4)
    }
    order = ORDER[mano]
    deck = [full[order[k % 4]][k // 4] for k in range(16)]
    deck += pile.split() + rest
    assert sorted(deck) == sorted(CODES)
    return deck


def record(mode: str, first_mano: int, *hands: dict[str, Any]) -> dict[str, Any]:
    return {
        "format": "mus-record/1",
        "mode": mode,
        "target": 40,
        "first_mano": first_mano,
        "hands": list(hands),
    }


def deal(hands: dict[int, str], mano: int = 0, mode: str = "4-reyes", pile: str = "") -> Game:
    """A new game whose first hand is dealt from a stacked deck (mano ``mano``)."""
    deck = stacked_deck(hands, mano, pile)
    return replay(record(mode, mano, {"deck": deck, "actions": []}))


def parse(step: str) -> Action:
    """ "2 envido 5" / "1 descarte 12o 3c" / "0 paso" -> Action."""
    seat, act, *rest = step.split()
    if act == "envido":
        return Action(int(seat), act, to=int(rest[0]))
    if act == "descarte":
        return Action(int(seat), act, cards=tuple(rest))
    return Action(int(seat), act)


def play(g: Game, *steps: str, rng: random.Random | None = None) -> Game:
    """Apply a script of actions (each "seat act [amount|cards...]")."""
    for step in steps:
        g = apply(g, parse(step), rng or random.Random(0))
    return g


def pass_lance(g: Game) -> Game:
    """Everybody who opens says paso until the lance changes or the hand ends."""
    lance, hand = g.lance, g.hand_no
    while g.phase == "lance" and g.lance == lance and g.hand_no == hand:
        (seat,) = g.to_act()
        g = apply(g, Action(seat, "paso"))
    return g


def pass_all(g: Game) -> Game:
    """Paso in every remaining lance of the hand."""
    while g.phase == "lance":
        g = pass_lance(g)
    return g


def lances(g: Game) -> dict[str, dict[str, Any]]:
    """The recuento rows of the current hand by lance name."""
    from games.engine import view

    return {row["lance"]: row for row in view(g, None)["lances"]}


def legal_acts(g: Game, seat: int) -> list[str]:
    return [d["act"] for d in legal_actions(g, seat)]


def roundtrip(g: Game) -> Game:
    return replay(export_record(g))


def strings_in(obj: Any) -> set[str]:
    """Every string (keys and values) anywhere inside a JSON-like object."""
    out: set[str] = set()
    stack = [obj]
    while stack:
        x = stack.pop()
        if isinstance(x, str):
            out.add(x)
        elif isinstance(x, dict):
            stack.extend(x.keys())
            stack.extend(x.values())
        elif isinstance(x, (list, tuple)):
            stack.extend(x)
    return out
