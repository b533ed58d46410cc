"""Abandoning has a price (docs/rules.md §8.4): a rated game left for good is recorded against the
player who left, and repeated abandonment suspends them from sitting at tables for a while."""

from __future__ import annotations

import math
from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Any

from django.db.models import Model
from django.utils import timezone
from django.utils.functional import lazy
from django.utils.translation import ngettext

from ..models import Abandonment, Table
from .errors import ServiceError

#: Abandonments counted together, and the suspension after the 2nd, 3rd and later ones in it.
WINDOW = timedelta(hours=24)
SUSPENSIONS = (timedelta(0), timedelta(minutes=10), timedelta(hours=1), timedelta(hours=24))


def suspension_end(
    times: Sequence[datetime],
    window: timedelta = WINDOW,
    suspensions: Sequence[timedelta] = SUSPENSIONS,
) -> datetime | None:
    """When a player whose abandonments happened at `times` may sit again (None: they may now).

    Counted over the `WINDOW` before the latest one: the 2nd within it suspends for 10 minutes,
    the 3rd for an hour, any later one for 24 hours, from the latest abandonment. (Quick play
    counts its dodges the same way, with its own `window` and `suspensions`.)
    """
    if not times:
        return None
    latest = max(times)
    recent = sum(1 for t in times if t > latest - window)
    pause = suspensions[min(recent, len(suspensions)) - 1]
    return latest + pause if pause else None


def running_suspension(
    user: Any,
    marks: type[Model],
    window: timedelta = WINDOW,
    suspensions: Sequence[timedelta] = SUSPENSIONS,
) -> datetime | None:
    """The end of `user`'s suspension for the `marks` against them (rows with `user` and
    `created_at`: abandonments, or quick play's dodges with its own `window` and `suspensions`),
    if it is still running."""
    if not getattr(user, "is_authenticated", False):
        return None
    now = timezone.now()
    times = list(
        marks._default_manager.filter(user=user, created_at__gt=now - 2 * window).values_list(
            "created_at", flat=True
        )
    )
    end = suspension_end(times, window, suspensions)
    return end if end is not None and end > now else None


def suspended_until(user: Any) -> datetime | None:
    """The end of `user`'s suspension from sitting (abandonments) if it is still running."""
    return running_suspension(user, Abandonment)


def minutes_left(end: datetime) -> int:
    return max(1, math.ceil((end - timezone.now()).total_seconds() / 60))


def _suspension_text(n: int) -> str:
    return ngettext(
        "Has abandonado varias partidas: no puedes sentarte a jugar durante %(n)s minuto más.",
        "Has abandonado varias partidas: no puedes sentarte a jugar durante %(n)s minutos más.",
        n,
    ) % {"n": n}


def suspension_message(end: datetime) -> Any:
    """Translated when shown, in the language of whoever reads it (a socket's error is written
    in its player's language, not the server thread's)."""
    return lazy(_suspension_text, str)(minutes_left(end))


def check_may_sit(user: Any) -> None:
    """Refuse a suspended player a seat (or a new table), saying for how long."""
    end = suspended_until(user)
    if end is not None:
        raise ServiceError("suspended", suspension_message(end))


def charge(table: Table, seat: int, user_id: int) -> bool:
    """Record that `user_id` abandoned `table` at `seat`, within the transaction that ends it
    (`finish.end_game`, which announces the charge with the game's end). Practice and unrated
    games cost nothing (a game for the bots ladder is rated there). True if charged."""
    if table.practice or not (table.rated or table.unrated_reason == Table.UnratedReason.BOTS):
        return False
    Abandonment.objects.create(user_id=user_id, table_id=table.pk, seat=seat)
    return True
