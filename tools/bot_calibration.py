"""How often a player kind says each thing in the lances, by its hand's percentile.

    python -m tools.bot_calibration [--player normal] [--games 1000] [--seed 1]

Plays ``--games`` arena games of the player kind against itself (``tools.arena``'s deals and
seats) and, at every betting decision, counts what it did against the percentile (0..1) of its
hand in the lance (``sampling.PCT``: pares and juego within their own class). Prints, per
context (``open``: nobody bet yet; ``answer``: a bet stands) and act (``paso``, ``bet``: an
envido up to 4, ``big``: more, ``raise``, ``ordago``, ``quiero``, ``no_quiero``), the share of
the decisions in each twentieth of percentiles. ``sampling.LIKELIHOOD`` is fitted to the
«normal» bot's table (docs/engine.md, «The «fuerte» bot»).
"""

from __future__ import annotations

import argparse
import random
from collections import defaultdict

from games.engine.cards import CODE_TO_ID, HAND_BIT
from games.engine.game import apply, new_game
from games.engine.sampling import BIG_BET, LANCE_IX, PCT
from games.engine.view import view
from tools.arena import PLAYERS, game_setup

BUCKETS = 20


def calibrate(kind: str, games: int, seed: int) -> dict[tuple[str, str], list[float]]:
    """(context, act) -> share of that context's decisions per percentile bucket."""
    player = PLAYERS[kind]
    decisions: dict[str, list[int]] = defaultdict(lambda: [0] * BUCKETS)
    acts: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0] * BUCKETS)
    for i in range(games):
        mode, _team, first_mano, deal_seed = game_setup(i, "both", seed)
        deal_rng = random.Random(deal_seed)
        rngs = [random.Random(f"{seed}:{i}:{s}") for s in range(4)]
        g = new_game(mode, first_mano, deal_rng)
        while g.phase not in ("terminada", "cancelada"):
            seat = g.to_act()[0]
            v = view(g, seat)
            action = player(v, rngs[seat])
            if v["lance"] and action.act != "repartir":
                key = sum(HAND_BIT[mode][CODE_TO_ID[c]] for c in v["you"]["cards"])
                x = PCT[mode][key][LANCE_IX[v["lance"]]]
                b = min(int(x * BUCKETS), BUCKETS - 1)
                ctx = "answer" if v["bet"] else "open"
                decisions[ctx][b] += 1
                act = action.act
                if act == "envido":
                    to = action.to or 0
                    act = "raise" if v["bet"] else ("big" if to > BIG_BET else "bet")
                acts[(ctx, act)][b] += 1
            g = apply(g, action, deal_rng)
    return {
        k: [n / t if t else 0.0 for n, t in zip(row, decisions[k[0]], strict=True)]
        for k, row in acts.items()
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m tools.bot_calibration", description=__doc__)
    p.add_argument("--player", default="normal", choices=list(PLAYERS))
    p.add_argument("--games", type=int, default=1000)
    p.add_argument("--seed", type=int, default=1)
    args = p.parse_args(argv)
    table = calibrate(args.player, args.games, args.seed)
    print("percentile from", " ".join(f"{b / BUCKETS:5.2f}" for b in range(BUCKETS)))
    for (ctx, act), row in sorted(table.items()):
        print(f"{ctx:6} {act:9}", " ".join(f"{x:5.3f}" for x in row))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
