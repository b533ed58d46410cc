"""Who is online: a Redis sorted set of user ids scored by when they were last seen."""

from __future__ import annotations

import time
from typing import Any

import redis
import redis.asyncio
from django.conf import settings
from django.db.models import Value
from django.db.models.functions import Coalesce, Lower, NullIf

from accounts.models import User

from .redis_clients import client

ONLINE_WINDOW_SECONDS = 300


def online_key() -> str:
    """The Redis sorted set of who is online: user id -> when last seen."""
    return f"{settings.CACHES['default']['KEY_PREFIX']}:online"


def touch(user_id: int, via: redis.Redis | redis.asyncio.Redis | None = None) -> Any:
    """`user_id` is online now. Through `via` (by default this process's client); with the event
    loop's (`redis_clients.async_client`) what it returns is awaited."""
    now = time.time()
    pipe = (via or client()).pipeline()
    pipe.zadd(online_key(), {str(user_id): now})
    pipe.zremrangebyscore(online_key(), 0, now - ONLINE_WINDOW_SECONDS)
    return pipe.execute()


def online_count() -> int:
    return int(client().zcount(online_key(), time.time() - ONLINE_WINDOW_SECONDS, "+inf"))


def online_players(limit: int = 40) -> list[User]:
    """The first `limit` people online by name. By name, not the most recently seen: that list
    changed with every ping, and the lobby pushes it to everybody whenever it changes."""
    name = Lower(Coalesce(NullIf("display_name", Value("")), "username"))
    users = (
        User.objects.filter(pk__in=online_ids(), is_bot=False)
        .only("username", "display_name")
        .order_by(name, "pk")[:limit]
    )
    return list(users)


def online_ids() -> set[int]:
    """Everybody online now, by id."""
    ids = client().zrangebyscore(online_key(), time.time() - ONLINE_WINDOW_SECONDS, "+inf")
    return {int(i) for i in ids}
