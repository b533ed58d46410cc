"""This process's Redis clients, for what the services keep in Redis themselves (who is online,
rate limits, quick play's and the lobby's marks): one for threads, one per event loop."""

from __future__ import annotations

import asyncio
import weakref
from functools import cache

import redis
import redis.asyncio
from django.conf import settings


@cache
def client() -> redis.Redis:
    return redis.Redis.from_url(settings.REDIS_URL)


# One asyncio client per event loop (a client belongs to the loop it was made on).
_ASYNC_CLIENTS: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, redis.asyncio.Redis] = (
    weakref.WeakKeyDictionary()
)


def async_client() -> redis.asyncio.Redis:
    """This event loop's Redis client, for what a socket asks of Redis without leaving it."""
    loop = asyncio.get_running_loop()
    client_ = _ASYNC_CLIENTS.get(loop)
    if client_ is None:
        client_ = _ASYNC_CLIENTS[loop] = redis.asyncio.Redis.from_url(settings.REDIS_URL)
    return client_
