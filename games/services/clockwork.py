"""What runs the turn clock: the sweep that plays out overdue turns, and, after an outage, the
catch-up by which nobody is charged for it (docs/deploy.md, «Caídas»). What a clock is, and its
rules, are `games.clock.TurnClock`'s; where its facts are stored, `services.clock`'s.

The turn clocks and the reconnection windows are deadlines in the database, played out by the
sweep Celery beat runs every second (`play_overdue_turns`: the safe defaults of docs/rules.md
§8.2, `play_defaults`). While PostgreSQL, Redis, the worker or beat is down no sweep runs, but the
deadlines keep running out: a player would lose their turn, or their seat, to the server. So
every sweep first notes when it ran (`SweepMark`); one that finds a gap that only an outage
leaves moves every clock of the games in play on by the time lost before it plays out anything
(`TurnClock.shifted`), gives every server process a full timeout to beat again (presence is
rebuilt from heartbeats, not trusted from before) and sends every table in play its state again.

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
from django.db.models.functions import Greatest
from django.utils import timezone

from .. import engine
from ..models import ServerProcess, SweepMark, Table
from .clock import clock_in_play, clock_of, shift_all
from .errors import OUTAGES, Conflict
from .groups import batched
from .moves import plan_game
from .pipeline import commit
from .state import broadcast
from .storage import game_of, load_table
from .turns import bot_seats, decide

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
        moved = shift_all(timedelta(seconds=lost), now)
        # Every server process beats again within its timeout from now, or its sockets are
        # dropped: what was known of them before the outage is not trusted.
        ServerProcess.objects.update(beat_at=Greatest(F("beat_at"), now))
        playing = Table.objects.filter(status=Table.Status.PLAYING)
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


# --------------------------------------------------------------------------------------------
# The sweep of turns.
# --------------------------------------------------------------------------------------------
def play_overdue_turns(now: datetime, limit: int) -> int:
    """Play the safe defaults at (up to `limit`) games in play whose clock ran out before `now`;
    returns how many actions were played."""
    overdue = Table.objects.filter(status=Table.Status.PLAYING, deadline__lt=now).values_list(
        "pk", "version"
    )
    return sum(play_defaults(table_id, version) for table_id, version in overdue[:limit])


def play_defaults(table_id: int, version: int | None = None) -> int:
    """The turn clock ran out: play docs/rules.md §8.2's safe default for every seat still to act.

    Guarded by the version (a sweep for an old turn does nothing) and by the stored deadline (a
    sweep that runs early does nothing), so running it twice is harmless. Seats whose player is
    away have their clock stopped (§8.3) and are skipped; at the recuento, the next hand is dealt.
    """
    table = load_table(table_id)
    if table is None or table.status != Table.Status.PLAYING:
        return 0
    if version is not None and table.version != version:
        return 0
    if not clock_of(table).ran_out(timezone.now()):
        return 0
    game = first = game_of(table)
    if game is None:
        return 0
    if game.phase == "recuento":
        # Time is up for «Seguir»: the next hand comes, whoever has not pressed it.
        game = engine.apply(game, engine.Action(game.mano, "repartir"))
        played = 1
    else:
        game, played = _stand_ins(table, game)
    if not played:
        return 0
    try:
        commit(plan_game(table, game, first))
    except Conflict:
        return 0  # somebody acted at the last moment: their action wins
    return played


def _stand_ins(table: Table, game: engine.Game) -> tuple[engine.Game, int]:
    """Every present seat still to act plays what the table plays for it: a bot its own choice,
    a person the safe default of docs/rules.md §8.2, marked as played by the clock."""
    bots = bot_seats(table)
    played = 0
    for seat in clock_in_play(table).plays_for():
        action = decide(game, seat) if seat in bots else engine.default_action(game, seat)
        try:
            game = engine.apply(game, action)
        except engine.IllegalAction:  # pragma: no cover - default_action is always legal
            log.exception("default action refused on table %s", table.pk)
            continue
        if seat not in bots:
            game.mark_clock()
        played += 1
    return game, played
