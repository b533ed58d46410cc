"""Channel-layer groups and how a change reaches them.

Group messages are sent right away from synchronous callers (views, Celery tasks). Code that runs
in Channels' worker thread for a WebSocket consumer instead collects them (`collect_group_messages`)
and the consumer's event loop sends them itself: `async_to_sync` from a worker thread would queue
each send behind everything else that loop is doing, and block the thread meanwhile.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import threading
from collections.abc import Callable
from typing import Any

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer

from .errors import OUTAGES

GroupMessage = tuple[str, dict[str, Any]]

log = logging.getLogger(__name__)
_collect = threading.local()

# Messages this process could not send while Redis was down, sent again once it is back: a
# table's newest state (which makes its older ones moot), and other messages in order (bounded).
_UNSENT_STATES: dict[str, dict[str, Any]] = {}
_UNSENT_OTHERS: list[GroupMessage] = []
_UNSENT_MAX = 1000
_RETRYING: set[asyncio.AbstractEventLoop] = set()
_TASKS: set[asyncio.Task[None]] = set()
RETRY_SECONDS = 0.5


def group_name(table_id: int) -> str:
    """Every socket open on a table: its players and its onlookers."""
    return f"table-{table_id}"


class collect_group_messages:
    """Within the block, `send_group` keeps its messages in the list it returns."""

    def __enter__(self) -> list[GroupMessage]:
        self.previous = getattr(_collect, "messages", None)
        _collect.messages = []
        return _collect.messages

    def __exit__(self, *exc: object) -> None:
        _collect.messages = self.previous


def send_group(group: str, message: dict[str, Any]) -> None:
    bucket = getattr(_collect, "messages", None)
    if bucket is not None:
        bucket.append((group, message))
        return
    layer = get_channel_layer()
    if layer is not None:
        async_to_sync(layer.group_send)(group, message)


async def release_channel(channel: str) -> None:
    """Let go of whatever the channel layer still keeps for `channel`, whose consumer has ended.

    channels_redis's pub/sub layer forgets a consumer's channel only when its pending receive is
    cancelled while waiting. A consumer that stops just as a message for it has arrived (a
    table's state as its player leaves, a notification as a page closes) ends with that receive
    finished instead, and the channel's queue and subscriptions stay for the life of the
    process; while it is still in a group (its player's), every message to that group piles up
    in a queue nobody reads. 64 of some 60,000 sockets did so in one load-test session. Costs
    nothing when the layer already forgot it (the usual case)."""
    layer = get_channel_layer()
    inner = layer._get_layer() if hasattr(layer, "_get_layer") else None
    queues = getattr(inner, "channels", None)
    if inner is None or queues is None or channel not in queues:
        return
    del queues[channel]
    try:
        for group_channel, members in list(inner.groups.items()):
            if channel in members:
                members.discard(channel)
                if not members:
                    del inner.groups[group_channel]
                    await inner._get_shard(group_channel).unsubscribe(group_channel)
        await inner._get_shard(channel).unsubscribe(channel)
    except OUTAGES:
        pass  # Redis is down: its subscriptions went with it


async def send_groups(messages: list[GroupMessage], *, resending: bool = False) -> None:
    """Send collected messages from the event loop. With Redis down they are kept (`unsent`)
    and sent again every `RETRY_SECONDS` until it answers: a change committed meanwhile reaches
    every socket at its table once Redis is back."""
    layer = get_channel_layer()
    if layer is None:  # pragma: no cover - always configured
        return
    for i, (group, message) in enumerate(messages):
        try:
            await layer.group_send(group, message)
        except OUTAGES:
            log.warning("channel layer unavailable: %d group messages kept", len(messages) - i)
            for group_, message_ in messages[i:]:
                _keep(group_, message_, newest=not resending)
            _retry_later()
            return


def _keep(group: str, message: dict[str, Any], *, newest: bool) -> None:
    if message.get("type") == "table.state":
        if newest or group not in _UNSENT_STATES:  # (a newer state came while resending)
            _UNSENT_STATES[group] = message
    elif len(_UNSENT_OTHERS) < _UNSENT_MAX:
        _UNSENT_OTHERS.append((group, message))


def unsent(group: str) -> bool:
    """Whether the newest state of `group` is waiting for Redis (its sockets have not got it)."""
    return group in _UNSENT_STATES


def _retry_later() -> None:
    loop = asyncio.get_running_loop()
    if loop not in _RETRYING:
        _RETRYING.add(loop)
        loop.call_later(RETRY_SECONDS, _start_resend, loop)


def _start_resend(loop: asyncio.AbstractEventLoop) -> None:
    task = loop.create_task(_resend(loop))
    _TASKS.add(task)  # (a task nobody holds may be collected before it runs)
    task.add_done_callback(_TASKS.discard)


async def _resend(loop: asyncio.AbstractEventLoop) -> None:
    _RETRYING.discard(loop)
    pending = [*_UNSENT_OTHERS, *_UNSENT_STATES.items()]
    _UNSENT_OTHERS.clear()
    _UNSENT_STATES.clear()
    if pending:
        await send_groups(pending, resending=True)


def forget_unsent() -> None:
    """Drop what was kept (tests: each test has its own channel layer)."""
    _UNSENT_STATES.clear()
    _UNSENT_OTHERS.clear()
    _RETRYING.clear()


def batched[**P, R](fn: Callable[P, R]) -> Callable[P, R]:
    """`fn` sends its group messages together when it returns, in one trip to the event loop
    (a change that tells many groups, from a view or a Celery task: each `async_to_sync` costs
    a thread hop). Called where messages are already collected (a socket's worker thread), it
    leaves them there."""

    @functools.wraps(fn)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        if getattr(_collect, "messages", None) is not None:
            return fn(*args, **kwargs)
        with collect_group_messages() as messages:
            try:
                return fn(*args, **kwargs)
            finally:
                if messages:
                    async_to_sync(send_groups)(list(messages))

    return wrapper
