"""Celery tasks: turn clocks and disconnections. Each is safe to run twice or late."""

from __future__ import annotations

from celery import shared_task
from django.utils import timezone

from . import services
from .models import Seat, Table


@shared_task(name="games.turn_deadline", ignore_result=True)
def turn_deadline_task(table_id: int, version: int) -> int:
    """Scheduled for a turn's deadline: plays the defaults if that turn is still the current one."""
    return services.play_defaults(table_id, version)


@shared_task(name="games.reconnect_deadline", ignore_result=True)
def reconnect_deadline_task(table_id: int, seat: int) -> bool:
    return services.cancel_if_abandoned(table_id)


@shared_task(name="games.sweep_deadlines", ignore_result=True)
def sweep_deadlines() -> int:
    """Run by beat every few seconds, so a task lost with a worker never loses a deadline."""
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
