"""Sliding-window rate limits in Redis, shared by every server process (chat lines, invitations)."""

from __future__ import annotations

import time
import uuid
from functools import cache

from django.conf import settings
from redis.commands.core import Script

from . import presence

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


@cache
def _rate_script() -> Script:
    return presence.client().register_script(_RATE_SCRIPT)


def _key(kind: str, user_id: int) -> str:
    return f"{settings.CACHES['default']['KEY_PREFIX']}:{kind}-rate:{user_id}"


def within_rate(kind: str, user_id: int, count: int, seconds: int) -> bool:
    """Count one more `kind` of request by `user_id`: False (not counted) if they already made
    `count` of them in the last `seconds`."""
    member = uuid.uuid4().hex
    args = [time.time(), seconds, count, member]
    return bool(_rate_script()(keys=[_key(kind, user_id)], args=args))


async def within_rate_here(kind: str, user_id: int, count: int, seconds: int) -> bool:
    """`within_rate` on the event loop's own Redis connection."""
    args = [time.time(), seconds, count, uuid.uuid4().hex]
    found = await presence.async_client().eval(_RATE_SCRIPT, 1, _key(kind, user_id), *args)
    return bool(found)
