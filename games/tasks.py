"""Celery tasks: turn clocks, disconnections and bot turns. Each is safe to run twice or late."""

from __future__ import annotations

from typing import Any

from celery import shared_task
from celery.signals import task_failure
from django.utils import timezone

from .services import (
    OUTAGES,
    cancel_if_abandoned,
    clockwork,
    close_stale_rematches,
    free_away_seats,
    invitations,
    lobby,
    overdue_seats,
    play_bot_turn,
    queue,
    queue_limits,
    reap_silent_processes,
)
from .services.turns import BOT_TURN_TASK

SWEEP_BATCH = 500


@shared_task(name="games.sweep_deadlines", ignore_result=True)
def sweep_deadlines() -> int:
    """The turn clock: run by beat every MUS_SWEEP_SECONDS (1 s), it plays every overdue turn.

    One sweep query a second replaced a Celery task per action (an ETA task held by the worker
    for every move): the sweep costs the same whatever the number of tables, and a deadline can
    never be lost with a worker. Abandoned seats (a reconnection window run out) cancel their
    game here too, the same way, after the sockets of a dead server process are dropped (a
    player who never came is a no-show, docs/rules.md §8.3); seats of tables that have not
    started whose player has been away too long are freed; and rematches that were not all
    asked for in time close. Quick play's queue is swept too (leavers,
    no-shows, the matches its widening windows allow now), and invitations expire.

    First of all, after sweeps that did not run (an outage), every clock moves on by the time
    lost (`services.clockwork.catch_up`): nobody loses a turn or a seat to the server.
    """
    clockwork.catch_up()
    done = queue.reap_silent_sockets() + reap_silent_processes()
    now = timezone.now()
    done += clockwork.play_overdue_turns(now, SWEEP_BATCH)
    abandoned = overdue_seats(now).values_list("table_id", flat=True).distinct()
    for table_id in abandoned[:SWEEP_BATCH]:
        done += int(cancel_if_abandoned(table_id))
    done += free_away_seats() + close_stale_rematches() + queue.sweep() + invitations.expire()
    queue_limits.flush_sizes()  # (queue sizes held back: messages, not changes, not counted)
    return done


@task_failure.connect
def _outage_seen(exception: BaseException | None = None, **_: Any) -> None:
    """Any task of this worker that fails on PostgreSQL or Redis (often the tournaments' sweep:
    the clock's own sweep waiting behind it expires unrun) tells the clock an outage is going
    on (`clockwork.note_outage`)."""
    if isinstance(exception, OUTAGES):
        clockwork.note_outage()


@shared_task(name=BOT_TURN_TASK, ignore_result=True)
def bot_turn_task(table_id: int, version: int) -> bool:
    return play_bot_turn(table_id, version)


@shared_task(name="games.push_lobby", ignore_result=True)
def push_lobby() -> int:
    """The lobby's shared lists, rendered and pushed to its sockets when they changed: run by beat
    every MUS_LOBBY_SECONDS (`services.lobby`)."""
    return lobby.publish()
