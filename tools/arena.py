"""Arena: the bot against itself and against baseline players, over many complete games.

    python -m tools.arena [--games 2000] [--mode both] [--seed 1]
                          [--matchup bot:random --matchup bot:pasivo ...] [--jobs 2]

Players (each decides from ``engine.view(game, seat)`` only):

* ``bot`` / ``normal`` — ``games.engine.bot.decide`` at level «normal» (today's bot);
* ``fuerte``, ``principiante`` — the other levels of ``games.engine.bot.decide``;
* ``random`` — random legal play, weighted like the engine's benchmark player (mus 60 %,
  paso 60 %, quiero 45 % / no quiero 40 %, small raises, about 3 % órdagos);
* ``uniforme`` — a uniformly random legal act (amounts uniform too): órdagos galore;
* ``pasivo`` — always corto, paso, no quiero (and discards its lowest card if ever asked);
* ``sensato`` — a sensible, human-like heuristic player (``sensible_player``): «normal»'s mus
  and discards, bets only on the hand's strength in the lance (envido 2, 3 with a very good
  hand), never bluffs, accepts with a good hand, says órdago only with a very good hand when
  the rivals are near the end of the game and it is not ahead, or it is far behind
  (``classic.ordago_time``).

A matchup ``A:B`` seats pair A against pair B. Fairness: games come in pairs that share the
deal seed with the teams swapped; A sits in team 0 (seats 0 and 2) in even games and team 1
in odd ones; the first mano cycles through the four seats and, with ``--mode both``, the mode
alternates every 8 games, so every block of 16 games covers every combination. Results are
deterministic given ``--seed`` (the deal and each player's generator are seeded per game);
``--jobs`` only changes the speed. Printed: A's win rate with its 95 % Wilson interval, and
the median and 99th percentile time of one decision of each player kind, the share of
games ended by an órdago, the envites each player kind made (envido amounts, órdagos), each
kind's órdagos by score band (``score_band``) and two answer leaks (``answer_leaks``): how
often it refuses a juego bet holding the better juego, and how often its calls of a pares bet
win, with the tantos of the bet a different answer would have gained.
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import sys
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from typing import Any

from games.engine.actions import Action
from games.engine.bot import decide as bot_decide
from games.engine.cards import CODE_TO_ID, HAND_BIT, MODES
from games.engine.classic import discard_choice, hand_info, mus_choice, ordago_time
from games.engine.evaluate import EVAL_TABLE
from games.engine.game import apply, new_game
from games.engine.view import view
from tools.engine_bench import weighted_choice

Player = Callable[[dict[str, Any], random.Random], Action]
MAX_ACTIONS = 50_000  # a game that has not ended by then is counted as unfinished


def random_player(v: dict[str, Any], rng: random.Random) -> Action:
    """Random legal play with the weights of ``engine_bench.random_action``, for one seat."""
    you = v["you"]
    return weighted_choice(you["seat"], you["legal"], you["cards"], rng)


def uniform_player(v: dict[str, Any], rng: random.Random) -> Action:
    """A uniformly random legal act; amounts and discards uniform as well."""
    seat = v["you"]["seat"]
    d = rng.choice(v["you"]["legal"])
    act = d["act"]
    if act == "envido":
        return Action(seat, act, to=rng.randint(d["min"], d["max"]))
    if act == "descarte":
        cards = v["you"]["cards"]
        return Action(seat, act, cards=tuple(rng.sample(cards, rng.randint(1, 4))))
    return Action(seat, act)


_LOW_FIRST = {r: i for i, r in enumerate((1, 2, 3, 4, 5, 6, 7, 10, 11, 12))}


def passive_player(v: dict[str, Any], rng: random.Random) -> Action:
    """Corto, paso, no quiero; repartir when it is time (never bets, never accepts)."""
    seat = v["you"]["seat"]
    acts = {d["act"] for d in v["you"]["legal"]}
    if "corto" in acts:
        return Action(seat, "corto")
    if "descarte" in acts:
        lowest = min(v["you"]["cards"], key=lambda c: _LOW_FIRST[int(c[:-1])])
        return Action(seat, "descarte", cards=(lowest,))
    if "paso" in acts:
        return Action(seat, "paso")
    if "no_quiero" in acts:
        return Action(seat, "no_quiero")
    return Action(seat, "repartir")


def _strength(v: dict[str, Any]) -> float:
    """The seat's hand percentile in the current lance, among the hands of its class (juego
    on the share it beats or ties: 31 is the best juego however many hold it)."""
    below, equal = hand_info(v["mode"], v["you"]["cards"])["percentiles"][v["lance"]]
    return float(below + (equal if v["lance"] == "juego" else equal / 2))


def sensible_player(v: dict[str, Any], rng: random.Random) -> Action:
    """A sensible human-like player: bets its cards, never bluffs, órdago only late or far
    behind, with a very good hand."""
    you = v["you"]
    seat = you["seat"]
    legal = {d["act"]: d for d in you["legal"]}
    if "repartir" in legal:
        return Action(seat, "repartir")
    if "mus" in legal:
        return Action(seat, mus_choice(v))
    if "descarte" in legal:
        return Action(seat, "descarte", cards=discard_choice(v))
    x = _strength(v)
    us, them = v["scores"][seat & 1], v["scores"][1 - (seat & 1)]
    late = ordago_time(us, them)
    said_ordago = any(e["act"] == "ordago" and e["seat"] & 1 == seat & 1 for e in v["said"])
    env = legal.get("envido")
    bet = v["bet"]
    if bet is None:
        if "ordago" in legal and late and x >= 0.97 and not said_ordago:
            return Action(seat, "ordago")
        if env is not None and x >= 0.72:
            to = 3 if x >= 0.9 else 2
            return Action(seat, "envido", to=max(env["min"], min(to, env["max"])))
        return Action(seat, "paso")
    if bet["ordago"]:
        need = 0.8 if them >= 30 and us < them else 0.9
        return Action(seat, "quiero" if x >= need else "no_quiero")
    amount = bet["amount"]
    if env is not None and x >= 0.93 and amount < 10:
        return Action(seat, "envido", to=max(env["min"], min(amount + 2, env["max"])))
    need = min(0.6 + 0.02 * amount, 0.85)
    return Action(seat, "quiero" if x >= need else "no_quiero")


def strong_player(v: dict[str, Any], rng: random.Random) -> Action:
    return bot_decide(v, rng, "fuerte")


def beginner_player(v: dict[str, Any], rng: random.Random) -> Action:
    return bot_decide(v, rng, "principiante")


PLAYERS: dict[str, Player] = {
    "bot": bot_decide,
    "normal": bot_decide,
    "fuerte": strong_player,
    "principiante": beginner_player,
    "random": random_player,
    "uniforme": uniform_player,
    "pasivo": passive_player,
    "sensato": sensible_player,
}
DEFAULT_MATCHUPS = ("bot:random", "bot:pasivo", "bot:uniforme", "bot:bot")


def wilson(wins: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """95 % Wilson score interval of a proportion."""
    if n == 0:
        return (0.0, 1.0)
    p = wins / n
    den = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / den
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / den
    return (max(0.0, centre - half), min(1.0, centre + half))


def game_setup(i: int, mode: str, seed: int) -> tuple[str, int, int, str]:
    """(mode, team of player A, first mano, deal seed) of game ``i`` of a matchup."""
    if mode == "both":
        mode = MODES[(i // 8) % 2]
    return mode, i % 2, (i // 2) % 4, f"{seed}:{i // 2}"


#: Score bands of an órdago, from the score when it was said (the first that applies).
BANDS = ("a pair at 30+", "a pair 15+ behind", "both under 20", "the rest")


def score_band(scores: tuple[int, int] | list[int]) -> str:
    """The band (``BANDS``) of a score."""
    a, b = scores
    if max(a, b) >= 30:
        return BANDS[0]
    if abs(a - b) >= 15:
        return BANDS[1]
    if max(a, b) < 20:
        return BANDS[2]
    return BANDS[3]


_FIELD = {"grande": 0, "chica": 1, "pares": 2, "juego": 5, "punto": 4}


def lance_winner(g: Any, lance: str) -> int | None:
    """The pair whose cards win ``lance`` now (None: nobody plays it), ties to the earlier
    speaker; juego falls back to punto when nobody has juego."""
    bits = HAND_BIT[g.mode]
    evs = {s: EVAL_TABLE[sum(bits[CODE_TO_ID[c]] for c in g.hand_codes(s))] for s in range(4)}
    order = [(g.mano + i) % 4 for i in range(4)]
    field = _FIELD[lance]
    if lance == "pares":
        order = [s for s in order if evs[s].pares]
    elif lance == "juego":
        with_juego = [s for s in order if evs[s].juego]
        if with_juego:
            order = with_juego
        else:
            field = 4
    best, top = None, None
    for s in order:
        v = evs[s][field]
        if top is None or v > top:
            best, top = s, v
    return None if best is None else best & 1


def _count(counters: dict[str, dict[str, float]], kind: str, label: str, n: float = 1) -> None:
    per = counters.setdefault(kind, {})
    per[label] = per.get(label, 0) + n


def _observe(
    counters: dict[str, dict[str, float]], kind: str, g: Any, v: dict[str, Any], action: Action
) -> None:
    """Count an órdago by score band (and whether the sayer's cards won the lance), and the
    answer leaks: juego bets refused holding the better juego, pares bets called and lost,
    with the tantos of the bet the other answer would have gained (bet only; pares and juego
    are paid whatever the answer)."""
    act, lance, bet = action.act, v["lance"], v["bet"]
    team = v["you"]["seat"] & 1
    if act == "ordago":
        _count(counters, kind, "ordago " + score_band((v["scores"][team], v["scores"][1 - team])))
        _count(counters, kind, "ordago won lance", lance_winner(g, lance) == team)
    if bet is None or bet["ordago"] or act not in ("quiero", "no_quiero", "envido", "ordago"):
        return
    amount = bet["amount"]
    deje = 1
    for e in reversed(v["said"]):
        if e.get("lance") == lance and e["act"] == "envido" and e["to"] == amount:
            deje = max(1, amount - e.get("more", amount))
            break
    won = lance_winner(g, lance) == team
    called = act != "no_quiero"
    if lance == "juego":
        _count(counters, kind, "juego answers")
        if not called:
            _count(counters, kind, "juego refusals")
            _count(counters, kind, "juego refusals better", won)
            _count(counters, kind, "juego refusal cost", (amount if won else -amount) + deje)
    elif lance == "pares":
        _count(counters, kind, "pares answers")
        if called:
            _count(counters, kind, "pares calls")
            _count(counters, kind, "pares calls won", won)
            _count(counters, kind, "pares call cost", (-amount if won else amount) - deje)


def play_game(
    a: str,
    b: str,
    i: int,
    mode: str,
    seed: int,
    timings: dict[str, list[float]] | None = None,
    cpu_timings: dict[str, list[float]] | None = None,
    envites: dict[str, dict[str, int]] | None = None,
    counters: dict[str, dict[str, float]] | None = None,
) -> dict[str, Any]:
    """Game ``i`` of matchup a:b; returns who won (``a_won`` None if unfinished).

    ``timings`` / ``cpu_timings`` collect each decision's wall-clock / process CPU seconds
    by player kind; ``envites`` counts, by player kind, the envites made: ``"open N"`` /
    ``"raise N"`` for an envido to N, ``"ordago"``; ``counters`` what ``_observe`` counts.
    """
    mode, a_team, first_mano, deal_seed = game_setup(i, mode, seed)
    deal_rng = random.Random(deal_seed)
    kinds = [a if s & 1 == a_team else b for s in range(4)]
    players = [PLAYERS[k] for k in kinds]
    rngs = [random.Random(f"{seed}:{i}:{s}") for s in range(4)]
    g = new_game(mode, first_mano, deal_rng)
    n = 0
    perf, cpu = time.perf_counter, time.process_time
    while g.phase not in ("terminada", "cancelada") and n < MAX_ACTIONS:
        seat = g.to_act()[0]
        v = view(g, seat, recall=True)
        c0, t0 = cpu(), perf()
        action = players[seat](v, rngs[seat])
        t1, c1 = perf(), cpu()
        if timings is not None:
            timings.setdefault(kinds[seat], []).append(t1 - t0)
        if cpu_timings is not None:
            cpu_timings.setdefault(kinds[seat], []).append(c1 - c0)
        if envites is not None and action.act in ("envido", "ordago"):
            if action.act == "ordago":
                label = "ordago"
            else:
                label = f"{'raise' if v['bet'] else 'open'} {action.to}"
            per = envites.setdefault(kinds[seat], {})
            per[label] = per.get(label, 0) + 1
        if counters is not None and v["lance"] is not None:
            _observe(counters, kinds[seat], g, v, action)
        g = apply(g, action, deal_rng)
        n += 1
    winner = g.winner
    return {
        "a_won": None if winner is None else winner == a_team,
        "mode": mode,
        "hands": g.hand_no,
        "ordago": g.ended_by == "ordago",
        "actions": n,
        "scores_a_b": (g.scores[a_team], g.scores[1 - a_team]),
    }


#: One worker's share of a matchup: its games' results, then decision times (wall clock, CPU)
#: envites and ``_observe``'s counters by player kind.
Chunk = tuple[
    list[dict[str, Any]],
    dict[str, list[float]],
    dict[str, list[float]],
    dict[str, dict[str, int]],
    dict[str, dict[str, float]],
]


def _run_chunk(args: tuple[str, str, list[int], str, int]) -> Chunk:
    a, b, indexes, mode, seed = args
    timings: dict[str, list[float]] = {}
    cpu_timings: dict[str, list[float]] = {}
    envites: dict[str, dict[str, int]] = {}
    counters: dict[str, dict[str, float]] = {}
    results = [
        play_game(a, b, i, mode, seed, timings, cpu_timings, envites, counters) for i in indexes
    ]
    return results, timings, cpu_timings, envites, counters


def run_matchup(a: str, b: str, games: int, mode: str, seed: int, jobs: int = 1) -> dict[str, Any]:
    """Play ``games`` games of a:b; returns the results and the decision times."""
    indexes = list(range(games))
    if jobs > 1:
        chunks = [indexes[j::jobs] for j in range(jobs)]
        with ProcessPoolExecutor(jobs) as ex:
            parts = list(ex.map(_run_chunk, [(a, b, c, mode, seed) for c in chunks]))
    else:
        parts = [_run_chunk((a, b, indexes, mode, seed))]
    results: list[dict[str, Any]] = []
    timings: dict[str, list[float]] = {}
    cpu_timings: dict[str, list[float]] = {}
    envites: dict[str, dict[str, int]] = {}
    counters: dict[str, dict[str, float]] = {}
    for res, tim, cpu, env, cnt in parts:
        results.extend(res)
        for k, got in cnt.items():
            for label, n in got.items():
                _count(counters, k, label, n)
        for k, counts in env.items():
            per = envites.setdefault(k, {})
            for label, c in counts.items():
                per[label] = per.get(label, 0) + c
        for k, lst in tim.items():
            timings.setdefault(k, []).extend(lst)
        for k, lst in cpu.items():
            cpu_timings.setdefault(k, []).extend(lst)
    wins = sum(1 for r in results if r["a_won"])
    finished = sum(1 for r in results if r["a_won"] is not None)
    return {
        "a": a,
        "b": b,
        "games": games,
        "finished": finished,
        "wins": wins,
        "rate": wins / games if games else 0.0,
        "ci": wilson(wins, games),
        "hands": statistics.mean(r["hands"] for r in results) if results else 0.0,
        "ordago": sum(r["ordago"] for r in results) / games if games else 0.0,
        "ordago_ci": wilson(sum(r["ordago"] for r in results), games),
        "envites": envites,
        "counters": counters,
        "timings": timings,
        "cpu_timings": cpu_timings,
        "results": results,
    }


def time_stats(times: list[float]) -> tuple[float, float, int]:
    """(median, p99) in milliseconds and the count."""
    if not times:
        return (0.0, 0.0, 0)
    s = sorted(times)
    p99 = s[min(len(s) - 1, math.ceil(0.99 * len(s)) - 1)]
    return (statistics.median(s) * 1000, p99 * 1000, len(s))


def format_envites(counts: dict[str, int]) -> str:
    """``open 2: 40 %, open 3: 12 %, ..., raise 5: 3 %, ordago: 2 %`` (shares of all envites)."""
    total = sum(counts.values()) or 1

    def order(label: str) -> tuple[int, int]:
        if label == "ordago":
            return (2, 0)
        kind, n = label.split()
        return (0 if kind == "open" else 1, int(n))

    return f"{total} envites: " + ", ".join(
        f"{label} {counts[label] / total:.{1 if label == 'ordago' else 0}%}"
        for label in sorted(counts, key=order)
    )


def format_bands(c: dict[str, float]) -> str | None:
    """``N órdagos: a pair at 30+ 40 %, ...; lance won by its cards 80 %`` or None."""
    n = sum(c.get("ordago " + b, 0) for b in BANDS)
    if not n:
        return None
    return (
        f"{n:.0f} órdagos: "
        + ", ".join(f"{b} {c.get('ordago ' + b, 0) / n:.0%}" for b in BANDS)
        + f"; lance won by its cards {c.get('ordago won lance', 0) / n:.0%}"
    )


def format_leaks(c: dict[str, float]) -> str | None:
    """The juego-refusal and pares-call leaks of one player kind, or None."""
    out = []
    if c.get("juego answers"):
        r = c.get("juego refusals", 0)
        out.append(
            f"refuses {r / c['juego answers']:.0%} of {c['juego answers']:.0f} juego bets"
            + (
                f", better juego in {c.get('juego refusals better', 0) / r:.0%} of those,"
                f" calling {c.get('juego refusal cost', 0) / r:+.2f} tantos a refusal"
                if r
                else ""
            )
        )
    if c.get("pares answers"):
        k = c.get("pares calls", 0)
        out.append(
            f"calls {k / c['pares answers']:.0%} of {c['pares answers']:.0f} pares bets"
            + (
                f", wins {c.get('pares calls won', 0) / k:.0%} of the calls,"
                f" no quiero {c.get('pares call cost', 0) / k:+.2f} tantos a call"
                if k
                else ""
            )
        )
    return "; ".join(out) or None


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m tools.arena", description=__doc__)
    p.add_argument("--games", type=int, default=2000, help="games per matchup (default 2000)")
    p.add_argument("--mode", choices=(*MODES, "both"), default="both")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument(
        "--matchup",
        action="append",
        help=f"A:B with players {', '.join(PLAYERS)}; repeatable "
        f"(default: {' '.join(DEFAULT_MATCHUPS)})",
    )
    p.add_argument("--jobs", type=int, default=1, help="worker processes (default 1)")
    args = p.parse_args(argv)
    matchups = args.matchup or list(DEFAULT_MATCHUPS)
    for m in matchups:
        parts = m.split(":")
        if len(parts) != 2 or not all(x in PLAYERS for x in parts):
            p.error(f"bad matchup {m!r}: use A:B with A, B in {', '.join(PLAYERS)}")
    print(f"{args.games} games per matchup, mode {args.mode}, seed {args.seed}")
    print(
        f"{'matchup':<18} {'games':>6} {'A wins':>7} {'rate':>7}  {'95% Wilson CI':<17}"
        f" {'hands/game':>10} {'órdago end':>10}"
    )
    all_times: dict[str, list[float]] = {}
    all_cpu: dict[str, list[float]] = {}
    all_envites: dict[str, dict[str, int]] = {}
    for m in matchups:
        a, b = m.split(":")
        r = run_matchup(a, b, args.games, args.mode, args.seed, args.jobs)
        lo, hi = r["ci"]
        unfinished = r["games"] - r["finished"]
        note = f"  ({unfinished} unfinished)" if unfinished else ""
        print(
            f"{m:<18} {r['games']:>6} {r['wins']:>7} {r['rate']:>7.1%}  "
            f"[{lo:.1%}, {hi:.1%}]{'':<2} {r['hands']:>10.1f} {r['ordago']:>10.1%}{note}"
        )
        sys.stdout.flush()
        for k, lst in r["timings"].items():
            all_times.setdefault(k, []).extend(lst)
        for k, lst in r["cpu_timings"].items():
            all_cpu.setdefault(k, []).extend(lst)
        olo, ohi = r["ordago_ci"]
        print(f"{'':<18} órdago end 95% CI [{olo:.1%}, {ohi:.1%}]")
        for k, counts in sorted(r["envites"].items()):
            print(f"{'':<18} envites by {k}: {format_envites(counts)}")
            per = all_envites.setdefault(k, {})
            for label, c in counts.items():
                per[label] = per.get(label, 0) + c
        for k, cnt in sorted(r["counters"].items()):
            bands = format_bands(cnt)
            if bands:
                print(f"{'':<18} {k}'s {bands}")
            leaks = format_leaks(cnt)
            if leaks:
                print(f"{'':<18} {k} {leaks}")
    print("decision time per player kind, ms (wall clock, then process CPU time):")
    print(
        f"  {'player':<9} {'median':>8} {'p99':>8} {'max':>8}   {'median':>8} {'p99':>8}  decisions"
    )
    for k, lst in sorted(all_times.items()):
        med, p99, n = time_stats(lst)
        cmed, cp99, _n = time_stats(all_cpu[k])
        top, ctop = max(lst) * 1000, max(all_cpu[k]) * 1000
        print(
            f"  {k:<9} {med:8.3f} {p99:8.3f} {top:8.2f}   {cmed:8.3f} {cp99:8.3f} {ctop:8.2f}  {n}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
