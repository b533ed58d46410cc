"""Celery task: apply a finished game to its ladder. Safe to run twice, or twice at once."""

from __future__ import annotations

from celery import shared_task

from . import services


@shared_task(name="rankings.rate_game", ignore_result=True)
def rate_game(table_id: int) -> bool:
    return services.rate_table(table_id)
