"""Sliding-window rate limits in Redis, shared by every server process (chat lines, invitations)."""

from __future__ import annotations

import inspect
import time
import uuid
from collections.abc import Awaitable
from typing import Any

import redis
import redis.asyncio
from django.conf import settings

from . import redis_clients

# One atomic step in Redis (a script runs alone): with a check and an add in two trips, requests
# sent in parallel all passed the check before any of them was added.
_RATE_SCRIPT = """
redis.call('ZREMRANGEBYSCORE', KEYS[1], 0, ARGV[1] - ARGV[2])
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[3]) then
  return 0
end
redis.call('ZADD', KEYS[1], ARGV[1], ARGV[4])
redis.call('EXPIRE', KEYS[1], ARGV[2] + 1)
return 1
"""


def _key(kind: str, user_id: int) -> str:
    return f"{settings.CACHES['default']['KEY_PREFIX']}:{kind}-rate:{user_id}"


def within_rate(
    kind: str,
    user_id: int,
    count: int,
    seconds: int,
    via: redis.Redis | redis.asyncio.Redis | None = None,
) -> Any:
    """Count one more `kind` of request by `user_id`: False (not counted) if they already made
    `count` of them in the last `seconds`. Through `via` (by default this process's client);
    with the event loop's (`redis_clients.async_client`) what it returns is awaited."""
    args = [time.time(), seconds, count, uuid.uuid4().hex]
    found = (via or redis_clients.client()).eval(_RATE_SCRIPT, 1, _key(kind, user_id), *args)
    return _truth(found) if inspect.isawaitable(found) else bool(found)


async def _truth(found: Awaitable[Any]) -> bool:
    return bool(await found)
