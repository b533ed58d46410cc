"""The Celery app: Redis broker, tasks discovered from the Django apps."""

import os
from typing import Any

from celery import Celery
from celery.beat import PersistentScheduler

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "musweb.settings")

app = Celery("musweb")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


@app.on_after_configure.connect
def _schedule_sweeps(sender: Celery, **_: object) -> None:
    from django.conf import settings

    # The turn clock: beat plays every overdue turn (games.tasks.sweep_deadlines). A sweep that
    # waited longer than the interval is dropped, the next one does its work.
    sender.add_periodic_task(
        float(settings.MUS_SWEEP_SECONDS),
        sender.signature("games.sweep_deadlines", expires=float(settings.MUS_SWEEP_SECONDS)),
        name="sweep",
    )
    # Tournaments: the start at its time, then each round as soon as the last one ends (a game's
    # end also queues `tournaments.run` at once; this is the safety net).
    sender.add_periodic_task(
        float(settings.MUS_SWEEP_SECONDS),
        sender.signature("tournaments.sweep", expires=float(settings.MUS_SWEEP_SECONDS)),
        name="tournaments",
    )
    # The lobby: what changed in its lists is pushed to everybody looking at it.
    sender.add_periodic_task(
        float(settings.MUS_LOBBY_SECONDS),
        sender.signature("games.push_lobby", expires=float(settings.MUS_LOBBY_SECONDS)),
        name="lobby",
    )
    # A finished game whose rating task was lost is rated within a minute.
    sender.add_periodic_task(60.0, sender.signature("rankings.rate_pending"), name="rate-pending")
    # Unconfirmed email addresses are forgotten once expired (accounts.addresses).
    sender.add_periodic_task(3600.0, sender.signature("accounts.expire_emails"), name="emails")


class Scheduler(PersistentScheduler):
    """Beat's scheduler (`CELERY_BEAT_SCHEDULER`): a task it cannot send (Redis is down) is noted
    in the database, so that the sweep after the outage moves the clocks on however short it was
    (games.services.clockwork)."""

    def apply_async(self, entry: Any, producer: Any = None, advance: bool = True, **kw: Any) -> Any:
        try:
            return super().apply_async(entry, producer, advance, **kw)
        except Exception:
            from games.services import record_outage

            record_outage()
            raise
