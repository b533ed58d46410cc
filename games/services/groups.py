"""Channel-layer groups and how a change reaches them.

Group messages are sent right away from synchronous callers (views, Celery tasks). Code that runs
in Channels' worker thread for a WebSocket consumer instead collects them (`collect_group_messages`)
and the consumer's event loop sends them itself: `async_to_sync` from a worker thread would queue
each send behind everything else that loop is doing, and block the thread meanwhile.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable
from typing import Any

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer

GroupMessage = tuple[str, dict[str, Any]]

_collect = threading.local()


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


async def send_groups(messages: list[GroupMessage]) -> None:
    """Send collected messages from the event loop."""
    layer = get_channel_layer()
    if layer is None:  # pragma: no cover - always configured
        return
    for group, message in messages:
        await layer.group_send(group, message)


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
