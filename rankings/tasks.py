"""Celery task: apply a finished game to its ladder. Safe to run twice, or twice at once."""

from __future__ import annotations

from celery import shared_task

from . import services


@shared_task(name="rankings.rate_game", ignore_result=True)
def rate_game(table_id: int) -> bool:
    return services.rate_table(table_id)


@shared_task(name="rankings.rate_pending", ignore_result=True)
def rate_pending(limit: int = 200) -> int:
    """Run by beat: rates finished games whose own task was lost (e.g. the broker was down)."""
    return sum(services.rate_table(pk) for pk in services.pending_table_ids(limit))
