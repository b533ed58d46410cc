"""Tournament pairing benchmark: how long the pure pairing takes, the part of moving a round on
that grows with the tournament (the rest is one table set up per game).

    python -m tools.tournament_bench [--pairs N] [--rounds R] [--runs K] [--seed S]

Each run plays a Swiss tournament of N pairs (random ratings) for R rounds with random results,
pairing every round with `tournaments.pairing.swiss_round`, and a knockout bracket of N pairs.
It prints, over the runs, the median and the worst CPU time of pairing one Swiss round (per
round number: late rounds, where many pairs have met, search longest), how many rounds needed
a rematch, and the knockout bracket's time.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from tournaments.pairing import Entrant, knockout_bracket, swiss_round


def swiss_run(pairs: int, rounds: int, rng: random.Random) -> tuple[list[float], int]:
    """CPU seconds per round, and rounds that needed a rematch."""
    scores = dict.fromkeys(range(pairs), 0.0)
    ratings = {i: rng.uniform(1200, 1900) for i in scores}
    played: set[frozenset[int]] = set()
    byes: set[int] = set()
    times = []
    rematches = 0
    for _ in range(rounds):
        entrants = [Entrant(i, scores[i], ratings[i]) for i in scores]
        start = time.process_time()
        found = swiss_round(entrants, played, byes)
        times.append(time.process_time() - start)
        rematches += found.rematches > 0
        for a, b in found.pairs:
            played.add(frozenset((a, b)))
            scores[rng.choice((a, b))] += 1
        if found.bye is not None:
            byes.add(found.bye)
            scores[found.bye] += 1
    return times, rematches


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pairs", type=int, default=64)
    parser.add_argument("--rounds", type=int, default=12)
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    per_round: list[list[float]] = [[] for _ in range(args.rounds)]
    rematch_rounds = 0
    bracket: list[float] = []
    for run in range(args.runs):
        rng = random.Random(args.seed + run)
        times, rematches = swiss_run(args.pairs, args.rounds, rng)
        rematch_rounds += rematches
        for number, seconds in enumerate(times):
            per_round[number].append(seconds)
        start = time.process_time()
        knockout_bracket(list(range(args.pairs)))
        bracket.append(time.process_time() - start)
    print(f"Swiss, {args.pairs} pairs, {args.rounds} rounds, {args.runs} runs (CPU ms per round)")
    for number, spent in enumerate(per_round, start=1):
        median, worst = statistics.median(spent) * 1000, max(spent) * 1000
        print(f"  round {number:2}: median {median:7.2f}  worst {worst:7.2f}")
    everything = [s for r in per_round for s in r]
    print(f"  all rounds: median {statistics.median(everything) * 1000:.2f} ms")
    print(f"  rounds that needed a rematch: {rematch_rounds} of {args.rounds * args.runs}")
    print(f"Knockout bracket of {args.pairs}: median {statistics.median(bracket) * 1e6:.1f} µs")


if __name__ == "__main__":
    main()
