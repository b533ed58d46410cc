"""The channel layer: channels_redis's pub/sub layer, whose subscribing survives a Redis restart.

After a restart the layer's pub/sub connection of each event loop is stale, and redis-py does
not always notice: its reader, which was reconnecting, may have left the socket's transport
closed under a connection that still says it is connected. The next SUBSCRIBE then fails with
whatever asyncio says of a closed transport (`TypeError: 'NoneType' object is not callable`),
not a connection error, so redis-py's own retry does not reconnect, and the first table socket
after the restart was closed 1011 (an internal error) with a traceback. Here a subscription
that fails drops the connection and is tried once more on a fresh one, which redis-py
subscribes again to everything this process listened to (`PubSub.on_connect`); if that fails
too, it fails as a connection error, an outage the sockets answer with 1013 (try again).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import Any

import redis.exceptions
from channels_redis.pubsub import (
    RedisPubSubChannelLayer,
    RedisPubSubLoopLayer,
    RedisSingleShardConnection,
)
from channels_redis.utils import _wrap_close

log = logging.getLogger(__name__)


#: What the reader meets while Redis restarts: the connection lost, or (a `RuntimeError` of
#: asyncio's stream) the connection being made afresh under it by a subscribe (`_again`).
_LOST = (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError, OSError, RuntimeError)


class _Shard(RedisSingleShardConnection):
    async def subscribe(self, channel: str) -> None:
        await self._again(super().subscribe, channel)

    async def unsubscribe(self, channel: str) -> None:
        await self._again(super().unsubscribe, channel)

    async def _again(self, command: Any, channel: str) -> None:
        """`command(channel)`, once more on a fresh connection if it fails."""
        try:
            await command(channel)
        except (asyncio.CancelledError, GeneratorExit):
            raise
        except Exception as exc:
            log.warning("stale pub/sub connection (%r): trying again on a fresh one", exc)
            await self._drop_connection()
            try:
                await command(channel)
            except Exception as again:
                raise redis.exceptions.ConnectionError(f"pub/sub: {again!r}") from again

    async def _do_receiving(self) -> None:
        """channels_redis's reader, but a lost connection is a warning, not a traceback a second
        while Redis restarts (redis-py connects again on the next read)."""
        while True:
            try:
                if self._pubsub and self._pubsub.subscribed:
                    message = await self._pubsub.get_message(
                        ignore_subscribe_messages=True, timeout=0.1
                    )
                    self._receive_message(message)
                else:
                    await asyncio.sleep(0.1)
            except (TimeoutError, asyncio.CancelledError, GeneratorExit):
                raise
            except _LOST as lost:
                log.warning("pub/sub connection lost, reading again in a second: %r", lost)
                await asyncio.sleep(1)
            except Exception:
                log.exception("unexpected exception reading the pub/sub connection")
                await asyncio.sleep(1)

    async def _drop_connection(self) -> None:
        """Disconnect the pub/sub connection: the next command connects again (and
        re-subscribes). Its subscriptions are kept, as they are by redis-py's own reconnects."""
        async with self._lock:
            connection = None if self._pubsub is None else self._pubsub.connection
            if connection is not None:
                with contextlib.suppress(Exception):
                    await connection.disconnect()


class _LoopLayer(RedisPubSubLoopLayer):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._shards = [_Shard(shard.host, self) for shard in self._shards]


class PubSubChannelLayer(RedisPubSubChannelLayer):
    """`RedisPubSubChannelLayer` with `_Shard`s (settings.CHANNEL_LAYERS)."""

    def _get_layer(self) -> RedisPubSubLoopLayer:
        loop = asyncio.get_running_loop()
        layer = self._layers.get(loop)
        if layer is None:
            layer = self._layers[loop] = _LoopLayer(*self._args, **self._kwargs, channel_layer=self)
            _wrap_close(self, loop)
        return layer
