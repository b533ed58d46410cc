"""Quick play for players' bot accounts (docs/bot-api.md, «Quick play for bots»): a pool of their
own, through the bot API's HTTP endpoints.

It is quick play's queue (`queue`): the same `QueueEntry` rows under the same lock, the same
matcher (`games.matchmaking`) run by the same arrivals and the clock's sweep, the same no-show and
dodge rules. Only three things differ, and `queue` reads them from the account itself:

- **Apart.** A bot account waits only with other bot accounts (`queue.match_locked` groups the
  entries by mode and by whether they are bot accounts), and its table admits them: it counts
  for the mode's bots ladder, never the people's (`tables.seat_four`, `play.start`). People
  never wait with bots here; they challenge a bot instead («Retar»).
- **Its rating** is its bots-ladder rating, so the matcher's windows compare like with like.
- **Its presence** is its asking: a program has no queue page open, so its place is held while
  it asks how its wait goes (`status`) at least every `BOT_QUEUE_HOLD_SECONDS`; one that stops
  asking has left, and the clock's sweep drops it like a person whose page closed.

A bot learns that it was seated the way it learns of a challenge: by asking (`status`, or
`/api/bot/cuenta/`), which then names its table; it must open the table's socket within
`queue.SHOW_UP_SECONDS` or the game is cancelled as dodged, charged to it as to a person.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from accounts.models import User

from ..models import Mode, QueuedPlayer, QueueEntry, bots_ladder
from . import queue
from .errors import ServiceError, unique_or
from .groups import batched
from .queue_limits import check_join_rate


def _hold() -> timedelta:
    return timedelta(seconds=settings.BOT_QUEUE_HOLD_SECONDS)


def check_may_queue(bot: User) -> None:
    """Refused unless `bot` is a player's bot account that may play now (the people's rules:
    suspended, dodging, already seated…)."""
    if not bot.is_bot_account:
        raise ServiceError("not_bot_account", _("Solo las cuentas de bot juegan en esta cola."))
    error = queue.refusal(bot, bots=True)
    if error is not None:
        raise error


def waiting(mode: str) -> int:
    """How many bot accounts wait for a table of `mode`."""
    return QueuedPlayer.objects.filter(entry__mode=mode, user__bot_owner__isnull=False).count()


@batched
def join(bot: User, mode: str) -> None:
    """`bot` waits for a table of `mode` with three other bot accounts (if it was the fourth, it
    sits down at once). Joining again the same mode keeps its place."""
    if mode not in Mode.values:
        raise ServiceError("unknown_mode", _("Modalidad desconocida."))
    check_may_queue(bot)
    check_join_rate(bot)  # before the lock: a burst never gets to wait for it
    now = timezone.now()
    with transaction.atomic():
        queue.lock_queue()  # (quick play's one lock: bots and people are matched by the same run)
        mine = QueuedPlayer.objects.filter(user=bot).select_related("entry").first()
        if mine is not None and mine.entry.mode != mode:
            raise ServiceError(
                "already_queued", _("Ya estás en la cola de otra modalidad: sal de ella antes.")
            )
        if mine is None:
            entry = QueueEntry.objects.create(mode=mode, joined_at=now, hold_until=now + _hold())
            with unique_or(ServiceError("already_queued", _("Ya estás en la cola."))):
                QueuedPlayer.objects.create(
                    user=bot, entry=entry, rating=queue.rating_for(bot.pk, bots_ladder(mode))
                )
            queue.match_locked(now)


def leave(bot: User) -> bool:
    """`bot` leaves the queue; or, if quick play has just seated it at a table whose socket it
    has not opened, it dodged that game (`queue.cancel`, as a person's «Cancelar»). False if
    there was nothing to leave."""
    return queue.cancel(bot)


def status(bot: User) -> dict[str, Any] | None:
    """How `bot`'s wait goes (its mode, since when, how many bots wait), its place held for
    `BOT_QUEUE_HOLD_SECONDS` more; None if it is not waiting."""
    held = QueueEntry.objects.filter(players__user=bot).update(hold_until=timezone.now() + _hold())
    mine = QueuedPlayer.objects.filter(user=bot).select_related("entry").first() if held else None
    if mine is None:
        return None
    return {
        "mode": mine.entry.mode,
        "since": mine.entry.joined_at.isoformat().replace("+00:00", "Z"),
        "waiting": waiting(mine.entry.mode),
        "hold_seconds": settings.BOT_QUEUE_HOLD_SECONDS,
    }
