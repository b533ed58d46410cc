"""Nobody is charged for an outage (docs/deploy.md, «Caídas»).

The turn clocks and the reconnection windows are deadlines in the database, played out by the
sweep Celery beat runs every second. While PostgreSQL, Redis, the worker or beat is down no sweep
runs, but the deadlines keep running out: a player would lose their turn, or their seat, to the
server. So every sweep first notes when it ran (`SweepMark`); one that finds a gap that only an
outage leaves moves every clock of the games in play on by the time lost before it plays out
anything, gives every server process a full timeout to beat again (presence is rebuilt from
heartbeats, not trusted from before) and sends every table in play its state again.

Which gaps are an outage: a busy worker alone leaves 3-12 s between sweeps (the sweep's message
expires while the worker runs other tasks), and moving every clock on then would only slow the
games and resend every table. So a gap counts when it is longer than `MUS_SWEEP_GAP_SECONDS`
(20 s), or longer than a couple of sweeps when an outage was seen in it: a task of the worker
failed on PostgreSQL or Redis (`note_outage`: a short PostgreSQL restart), or beat could not send
the sweep (`record_outage`: a short Redis restart).
"""

from __future__ import annotations

import logging
from contextlib import suppress
from datetime import datetime, timedelta

from django.conf import settings
from django.db import transaction
from django.db.models import F
from django.db.models.functions import Greatest, Least
from django.utils import timezone

from ..models import Seat, ServerProcess, SweepMark, Table
from .errors import OUTAGES
from .groups import batched
from .state import broadcast

log = logging.getLogger(__name__)

SWEEP = "sweep"
#: When beat last failed to send a sweep (`record_outage`).
OUTAGE = "outage"


#: A sweep of this process failed on an outage since the last one that ran.
_outage_seen = False


def gap_allowed() -> float:
    """Seconds between two sweeps that still count as running on time (with no outage seen)."""
    return max(float(settings.MUS_SWEEP_GAP_SECONDS), on_time())


def on_time() -> float:
    """Seconds between two sweeps when they run on time: a couple of sweeps."""
    return 2.0 * settings.MUS_SWEEP_SECONDS + 1.0


def note_outage() -> None:
    """A task of this process (the worker's) failed on PostgreSQL or Redis: the next gap is an
    outage, however short."""
    global _outage_seen
    _outage_seen = True


def record_outage() -> None:
    """Beat could not send the sweep (Redis is down) while PostgreSQL is up: the next gap is an
    outage, however short, whichever worker runs the next sweep."""
    with suppress(*OUTAGES):
        SweepMark.objects.update_or_create(name=OUTAGE, defaults={"ran_at": timezone.now()})


def last_sweep() -> datetime | None:
    """When the sweep last ran (None: never)."""
    return SweepMark.objects.filter(name=SWEEP).values_list("ran_at", flat=True).first()


def catch_up(now: datetime | None = None) -> float:
    """Note this sweep; after a gap, move the clocks on by the time lost. Returns those seconds
    (0 when the sweeps ran on time)."""
    global _outage_seen
    now = now or timezone.now()
    with transaction.atomic():
        mark = SweepMark.objects.select_for_update().filter(name=SWEEP).first()
        if mark is None:
            SweepMark.objects.create(name=SWEEP, ran_at=now)
            return 0.0
        gap = (now - mark.ran_at).total_seconds()
        seen = SweepMark.objects.filter(name=OUTAGE, ran_at__gte=mark.ran_at).exists()
        mark.ran_at = max(now, mark.ran_at)
        mark.save(update_fields=["ran_at"])
        allowed = on_time() if _outage_seen or seen else gap_allowed()
        if gap <= allowed:
            _outage_seen = False
            return 0.0
        lost = gap - settings.MUS_SWEEP_SECONDS
        shift = timedelta(seconds=lost)
        playing = Table.objects.filter(status=Table.Status.PLAYING)
        moved = playing.filter(deadline__isnull=False).update(deadline=F("deadline") + shift)
        Seat.objects.filter(table__in=playing, disconnected_at__isnull=False).update(
            # The time away counted when the player comes back leaves the outage out (and is
            # never negative, for a seat that started waiting during the outage).
            disconnected_at=Least(F("disconnected_at") + shift, now),
            reconnect_deadline=F("reconnect_deadline") + shift,
        )
        # Nor a seat at a table that has not started (`tables.free_away_seats`).
        Seat.objects.filter(table__status=Table.Status.OPEN, disconnected_at__isnull=False).update(
            disconnected_at=Least(F("disconnected_at") + shift, now)
        )
        # Every server process beats again within its timeout from now, or its sockets are
        # dropped: what was known of them before the outage is not trusted.
        ServerProcess.objects.update(beat_at=Greatest(F("beat_at"), now))
        table_ids = list(playing.values_list("pk", flat=True))
    _outage_seen = False
    log.warning(
        "sweeps stopped for %.1f s: %d turn clocks and the reconnection windows moved on by %.1f s",
        gap,
        moved,
        lost,
    )
    _send_again(table_ids)
    return lost


@batched
def _send_again(table_ids: list[int]) -> None:
    """Every table in play its state again: clocks moved, and messages may have been lost."""
    for table_id in table_ids:
        broadcast(table_id)
