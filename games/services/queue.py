"""Quick play: a queue per mode, from which four compatible players sit down at once.

Who waits is in PostgreSQL (`QueueEntry`, one per player or pair who came together, and a
`QueuedPlayer` per player: a player is in the queue once, however many tabs they have). Every
change of the queue runs under one transaction-level advisory lock, so two arrivals at the same
moment never both seat a third player: the fourth arrival's own request runs the matcher
(`games.matchmaking`, pure) and seats the table (`tables.seat_four`, every rule of sitting and
starting applies) before it answers. The clock's sweep runs it again every second for the windows
that widen with the wait, and drops whoever has left.

A player stays in the queue while their queue page is open: each open page is a `QueueSocket` of
a server process, like a table's `Connection`. Closing the last one leaves the queue (after
`RELOAD_SECONDS`, so a reload does not), as does «Cancelar»; the sockets of a server process that
stopped beating are dropped like the tables'. A new entry keeps its place for `HOLD_SECONDS`
before its page has opened.

A player matched who never comes to the table dodged the game: it is cancelled for everybody
(`Table.CancelReason.NO_SHOW`) after `SHOW_UP_SECONDS`, or at once if they press «Cancelar» then,
and it counts against them like declining; repeated dodges suspend them from quick play.
"""

from __future__ import annotations

import logging
from collections import defaultdict
from dataclasses import dataclass
from datetime import datetime, timedelta
from itertools import groupby
from typing import Any

from django.conf import settings
from django.db import connection, transaction
from django.db.models import Q
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext, override

from accounts import relations
from accounts.models import User

from .. import hooks, matchmaking
from ..models import (
    Mode,
    QueueDodge,
    QueuedPlayer,
    QueueEntry,
    QueueSocket,
    Seat,
    ServerProcess,
    Table,
)
from . import abandonment, bots, finish, tables
from .access import check_standing
from .errors import ServiceError, unique_or
from .groups import batched
from .notify import tell
from .queue_limits import check_join_rate, size_changed
from .queue_limits import waiting as waiting  # (how many wait: told with the queue's size)
from .storage import live_seat_of

log = logging.getLogger(__name__)

#: A new entry keeps its place this long before its queue page has opened.
HOLD_SECONDS = 15
#: After a player's last queue page closes, this long before they leave (a reload is not leaving).
RELOAD_SECONDS = 3
#: «Completar con bots» is offered after this long in the queue.
BOTS_AFTER_SECONDS = 20
#: A matched player has this long to come to the table before the game is cancelled as dodged.
SHOW_UP_SECONDS = 15
#: Dodges counted together, and the suspension from quick play after the 2nd, 3rd and later.
DODGE_WINDOW = timedelta(hours=1)
DODGE_SUSPENSIONS = (
    timedelta(0),
    timedelta(minutes=5),
    timedelta(minutes=15),
    timedelta(hours=1),
)

# The transaction-level advisory lock every change of the queue takes (an arbitrary constant).
_LOCK_KEY = 7_318_204


def lock_queue() -> None:
    """The queue's one lock, for the rest of the transaction: people's quick play and the bots'
    (services.bot_queue) are matched by the same run, one at a time."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_advisory_xact_lock(%s)", [_LOCK_KEY])


# --------------------------------------------------------------------------------------------
# Who may queue.
# --------------------------------------------------------------------------------------------
def dodge_suspended_until(user: Any) -> datetime | None:
    """The end of `user`'s suspension from quick play, if it is still running."""
    return abandonment.running_suspension(user, QueueDodge, DODGE_WINDOW, DODGE_SUSPENSIONS)


def dodge_message(end: datetime) -> str:
    n = abandonment.minutes_left(end)
    return ngettext(
        "No te presentaste a varias partidas rápidas: no puedes usar «Jugar ya» durante %(n)s "
        "minuto más.",
        "No te presentaste a varias partidas rápidas: no puedes usar «Jugar ya» durante %(n)s "
        "minutos más.",
        n,
    ) % {"n": n}


def refusal(user: User, *, bots: bool = False) -> ServiceError | None:
    """Why `user` may not wait for quick play now (None: they may); `bots`: in the bots' pool."""
    if not bots and (user.is_bot or user.is_bot_account):  # (theirs is `bot_queue`)
        return ServiceError("bot", _("Los bots no hacen cola."))
    if not user.may_play:
        return ServiceError("banned", _("Tu cuenta está suspendida: no puedes jugar."))
    try:
        check_standing(user)  # (a tournament the player checked in for, say)
    except ServiceError as exc:
        return exc
    end = dodge_suspended_until(user)
    if end is not None:
        return ServiceError("queue_suspended", dodge_message(end))
    if live_seat_of(user) is not None:
        return ServiceError(
            "already_seated", _("Ya estás sentado en una mesa: termina o levántate antes.")
        )
    return None


def check_may_queue(user: User) -> None:
    error = refusal(user)
    if error is not None:
        raise error


# --------------------------------------------------------------------------------------------
# Joining and leaving.
# --------------------------------------------------------------------------------------------
def rating_for(user_id: int, mode: str) -> float:
    """The rating the matcher pairs `user_id` by on the ladder `mode` (0.0 when the ladders
    know nothing of it)."""
    label = hooks.ratings([(user_id, mode)]).get((user_id, mode))
    return float(label.rating) if label is not None else 0.0


@batched
def join(user: User, mode: str, *, partner: User | None = None) -> Table | None:
    """«Jugar ya»: `user` (with `partner`, a pair who came together) waits for a table of
    `mode`. Returns the table if they sat down at once (they were the fourth)."""
    if mode not in Mode.values:
        raise ServiceError("unknown_mode", _("Modalidad desconocida."))
    players = [user] if partner is None else [user, partner]
    if partner is not None and partner.pk == user.pk:
        raise ServiceError("self", _("No puedes ser tu propia pareja."))
    for player in players:
        check_may_queue(player)
    if partner is None:  # (a pair comes by an invitation, limited on its own)
        check_join_rate(user)  # before the lock: a burst never gets to wait for it
    now = timezone.now()
    with transaction.atomic():
        lock_queue()
        mine = QueuedPlayer.objects.filter(user__in=players).select_related("entry")
        joined_at = now
        for queued in mine:
            if partner is None and queued.entry.mode == mode:
                return None  # already waiting for the same (another tab, a double click)
            if queued.entry.mode != mode:
                raise ServiceError(
                    "already_queued",
                    _("Ya estás en la cola de otra modalidad: sal de ella antes.")
                    if partner is None
                    else _("Uno de los dos ya está en la cola de otra modalidad."),
                )
            # A player waiting alone who finds a partner keeps their place in the queue.
            joined_at = min(joined_at, queued.entry.joined_at)
            _remove(queued.entry, reason=None)
        entry = QueueEntry.objects.create(
            mode=mode, joined_at=joined_at, hold_until=now + timedelta(seconds=HOLD_SECONDS)
        )
        with unique_or(ServiceError("already_queued", _("Ya estás en la cola."))):
            QueuedPlayer.objects.bulk_create(
                QueuedPlayer(user=p, entry=entry, rating=rating_for(p.pk, mode)) for p in players
            )
        for player in players:
            _recount(player.pk, now)
        size_changed(mode)
        seated = match_locked(now)
    return seated.get(user.pk)


@batched
def leave(user: User) -> bool:
    """`user` (and their partner) leave the queue; False if they were not in it."""
    with transaction.atomic():
        lock_queue()
        queued = QueuedPlayer.objects.filter(user=user).select_related("entry").first()
        if queued is None:
            return False
        _remove(queued.entry, reason=_("Tu pareja ha salido de la cola."), skip={user.pk})
        return True


@batched
def cancel(user: User) -> bool:
    """«Cancelar»: leave the queue; but if quick play has just seated the player at a table they
    have not come to, that is a dodge. False if there was nothing to leave."""
    return leave(user) or dodge(user)


def _remove(entry: QueueEntry, reason: Any, skip: set[int] | frozenset[int] = frozenset()) -> None:
    """Take `entry` out of the queue (locked); its players but `skip` are told `reason`."""
    users = list(User.objects.filter(queued__entry=entry))
    entry.delete()
    size_changed(entry.mode)
    if reason is None:
        return
    for user in users:
        if user.pk not in skip:
            tell(user, {"type": "left", "code": "left"}, reason)


# --------------------------------------------------------------------------------------------
# The queue pages' sockets.
# --------------------------------------------------------------------------------------------
@batched
def socket_opened(user_id: int, channel: str, process: str) -> None:
    """A queue page of the player opened: they are still here (a leaver who came back in time
    may be matched again)."""
    with transaction.atomic():
        lock_queue()
        QueueSocket.objects.get_or_create(
            channel=channel, defaults={"process": process, "user_id": user_id}
        )
        now = timezone.now()
        if _recount(user_id, now):
            match_locked(now)


@batched
def socket_closed(channel: str) -> None:
    with transaction.atomic():
        lock_queue()
        user_id = QueueSocket.objects.filter(channel=channel).values_list("user_id", flat=True)
        user_id = user_id.first()
        if user_id is None:
            return  # already dropped with its process
        QueueSocket.objects.filter(channel=channel).delete()
        _recount(user_id, timezone.now())


def _recount(user_id: int, now: datetime) -> bool:
    """Bring the player's count of open queue pages up to date; True if they came back."""
    count = QueueSocket.objects.filter(user_id=user_id).count()
    queued = QueuedPlayer.objects.filter(user_id=user_id).first()
    if queued is None:
        return False
    back = count > 0 and queued.sockets == 0
    gone_at = None if count else (queued.gone_at or (now if queued.sockets else None))
    QueuedPlayer.objects.filter(pk=user_id).update(sockets=count, gone_at=gone_at)
    return back


@batched
def reap_silent_sockets() -> int:
    """Drop the queue sockets of server processes that stopped beating (run before
    `connections.reap_silent_processes` forgets those processes)."""
    limit = timezone.now() - timedelta(seconds=settings.MUS_PROCESS_TIMEOUT_SECONDS)
    silent = ServerProcess.objects.filter(beat_at__lt=limit).values("name")
    known = ServerProcess.objects.values("name")
    # (also a process that died before its first beat, or whose row is already gone)
    rows = QueueSocket.objects.filter(
        Q(process__in=silent) | (~Q(process__in=known) & Q(opened_at__lt=limit))
    )
    users = set(rows.values_list("user_id", flat=True))
    if not users:
        return 0
    with transaction.atomic():
        lock_queue()
        dropped = rows.delete()[0]
        now = timezone.now()
        for user_id in users:
            _recount(user_id, now)
    return dropped


# --------------------------------------------------------------------------------------------
# Matching.
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class _Row:
    entry: int
    mode: str
    joined_at: datetime
    hold_until: datetime
    user: int
    rating: float
    sockets: int
    gone_at: datetime | None
    bot_owner: int | None  # (a player's bot account waits in the bots' pool: `bot_queue`)


def _present(row: _Row, now: datetime) -> bool:
    """Is the player still here? A page open, or a new entry whose page has not opened yet."""
    return row.sockets > 0 or (row.gone_at is None and row.hold_until > now)


def match_locked(now: datetime, rng: Any = None) -> dict[int, Table]:
    """Seat every table the queue allows now (the lock held). Returns the tables by player."""
    seated: dict[int, Table] = {}
    for _attempt in range(10):
        rows = [
            _Row(*values)
            for values in QueuedPlayer.objects.order_by("entry__joined_at", "entry_id").values_list(
                "entry_id",
                "entry__mode",
                "entry__joined_at",
                "entry__hold_until",
                "user_id",
                "rating",
                "sockets",
                "gone_at",
                "user__bot_owner",
            )
        ]
        by_entry = {key: list(group) for key, group in groupby(rows, lambda r: r.entry)}
        by_pool: dict[tuple[str, bool], list[matchmaking.Waiting]] = defaultdict(list)
        for key, members in by_entry.items():
            if all(_present(r, now) for r in members):
                first = members[0]  # (a pool: people, or players' bot accounts: `bot_queue`)
                by_pool[first.mode, first.bot_owner is not None].append(
                    matchmaking.Waiting(
                        key,
                        tuple(r.user for r in members),
                        tuple(r.rating for r in members),
                        first.joined_at.timestamp(),
                    )
                )
        # Nobody sits with a player they blocked, or who blocked them.
        apart = relations.blocked_pairs([r.user for r in rows]) if rows else set()
        refused = False
        for (mode, of_bots), entries in by_pool.items():
            for found in matchmaking.match(entries, now.timestamp(), apart=apart):
                table = _seat(found, mode, rng, of_bots)
                if table is None:
                    refused = True
                    continue
                for user_id in found.seats:
                    seated[user_id] = table
        if not refused:
            break  # otherwise the others may fit with somebody else now
    return seated


def _seat(found: matchmaking.Match, mode: str, rng: Any, of_bots: bool) -> Table | None:
    """Sit the four of `found` (`of_bots`: bot accounts) at a new table and take their entries out
    of the queue. None if one may not play now: they leave the queue, told why (a partner too)."""
    users = User.objects.in_bulk(found.seats)
    try:
        with transaction.atomic():
            table = tables.seat_four([users[pk] for pk in found.seats], mode, rng, bots=of_bots)
    except ServiceError:
        refused = {}
        for pk, user in users.items():
            with override(user.language or "es"):  # (the message is made in their language)
                error = refusal(user, bots=of_bots)
            if error is not None:
                refused[pk] = error
        if not refused:  # pragma: no cover - a race the next round settles
            log.warning("quick play could not seat %s", found, exc_info=True)
        for pk, error in refused.items():
            queued = QueuedPlayer.objects.filter(user_id=pk).select_related("entry").first()
            if queued is not None:
                _remove(queued.entry, reason=_("Tu pareja ya no puede jugar."), skip={pk})
            tell(users[pk], {"type": "left", "code": error.code}, error.message)
        return None
    QueueEntry.objects.filter(pk__in=found.entries).delete()
    size_changed(mode)
    url = reverse("games:table", args=[table.pk])
    for pk in found.seats:
        tell(users[pk], {"type": "matched", "table": table.pk, "url": url})
    return table


# --------------------------------------------------------------------------------------------
# Bots, dodges and the clock's sweep.
# --------------------------------------------------------------------------------------------
@batched
def complete_with_bots(user: User, rng: Any = None) -> Table:
    """«Completar con bots»: after `BOTS_AFTER_SECONDS` in the queue, the player (and partner)
    leave it for a table with bots, dealt at once and unrated."""
    with transaction.atomic():
        lock_queue()
        queued = QueuedPlayer.objects.filter(user=user).select_related("entry").first()
        if queued is None:
            raise ServiceError("not_queued", _("No estás en la cola."))
        entry = queued.entry
        if timezone.now() - entry.joined_at < timedelta(seconds=BOTS_AFTER_SECONDS):
            raise ServiceError(
                "too_soon", _("Espera un poco: quizá llegue alguien. Los bots, en unos segundos.")
            )
        players = sorted(User.objects.filter(queued__entry=entry), key=lambda u: u.pk != user.pk)
        _remove(entry, reason=None)
        table = bots.start_with_bots(players, entry.mode, rng)
        url = reverse("games:table", args=[table.pk])
        for player in players:
            tell(player, {"type": "matched", "table": table.pk, "url": url})
    return table


def _absent_seats(now: datetime, table_id: int | None = None) -> Any:
    """Seats of quick play's games in progress whose player has not come yet."""
    seats = Seat.objects.filter(
        table__quick=True,
        table__status=Table.Status.PLAYING,
        table__started_at__gt=now - timedelta(minutes=10),
        user__is_bot=False,
        # Waiting since the start (services.connections.mark_absent) and never came since.
        arrived=False,
    )
    return seats if table_id is None else seats.filter(table_id=table_id)


def not_come_yet(table: Table, user: Any) -> bool:
    """Quick play seated `user` at `table` and they have not come to it («Cancelar»: a dodge)."""
    return table.quick and _absent_seats(timezone.now(), table.pk).filter(user=user.pk).exists()


def dodge(user: User) -> bool:
    """«Cancelar» right after quick play seated the player, before they came: the game is
    cancelled for everybody and the player charged a dodge. False if there was nothing to leave."""
    seat = _absent_seats(timezone.now()).filter(user=user).first()
    return seat is not None and finish.no_show(seat.table_id, [user.pk])


@batched
def cancel_no_shows() -> int:
    """Cancel the quick games a matched player did not come to in `SHOW_UP_SECONDS`."""
    now = timezone.now()
    late = _absent_seats(now).filter(table__started_at__lt=now - timedelta(seconds=SHOW_UP_SECONDS))
    absent: dict[int, list[int]] = defaultdict(list)
    for table_id, user_id in late.values_list("table_id", "user_id"):
        absent[table_id].append(user_id)
    return sum(int(finish.no_show(t, users)) for t, users in absent.items())


def _gone(now: datetime) -> Q:
    """Players who left: no queue page open, since their place was held or past a reload."""
    return Q(sockets=0) & (
        Q(gone_at__isnull=True, entry__hold_until__lte=now)
        | Q(gone_at__lte=now - timedelta(seconds=RELOAD_SECONDS))
    )


@batched
def drop_leavers() -> int:
    """Take out of the queue the entries of players who left; a partner who stayed is told."""
    now = timezone.now()
    entries = set(QueuedPlayer.objects.filter(_gone(now)).values_list("entry_id", flat=True))
    if not entries:
        return 0
    dropped = 0
    with transaction.atomic():
        lock_queue()
        for entry in QueueEntry.objects.filter(pk__in=entries):
            gone = set(entry.players.filter(_gone(now)).values_list("user_id", flat=True))
            if gone:
                _remove(entry, reason=_("Tu pareja ha salido de la cola."), skip=gone)
                dropped += 1
    return dropped


@batched
def sweep() -> int:
    """The clock's share of quick play, every second (after `reap_silent_sockets`): leavers,
    no-shows, and the matches the widening windows allow now."""
    done = cancel_no_shows()
    if QueuedPlayer.objects.exists():
        done += drop_leavers()
        with transaction.atomic():
            lock_queue()
            done += len(match_locked(timezone.now()))
    return done
