"""Celery tasks: the ones linked after the rankings app's ladder recompute, whose result goes into
the audit-log entry of the moderator who asked for it (`moderation.actions.recompute_ratings`),
and the making of a large «Descargar mis datos» (`moderation.export`)."""

from __future__ import annotations

from typing import Any

from celery import shared_task
from django.utils import timezone

from . import export
from .models import DataExport, ModerationAction

#: `details["status"]` of a recompute entry: asked for, finished, failed.
QUEUED = "encargado"
DONE = "hecho"
FAILED = "fallido"


def finish_recompute(entry_id: int, result: dict[str, Any]) -> bool:
    """Write `result` into a recompute entry still waiting for it; False if it was not waiting.

    Compare-and-set on the status: a result delivered twice (a redelivered message) is written
    once, and a failure never overwrites a success or the other way round.
    """
    entry = ModerationAction.objects.filter(
        pk=entry_id, kind=ModerationAction.Kind.RECOMPUTE
    ).first()
    if entry is None or entry.details.get("status") != QUEUED:
        return False
    updated = ModerationAction.objects.filter(pk=entry_id, details__status=QUEUED).update(
        details={**entry.details, **result}
    )
    return updated == 1


@shared_task(name="moderation.record_recompute", ignore_result=True)
def record_recompute(summary: dict[str, Any], entry_id: int) -> bool:
    """Linked to `rankings.recompute_ratings`: gets its summary when it succeeds."""
    return finish_recompute(entry_id, {**summary, "status": DONE})


@shared_task(name="moderation.record_recompute_failure", ignore_result=True)
def record_recompute_failure(
    request: Any, exc: BaseException, traceback: Any, entry_id: int
) -> bool:
    """Linked as the error callback: Celery calls it in the worker with the failed task's
    request, exception and traceback, then our own arguments."""
    return finish_recompute(
        entry_id, {"status": FAILED, "error": f"{type(exc).__name__}: {exc}"[:500]}
    )


@shared_task(name="moderation.export_player_data", ignore_result=True)
def export_player_data(export_id: int) -> bool:
    """Make the export `export_id` while it is pending; False if it was not (made already, by a
    redelivered message, or its player closed the account meanwhile)."""
    pending = DataExport.objects.filter(pk=export_id, status=DataExport.Status.PENDING)
    row = pending.select_related("user").first()
    if row is None:
        return False
    try:
        content = export.build(row.user)
    except Exception:
        pending.update(status=DataExport.Status.FAILED, finished_at=timezone.now())
        raise
    done = pending.update(
        status=DataExport.Status.READY, content=content, finished_at=timezone.now()
    )
    return done == 1
