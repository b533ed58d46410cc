"""Celery tasks: apply a finished game to its ladder (safe to run twice, or twice at once), and
rebuild every ladder from the games."""

from __future__ import annotations

import time
from typing import Any

from celery import shared_task

from . import analysis, recompute, services

#: How many of the differences found a recompute lists in its summary (it counts them all).
DIFFERENCES_SHOWN = 20


def summary_line(ladder: recompute.Ladder, seconds: float) -> str:
    """What a recompute found, in one line (also `manage.py recompute_ratings`'s first line)."""
    return (
        f"{len(ladder.games)} rated games, {len(ladder.ratings)} player ladders,"
        f" {len(ladder.changes)} rating changes in {seconds:.1f} s"
    )


@shared_task(name="rankings.rate_game", ignore_result=True)
def rate_game(table_id: int) -> bool:
    return services.rate_table(table_id)


@shared_task(name="rankings.rate_pending", ignore_result=True)
def rate_pending(limit: int = 200) -> int:
    """Run by beat: rates finished games whose own task was lost (e.g. the broker was down)."""
    return sum(services.rate_table(pk) for pk in services.pending_table_ids(limit))


@shared_task(name="rankings.recompute_ratings", ignore_result=True)
def recompute_ratings_task() -> dict[str, Any]:
    """Rebuild every ladder from the finished games, replacing the stored ones if they differ.

    It can take minutes on a large site, so it runs on a worker, not in a request. It returns a
    summary (counts, seconds, the differences and the text `manage.py recompute_ratings`
    prints) for a task linked after it: the moderation app writes it into its audit log.
    """
    started = time.perf_counter()
    ladder, differences = recompute.recompute(write=True)
    seconds = time.perf_counter() - started
    lines = [summary_line(ladder, seconds)]
    if differences:
        lines += [f"  {line}" for line in differences[:DIFFERENCES_SHOWN]]
        if len(differences) > DIFFERENCES_SHOWN:
            lines.append(f"  … and {len(differences) - DIFFERENCES_SHOWN} more")
        lines.append("The stored ladders were replaced.")
    else:
        lines.append("The stored ladders equal the recomputed ones.")
    return {
        "games": len(ladder.games),
        "ladders": len(ladder.ratings),
        "changes": len(ladder.changes),
        "differences": len(differences),
        "seconds": round(seconds, 1),
        "output": "\n".join(lines),
    }


@shared_task(name=analysis.ANALYSE_TASK, ignore_result=True)
def analyse_game(table_id: int) -> bool:
    """The hand analysis of a finished game, asked for on its page (rankings.analysis)."""
    return analysis.run_analysis(table_id)
