"""Celery tasks: the tournaments' sweep (beat, every `MUS_SWEEP_SECONDS`) and moving one
tournament on when one of its games ends. Each is safe to run twice or late."""

from __future__ import annotations

from celery import shared_task

from . import services


@shared_task(name="tournaments.sweep", ignore_result=True)
def sweep_tournaments() -> int:
    return services.sweep()


@shared_task(name="tournaments.run", ignore_result=True)
def run_tournament(tournament_id: int) -> None:
    services.run(tournament_id)
