"""The table socket's side of the service layer: one call per frame the consumer receives.

Database work that is not a plain move runs in Channels' one sync thread (`in_worker`), which is
measured to be faster under load than a pool of threads fighting the event loop for the GIL
(docs/performance.md); the group messages it makes are collected there and sent from the event
loop. A move starts on the event loop and stays there when it writes one row
(`games.services.pipeline`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import weakref
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from channels.db import DatabaseSyncToAsync
from django.conf import settings
from django.db import connection

from accounts import bot_accounts, sockets

from ..models import Table
from ..socket_codes import CLOSE_FOR_VERDICT
from . import adb, chat, connections, pipeline, play, presence, ratelimit, redis_clients
from .access import Session, can_view
from .errors import OUTAGES, ServiceError, Unavailable
from .executor import LOOP
from .groups import collect_group_messages, group_name, send_groups, unsent
from .state import ONLOOKER, audience, state_for

log = logging.getLogger(__name__)


async def in_worker[T](fn: Callable[..., T], *args: Any) -> T:
    """Run `fn(*args)` in Channels' sync thread, then send the group messages it made.
    PostgreSQL or Redis down: `Unavailable` (and the thread's connection goes back to the pool,
    which replaces it if it is dead)."""

    def run() -> tuple[Any, ServiceError | None, list[Any]]:
        with collect_group_messages() as messages:
            try:
                return fn(*args), None, messages
            except ServiceError as exc:
                return None, exc, messages
            except OUTAGES:
                log.warning("service unavailable in %s", fn.__qualname__, exc_info=True)
                with contextlib.suppress(*OUTAGES):
                    connection.close()
                return None, Unavailable(), messages

    result, error, messages = await DatabaseSyncToAsync(run, thread_sensitive=True)()
    await send_groups(messages)
    if error is not None:
        raise error
    return result


@dataclass(frozen=True, slots=True)
class Welcome:
    """What a socket gets when it joins: its audience, language, state and the recent chat (but
    the lines of the players it blocks, `blocked`)."""

    key: str
    language: str
    state: dict[str, Any]
    chat: list[dict[str, Any]]
    blocked: frozenset[int]


def _welcome(table_id: int, user: Any, session: Session | None, channel: str) -> Welcome:
    entry = connections.join(table_id, user, session, channel)
    reader = user.pk if user.is_authenticated else None
    history, blocked = pipeline.run(chat.recent(table_id, reader))
    return Welcome(
        entry.key, entry.language, state_for(entry.table, user), history, frozenset(blocked)
    )


async def join(table_id: int, user: Any, session: Session | None, channel: str) -> Welcome:
    """The socket `channel` opens (its consumer already listens to the table's group, so nothing
    said from here on is missed): refused with `ServiceError`, or counted and welcomed.

    The usual join — a player at their seat, anybody at a public table — stays on the event
    loop (`_usual_welcome`); the rest (a private table that needs the session's invitation, a
    table that does not exist, a player coming back to a stopped clock) goes to the worker
    thread, where every join used to queue: 12 queries and 35–40 ms of CPU each, so that a game
    ending at many tables, or a restart, refused sockets (docs/performance.md)."""
    keep_beating()
    welcome = await _usual_welcome(table_id, user, channel)
    if welcome is not None:
        return welcome
    return await in_worker(_welcome, table_id, user, session, channel)


async def _usual_welcome(table_id: int, user: Any, channel: str) -> Welcome | None:
    """`_welcome` for the usual join, on the event loop; None for the worker to decide."""
    table = await pipeline.table_on_loop(table_id)
    if table is None:
        return None
    if user is None or not user.is_authenticated:
        if table.private:
            return None
        history, _blocked = await pipeline.run_on_loop(chat.recent(table_id, None))
        language = connections.language_of(user)
        return Welcome(ONLOOKER, language, state_for(table, user), history, frozenset())
    if not can_view(table, user):
        return None  # perhaps by the invitation in the session: the worker reads it
    told = await connections.socket_opening(table_id, user.pk, channel)
    table = await _tell(table_id, user.pk, told, channel) or table
    with contextlib.suppress(*OUTAGES):
        await presence.touch(
            user.pk, redis_clients.async_client()
        )  # (online again at the next ping)
    history, blocked = await pipeline.run_on_loop(chat.recent(table_id, user.pk))
    language = connections.language_of(user)
    return Welcome(
        audience(table, user), language, state_for(table, user), history, frozenset(blocked)
    )


def _recount_for(table_id: int, user_id: int, skip: str | None) -> Table | None:
    return connections.recount(table_id, user_id, skip=skip)


async def leave(channel: str) -> None:
    """The socket closed: uncounted on the event loop, and the others told if they see a
    change. Not counted now if the database is down: its process's next beat finds it gone
    (`connections.beat`)."""
    try:
        gone = await connections.socket_closing(channel)
        if gone is not None:
            await _tell(gone.table_id, gone.user_id, gone.verdict, None)
    except (Unavailable, *OUTAGES):
        # Said, not raised: the socket is gone either way, and a seat left counted as present
        # until the beat is what to look for when a reconnection window opens late.
        log.warning(
            "socket %s closed while a service was down: left to the beat", channel, exc_info=True
        )


async def _tell(table_id: int, user_id: int, told: str, skip: str | None) -> Table | None:
    """What counting a socket left to do (`connections.socket_opening`): the table as the
    others were told of it, or None if nothing they see changed."""
    if told == connections.TRANSITION:
        # Their clock and reconnection window change: the ORM's `recount` in the worker.
        return await in_worker(_recount_for, table_id, user_id, skip)
    if told == connections.TELL:
        table = await pipeline.table_on_loop(table_id)
        if table is not None:
            await LOOP.publish(table, skip=skip)
        return table
    return None


async def current_state(table_id: int, user: Any) -> dict[str, Any] | None:
    """The state `user` gets at the table now (after a refused frame, or when asked to sync)."""
    table = await pipeline.table_on_loop(table_id)
    return None if table is None else state_for(table, user)


async def submit(user: Any, table_id: int, version: Any, payload: dict[str, Any]) -> bool:
    """A player's action. Refused with `ServiceError`; nothing changed then (or, `Unavailable`,
    nothing that the table will not show everybody when the service is back). True when it was
    committed but its state could not go out to the table (Redis is down): the socket sends its
    own."""
    run = play.move(user, table_id, version, payload)
    if not await pipeline.on_loop(run):
        await in_worker(pipeline.finish, run)  # planned on the loop, committed in the worker
    return unsent(group_name(table_id))


async def say(user: Any, table_id: int, text: Any) -> None:
    """A chat line. Refused with `ServiceError`."""
    await in_worker(chat.post, user, table_id, text)


async def heartbeat(user: Any) -> None:
    """The socket's periodic ping: its player is still online (Redis down: they will be again
    at the next ping)."""
    if user.is_authenticated:
        with contextlib.suppress(Unavailable):
            await in_worker(presence.touch, user.pk)


async def recheck(user: Any, session: Session | None, token_id: int | None = None) -> int | None:
    """The player's account changed (`accounts.sockets.recheck_sockets`): None if the socket's
    session (or, for a bot's socket, its token) still signs it in, else the code to close it
    with."""
    if token_id is not None:
        verdict = await in_worker(bot_accounts.token_verdict, token_id)
    else:
        key = None if session is None else session.session_key
        verdict = await in_worker(sockets.session_verdict, key, user.pk)
    return None if verdict is None else CLOSE_FOR_VERDICT[verdict]


async def bot_may_act(token_id: int) -> bool:
    """Count an action or chat line a bot's token sends: False past `BOT_API_ACTIONS_PER_MINUTE`
    in a minute."""
    with contextlib.suppress(*OUTAGES):
        return await ratelimit.within_rate(
            "bot-action",
            token_id,
            settings.BOT_API_ACTIONS_PER_MINUTE,
            60,
            redis_clients.async_client(),
        )
    return True  # Redis is down: the action itself will say so


# --------------------------------------------------------------------------------------------
# The process's heartbeat (connections.beat), from the event loop its sockets live on.
# --------------------------------------------------------------------------------------------
_BEATING: weakref.WeakSet[asyncio.AbstractEventLoop] = weakref.WeakSet()
_RUNNING: set[asyncio.Task[None]] = set()


def keep_beating() -> None:
    """Start this event loop's heartbeat, once. Callbacks rather than an endless task: when the
    loop stops (a test's, a server's), what it had scheduled simply never runs."""
    loop = asyncio.get_running_loop()
    if loop not in _BEATING:
        _BEATING.add(loop)
        loop.call_soon(_beat, loop)


def _beat(loop: asyncio.AbstractEventLoop) -> None:
    task = loop.create_task(_beat_once())
    _RUNNING.add(task)  # (a task nobody holds may be collected before it runs)
    task.add_done_callback(_RUNNING.discard)
    loop.call_later(settings.MUS_PROCESS_BEAT_SECONDS, _beat, loop)


_FAILED_BEATS: set[asyncio.AbstractEventLoop] = set()


async def _beat_once() -> None:
    loop = asyncio.get_running_loop()
    try:
        if not await adb.beat(connections.PROCESS):
            await in_worker(connections.beat)
        if loop in _FAILED_BEATS:
            # The first beat after an outage: the socket rows are brought in line with the
            # sockets this process holds (presence rebuilt, not trusted from before).
            await in_worker(connections.reconcile)
            _FAILED_BEATS.discard(loop)
    except Exception:  # a database hiccup must not stop the heartbeat for good
        _FAILED_BEATS.add(loop)
        log.warning("process heartbeat failed", exc_info=True)
