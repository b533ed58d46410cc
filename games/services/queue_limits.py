"""What quick play's queue (`queue`) lets one player cost everybody else: how often they may join
it, and how often the waiting are told its size.

A join takes the queue's lock and changes its size, which every waiting player's page is told:
200 joins and leaves in 8 s from one account once sent every waiting player 400 `queue_size`
messages. So a player joins at most `MUS_QUEUE_JOINS` times in `MUS_QUEUE_JOINS_SECONDS`, and a
mode's size goes out at most once per `MUS_QUEUE_SIZE_SECONDS`: a change sends it at once if
none went out in that interval (a key in Redis that expires, claimed by one process), otherwise
it marks the mode, and the clock's sweep (`flush_sizes`, every second) sends the size as it is
then once the interval is over. So the last message always carries the latest size.
"""

from __future__ import annotations

from django.conf import settings
from django.db import transaction
from django.utils.translation import gettext_lazy as _

from accounts.models import User

from ..models import QueuedPlayer
from . import redis_clients
from .errors import ServiceError
from .notify import tell_queue
from .ratelimit import within_rate


def check_join_rate(user: User) -> None:
    """Count one more join by `user`; `queue_rate` if they made too many lately."""
    if not within_rate(
        "queue-join", user.pk, settings.MUS_QUEUE_JOINS, settings.MUS_QUEUE_JOINS_SECONDS
    ):
        raise ServiceError(
            "queue_rate",
            _(
                "Has entrado en la cola demasiadas veces seguidas: espera un poco antes de "
                "volver a entrar."
            ),
        )


def waiting(mode: str) -> int:
    """How many people wait for a table of `mode` (players' bots wait apart: `bot_queue`)."""
    return QueuedPlayer.objects.filter(entry__mode=mode, user__bot_owner__isnull=True).count()


def size_changed(mode: str) -> None:
    """The queue of `mode` changed: once committed, its pages are told its size, or it is
    marked for the sweep if they were told less than an interval ago."""
    transaction.on_commit(lambda: _tell_size(mode))


def _key(what: str) -> str:
    return f"{settings.CACHES['default']['KEY_PREFIX']}:queue-size-{what}"


def _claim(mode: str) -> bool:
    """Whether this process may tell `mode`'s size now (then nobody may for an interval)."""
    interval = settings.MUS_QUEUE_SIZE_SECONDS
    if not interval:
        return True
    return bool(redis_clients.client().set(_key(f"sent:{mode}"), 1, nx=True, px=interval * 1000))


def _tell(mode: str) -> None:
    tell_queue(mode, {"type": "queue_size", "mode": mode, "waiting": waiting(mode)})


def _tell_size(mode: str) -> None:
    if _claim(mode):
        _tell(mode)
    else:
        redis_clients.client().sadd(_key("due"), mode)


def flush_sizes() -> int:
    """Send the sizes held back whose interval is over (the clock's sweep). How many sent."""
    client = redis_clients.client()
    sent = 0
    for raw in client.smembers(_key("due")):
        mode = raw.decode()
        if _claim(mode):
            # Taken off before counting: a change committed from here on marks it again.
            client.srem(_key("due"), mode)
            _tell(mode)
            sent += 1
    return sent
