"""Celery tasks: turn clocks and disconnections. Each is safe to run twice or late."""

from __future__ import annotations

from celery import shared_task
from django.utils import timezone

from . import services
from .models import Seat, Table


@shared_task(name="games.sweep_deadlines", ignore_result=True)
def sweep_deadlines() -> int:
    """The turn clock: run by beat every MUS_SWEEP_SECONDS (1 s), it plays every overdue turn.

    One sweep query a second replaced a Celery task per action (an ETA task held by the worker
    for every move): the sweep costs the same whatever the number of tables, and a deadline can
    never be lost with a worker. Abandoned seats (a reconnection window run out) cancel their
    game here too, the same way.
    """
    now = timezone.now()
    done = 0
    overdue = Table.objects.filter(status=Table.Status.PLAYING, deadline__lt=now).values_list(
        "pk", "version"
    )
    for table_id, version in overdue[:500]:
        done += services.play_defaults(table_id, version)
    abandoned = (
        Seat.objects.filter(
            table__status=Table.Status.PLAYING, reconnect_deadline__lte=now, connections=0
        )
        .values_list("table_id", flat=True)
        .distinct()
    )
    for table_id in abandoned[:500]:
        done += int(services.cancel_if_abandoned(table_id))
    return done


@shared_task(name="games.bot_turn", ignore_result=True)
def bot_turn_task(table_id: int, version: int) -> bool:
    from .bots import play_bot_turn

    return play_bot_turn(table_id, version)
