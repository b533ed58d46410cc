"""Who is online: a Redis sorted set of user ids scored by when they were last seen."""

from __future__ import annotations

import time
from functools import cache

import redis
from django.conf import settings

from accounts.models import User

ONLINE_WINDOW_SECONDS = 300


@cache
def client() -> redis.Redis:
    return redis.Redis.from_url(settings.REDIS_URL)


def online_key() -> str:
    """The Redis sorted set of who is online: user id -> when last seen."""
    return f"{settings.CACHES['default']['KEY_PREFIX']}:online"


def touch(user_id: int) -> None:
    now = time.time()
    pipe = client().pipeline()
    pipe.zadd(online_key(), {str(user_id): now})
    pipe.zremrangebyscore(online_key(), 0, now - ONLINE_WINDOW_SECONDS)
    pipe.execute()


def online_count() -> int:
    return int(client().zcount(online_key(), time.time() - ONLINE_WINDOW_SECONDS, "+inf"))


def online_players(limit: int = 40) -> list[User]:
    ids = client().zrevrangebyscore(
        online_key(), "+inf", time.time() - ONLINE_WINDOW_SECONDS, start=0, num=limit
    )
    users = User.objects.filter(pk__in=[int(i) for i in ids], is_bot=False).only(
        "username", "display_name"
    )
    return sorted(users, key=lambda u: u.public_name.lower())


def online_ids() -> set[int]:
    """Everybody online now, by id."""
    ids = client().zrangebyscore(online_key(), time.time() - ONLINE_WINDOW_SECONDS, "+inf")
    return {int(i) for i in ids}
