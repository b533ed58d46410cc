"""Engine benchmark: random complete games through the public API, then replays of their records.

    python -m tools.engine_bench [--games N] [--runs R] [--seed S] [--min-time T]

Each run (seeds S, S+1, ...) measures, in CPU time of this process (``time.process_time``):

* play: ``N`` random games (both modes, alternating), each action chosen from
  ``legal_actions`` and played with ``apply`` (which copies the game every time); the rate is
  the actions played over the CPU time of the whole loop, random choices included.
* replay: the records of those games (``export_record``), sent through a JSON round trip as the
  site stores them, replayed with ``replay``. One pass replays every record once; passes are
  repeated until they add up to at least ``T`` seconds of CPU time (default 0.5), and the rate
  is all the actions replayed over all the passes' CPU time. Every pass decodes the records
  again from the JSON text (outside the timed part), so each replay parses and validates a
  fresh record from scratch: nothing is cached from one replay to the next.

It prints the median over the runs of both rates (and of the wall-clock rates), and the best
run's replay rate. Runs of at least ``T`` seconds keep one burst of noise on a shared machine
from deciding a run. The random players here are also used by the tests.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import time
from typing import Any

from games.engine import game as game_module
from games.engine.actions import Action
from games.engine.game import Game, apply, legal_actions, new_game
from games.engine.record import export_record, replay


def random_action(game: Game, rng: random.Random) -> Action:
    """A random legal move by one of the seats that may act now.

    Every legal kind of move is possible, but weighted roughly like real play (mostly small
    bets, few órdagos) so that games last several hands, like the engine's test vectors.
    """
    seat = rng.choice(game.to_act())  # simultaneous rounds: any arrival order
    return weighted_choice(seat, legal_actions(game, seat), game.hand_codes(seat), rng)


def weighted_choice(
    seat: int, legal: list[dict[str, Any]], cards: list[str], rng: random.Random
) -> Action:
    """One of ``legal`` for ``seat`` (holding ``cards``), weighted like :func:`random_action`."""
    acts = {d["act"]: d for d in legal}
    x = rng.random()
    if "mus" in acts:
        return Action(seat, "mus" if x < 0.6 else "corto")
    if "descarte" in acts:
        return Action(seat, "descarte", cards=tuple(rng.sample(cards, rng.randint(1, 4))))
    if "repartir" in acts:
        return Action(seat, "repartir")
    envido = acts.get("envido")
    if "paso" in acts:  # opening
        if x < 0.6 or (envido is None and x < 0.97):
            return Action(seat, "paso")
    elif x < 0.85 or (envido is None and "ordago" not in acts):  # answering
        return Action(seat, "quiero" if x < 0.45 else "no_quiero")
    if envido is not None and x < 0.97:
        hi = min(envido["max"], envido["min"] + rng.choice((0, 1, 2, 3, 5, 10)))
        return Action(seat, "envido", to=rng.randint(envido["min"], hi))
    if "ordago" in acts:
        return Action(seat, "ordago")
    return Action(seat, legal[0]["act"])


def play_random_game(mode: str, rng: random.Random, max_actions: int = 100_000) -> tuple[Game, int]:
    """Play a whole game with random legal moves; returns the game and how many actions."""
    g = new_game(mode, rng.randrange(4), rng)
    n = 0
    while g.phase not in ("terminada", "cancelada") and n < max_actions:
        g = apply(g, random_action(g, rng), rng)
        n += 1
    return g, n


def _record_actions(record: dict[str, Any]) -> int:
    return sum(len(h["actions"]) for h in record["hands"])


def replay_rate(texts: list[str], min_time: float) -> tuple[float, float]:
    """Actions per CPU second and per wall-clock second replaying the JSON ``texts``.

    Passes over all the records are repeated until they add up to ``min_time`` CPU seconds;
    each pass replays records decoded anew (the decoding is not timed).
    """
    cpu = wall = 0.0
    n = 0
    while cpu < min_time or n == 0:
        records = [json.loads(t) for t in texts]
        n_pass = sum(_record_actions(rec) for rec in records)
        c0, w0 = time.process_time(), time.perf_counter()
        for rec in records:
            replay(rec)
        c1, w1 = time.process_time(), time.perf_counter()
        cpu += c1 - c0
        wall += w1 - w0
        n += n_pass
    return n / cpu, n / wall


def run(games: int, runs: int, seed: int, min_time: float = 0.5) -> dict[str, float]:
    """Median rates over ``runs``; each run plays ``games`` games then replays their records.

    Rates are per CPU second of this process (``time.process_time``), which is what "on one
    core" means on a shared machine; wall-clock rates are given too.
    """
    play_cpu, play_wall, replay_cpu, replay_wall = [], [], [], []
    n_record = 0
    for r in range(runs):
        rng = random.Random(seed + r)
        records = []
        n_actions = 0
        c0, w0 = time.process_time(), time.perf_counter()
        for i in range(games):
            g, n = play_random_game("4-reyes" if i % 2 == 0 else "8-reyes", rng)
            n_actions += n
            records.append(export_record(g))
        c1, w1 = time.process_time(), time.perf_counter()
        play_cpu.append(n_actions / (c1 - c0))
        play_wall.append(n_actions / (w1 - w0))
        # Replay what the site stores: the record after a JSON round trip (its strings are
        # then the decoder's, not the engine's own).
        texts = [json.dumps(rec) for rec in records]
        n_record = sum(_record_actions(rec) for rec in records)
        cpu_rate, wall_rate = replay_rate(texts, min_time)
        replay_cpu.append(cpu_rate)
        replay_wall.append(wall_rate)
    med = statistics.median
    return {
        "play": med(play_cpu),
        "play_wall": med(play_wall),
        "replay": med(replay_cpu),
        "replay_wall": med(replay_wall),
        "replay_best": max(replay_cpu),
        "actions_per_game": n_record / games,
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m tools.engine_bench", description=__doc__)
    p.add_argument("--games", type=int, default=300, help="games per run (default 300)")
    p.add_argument("--runs", type=int, default=5, help="runs; the median is shown (default 5)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument(
        "--min-time",
        type=float,
        default=0.5,
        help="CPU seconds of replay per run, at least (default 0.5)",
    )
    a = p.parse_args(argv)
    if game_module.__file__ and game_module.__file__.endswith(".so"):
        print("engine: compiled with mypyc (scripts/build_engine.py)")
    else:
        print("engine: pure Python, not compiled (build it: python scripts/build_engine.py)")
    res = run(a.games, a.runs, a.seed, a.min_time)
    print(
        f"{a.games} random games per run (both modes), {a.runs} runs, "
        f"{res['actions_per_game']:.0f} actions per game, replays of >= {a.min_time:g} s per run"
    )
    print(
        f"play   (legal_actions + apply): {res['play']:>10,.0f} actions/s of CPU time"
        f"  ({res['play_wall']:,.0f} actions/s wall clock)"
    )
    print(
        f"replay (replay of the records): {res['replay']:>10,.0f} actions/s of CPU time"
        f"  ({res['replay_wall']:,.0f} actions/s wall clock; best run {res['replay_best']:,.0f})"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
